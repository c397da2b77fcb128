#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/skills.hpp"

namespace agentvcr::sim::a2a {

/// What a profile's fixture folder holds: the agent card without the fields the mock fills in
/// (protocolVersion, url, preferredTransport, skills), and the skill table.
struct Fixtures {
  Json card_template;
  SkillTable skills;
};

struct FixturesLoad {
  std::optional<Fixtures> fixtures;
  std::string error;  ///< names the file and the fault
};

/// Builds fixtures from the texts of card.json and skills.json.
FixturesLoad fixturesFromText(std::string_view card_text, std::string_view skills_text);

/// Reads `dir`/card.json and `dir`/skills.json.
FixturesLoad loadFixturesDir(const std::string& dir);

}  // namespace agentvcr::sim::a2a
