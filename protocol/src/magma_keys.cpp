// Replay keys of MAGMA inputs (magma-protocol.md §18.2).

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::protocol::magma {

std::uint64_t replayKey(const AgentInput& input) {
  Json json = toJson(input);
  json.erase("id");
  return canonicalHash(json);
}

std::uint64_t replayKey(const Json& input_json) {
  if (!input_json.is_object()) {
    return canonicalHash(input_json);
  }
  if (auto parsed = parseAgentInput(input_json); parsed.ok()) {
    return replayKey(*parsed.value);
  }
  // The id never takes part: a placeholder lets an input whose id alone is malformed (or
  // missing) still be normalised like any valid input.
  Json candidate = input_json;
  candidate["id"] = 0;
  auto parsed = parseAgentInput(candidate);
  if (parsed.ok()) {
    return replayKey(*parsed.value);
  }
  candidate.erase("id");
  return canonicalHash(candidate);
}

}  // namespace agentvcr::protocol::magma
