#include "agentvcr/replay/input_key.hpp"

#include <stdexcept>

#include "agentvcr/protocol/canonical.hpp"

namespace agentvcr::replay {

using protocol::Json;

KeyRules KeyRules::ignoring(const std::vector<std::string>& pointers) {
  KeyRules rules;
  for (const std::string& text : pointers) {
    if (text.empty()) {
      throw std::invalid_argument("--ignore '': the whole input cannot be ignored");
    }
    try {
      rules.ignored_.emplace_back(text);
    } catch (const Json::exception&) {
      throw std::invalid_argument(
          "--ignore '" + text +
          "' is not a JSON pointer (RFC 6901, e.g. /attributes/robot_statuses)");
    }
    rules.texts_.push_back(text);
  }
  return rules;
}

std::uint64_t KeyRules::keyOf(const protocol::magma::AgentInput& input) const {
  if (ignoresNothing()) {
    return protocol::magma::replayKey(input);
  }
  return protocol::canonicalHash(keyedContent(protocol::magma::toJson(input)));
}

std::uint64_t KeyRules::keyOf(const Json& input_json) const {
  if (ignoresNothing()) {
    return protocol::magma::replayKey(input_json);
  }
  // Defaults filled in first, as for a live input: an omitted field and its default spelled
  // out key alike. The id never counts, so a placeholder stands in for a missing one.
  Json with_id = input_json;
  if (with_id.is_object()) {
    with_id["id"] = 0;
  }
  auto parsed = protocol::magma::parseAgentInput(with_id);
  return protocol::canonicalHash(
      keyedContent(parsed.ok() ? protocol::magma::toJson(*parsed.value) : input_json));
}

Json KeyRules::keyedContent(Json input_json) const {
  if (!input_json.is_object()) {
    return input_json;
  }
  input_json.erase("id");
  for (const Json::json_pointer& pointer : ignored_) {
    if (!input_json.contains(pointer)) {
      continue;
    }
    Json& parent = input_json.at(pointer.parent_pointer());
    if (parent.is_object()) {
      parent.erase(pointer.back());
    } else {
      // An ignored array element keeps its place so later elements keep their index.
      input_json.at(pointer) = nullptr;
    }
  }
  return input_json;
}

}  // namespace agentvcr::replay
