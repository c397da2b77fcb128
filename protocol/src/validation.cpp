#include "agentvcr/protocol/validation.hpp"

namespace agentvcr::protocol {

std::string toJsonPointer(const JsonPath& path) {
  std::string pointer;
  for (const PathElement& element : path) {
    pointer += '/';
    if (const auto* key = std::get_if<std::string>(&element)) {
      for (char c : *key) {
        if (c == '~') {
          pointer += "~0";
        } else if (c == '/') {
          pointer += "~1";
        } else {
          pointer += c;
        }
      }
    } else {
      pointer += std::to_string(std::get<std::int64_t>(element));
    }
  }
  return pointer;
}

}  // namespace agentvcr::protocol
