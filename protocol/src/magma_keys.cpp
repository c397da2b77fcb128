// Replay keys of MAGMA inputs (magma-protocol.md §18.2).

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::protocol::magma {

std::uint64_t replayKey(const AgentInput& input) {
  return replayKey(input, canonicalJson(input.tools), canonicalJson(input.attributes),
                   canonicalJson(input.memory), canonicalJson(input.extra_keys));
}

std::uint64_t replayKey(const AgentInput& input, std::string_view tools_text,
                        std::string_view attributes_text, std::string_view memory_text,
                        std::string_view extra_keys_text) {
  // canonicalJson(toJson(input) without "id"), written member by member in canonical (sorted)
  // key order: attributes, extra_keys, instruction {content, type}, memory, num_outputs, tools.
  const std::string content_text = canonicalJson(Json(input.instruction.content));
  const char* type_text = input.instruction.type == InstructionType::User ? "\"user\"" : "\"env\"";
  const std::string num_outputs_text = canonicalJson(Json(input.num_outputs));
  std::string text;
  text.reserve(96 + tools_text.size() + attributes_text.size() + memory_text.size() +
               extra_keys_text.size() + content_text.size());
  text += "{\"attributes\":";
  text += attributes_text;
  text += ",\"extra_keys\":";
  text += extra_keys_text;
  text += ",\"instruction\":{\"content\":";
  text += content_text;
  text += ",\"type\":";
  text += type_text;
  text += "},\"memory\":";
  text += memory_text;
  text += ",\"num_outputs\":";
  text += num_outputs_text;
  text += ",\"tools\":";
  text += tools_text;
  text += '}';
  return stableHash(text);
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
