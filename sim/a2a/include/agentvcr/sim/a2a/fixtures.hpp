#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/sim/a2a/fates.hpp"
#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/skills.hpp"

namespace agentvcr::sim::a2a {

/// What a profile's fixture folder holds: the agent card without the fields the mock fills in
/// (protocolVersion, url, preferredTransport, skills), and the skill table.
struct Fixtures {
  Json card_template;
  SkillTable skills;
  /// extended-card.json, when the folder has one: what the extended card adds to the public
  /// one (standard profile). Without it the extended-card methods answer -32007.
  std::optional<Json> extended_card;
  /// fates.json, when the folder has one: the fates a caller may script (standard profile).
  FateTable fates;
};

struct FixturesLoad {
  std::optional<Fixtures> fixtures;
  std::string error;  ///< names the file and the fault
};

/// Builds fixtures from the texts of card.json, skills.json, and extended-card.json and
/// fates.json when given.
FixturesLoad fixturesFromText(std::string_view card_text, std::string_view skills_text,
                              std::optional<std::string_view> extended_card_text = std::nullopt,
                              std::optional<std::string_view> fates_text = std::nullopt);

/// Reads `dir`/card.json, `dir`/skills.json and, when present, `dir`/extended-card.json and
/// `dir`/fates.json.
FixturesLoad loadFixturesDir(const std::string& dir);

}  // namespace agentvcr::sim::a2a
