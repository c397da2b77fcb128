#include "agentvcr/sim/a2a/json.hpp"

#include <algorithm>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::sim::a2a {

std::optional<Json> parseJsonText(std::string_view text) {
  return protocol::parseOrderedJson(text);
}

std::string dumpJson(const Json& value) {
  // Strings were either checked on the way in or written by the mock itself; replacing
  // invalid UTF-8 only keeps a broken fixture from throwing on the request path.
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json onlyMembers(const Json& object, std::initializer_list<std::string_view> known) {
  Json out = Json::object();
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) {
      out[key] = value;
    }
  }
  return out;
}

}  // namespace agentvcr::sim::a2a
