#pragma once

#include <string>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/profile.hpp"
#include "agentvcr/sim/a2a/skills.hpp"

namespace agentvcr::sim::a2a {

/// The agent card the mock serves: `protocolVersion` from the profile, the fixture's fields,
/// `url` (the JSON-RPC endpoint clients should call), `preferredTransport` for v0.3 cards only
/// (v0.2.x had none), the skills of the table, and capabilities: Magisterium's fixed ones
/// (no streaming, no push, state history) or, in the standard profile, the fixture's.
Json buildCard(const Json& card_template, const Profile& profile, const SkillTable& skills,
               const std::string& url);

/// Whether `card` advertises streaming (capabilities.streaming is true).
bool cardStreams(const Json& card);

}  // namespace agentvcr::sim::a2a
