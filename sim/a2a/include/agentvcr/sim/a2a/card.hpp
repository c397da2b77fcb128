#pragma once

#include <string>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/profile.hpp"
#include "agentvcr/sim/a2a/skills.hpp"

namespace agentvcr::sim::a2a {

/// Where the mock's interfaces are: JSON-RPC, and HTTP+JSON when `rest` is not empty.
struct InterfaceUrls {
  std::string json_rpc;
  std::string rest;
};

/// The agent card the mock serves:
/// - v0.3: `protocolVersion` from the profile, `url` (the JSON-RPC endpoint clients should
///   call) and `preferredTransport` (0.3 cards only; v0.2.x had none);
/// - v1.0: `supportedInterfaces`: JSON-RPC 1.0, HTTP+JSON 1.0 when served, JSON-RPC 0.3 when
///   served;
/// - the fixture's fields, the skills of the table, and capabilities: Magisterium's fixed ones
///   (no streaming, no push, state history) or, in the standard profile, the fixture's, with
///   `extendedAgentCard` (v1.0) and `supportsAuthenticatedExtendedCard` (v0.3) when `extended`
///   says the fixtures configure an extended card.
Json buildCard(const Json& card_template, const Profile& profile, const SkillTable& skills,
               const InterfaceUrls& urls, bool extended = false);

/// The card a v1.0 client gets (its `A2A-Version: 1.0`): `card` (buildCard's) with only the
/// members the v1.0 AgentCard defines, in the card, its capabilities and its skills. Gone are
/// v0.3's `protocolVersion`, `url`, `preferredTransport`, `additionalInterfaces`,
/// `supportsAuthenticatedExtendedCard` and `capabilities.stateTransitionHistory`.
Json v10Card(const Json& card);

/// The extended card: the public card with the members of `extension` (the fixture's
/// extended-card.json) in place of the template's, and its `skills` added to the table's.
Json buildExtendedCard(const Json& card_template, const Json& extension, const Profile& profile,
                       const SkillTable& skills, const InterfaceUrls& urls);

/// Whether `card` advertises streaming (capabilities.streaming is true).
bool cardStreams(const Json& card);

}  // namespace agentvcr::sim::a2a
