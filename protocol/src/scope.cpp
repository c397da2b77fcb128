#include "agentvcr/protocol/scope.hpp"

#include <algorithm>

namespace agentvcr::protocol {

bool isScopeName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
  });
}

}  // namespace agentvcr::protocol
