#pragma once

// Where values sit in the bytes of a JSON text, found by their paths: for a writer that changes
// a few values of a document and must leave every other byte as its author wrote it (an agent
// card pointed at agentvcr, a recorded answer re-stamped with a live id: whitespace, number
// spellings and escapes stay the agent's).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentvcr::protocol::detail {

/// The way from a document's root to one of its values: a member name (decoded) for each
/// object, an element index (in decimal) for each array.
using JsonPath = std::vector<std::string>;

/// The bytes [begin, end) of one value: a string with its quotes, a container with its brackets.
struct TextSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// The value at each of `paths` in `text`, a document parseJson() accepts; nullopt where
/// `text` holds no value there. A member name written twice in one object counts at its last
/// place, as parseJson() keeps the last value; an escaped name counts by what it spells.
std::vector<std::optional<TextSpan>> valueSpansAt(std::string_view text,
                                                  const std::vector<JsonPath>& paths);

}  // namespace agentvcr::protocol::detail
