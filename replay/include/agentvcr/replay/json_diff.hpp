#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::replay {

/// Where two JSON values differ, as RFC 6901 JSON pointers ("" is the whole value).
struct JsonDifferences {
  std::vector<std::string> paths;
  bool truncated = false;  ///< more differences exist than the limit let through
};

/// The paths at which `a` and `b` differ, in document order: a member
/// present on one side only, an array element past the other's end, or two values of different
/// type or value. Objects are compared member by member (keys in byte order) and arrays element
/// by element, so one changed field deep in a memory is named precisely instead of the whole
/// memory. Numbers compare by value (1 and 1.0 are equal, as JSON parsers see them). At most
/// `limit` paths are listed.
JsonDifferences differingPaths(const protocol::Json& a, const protocol::Json& b,
                               std::size_t limit = 32);

}  // namespace agentvcr::replay
