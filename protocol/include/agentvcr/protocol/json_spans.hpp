#pragma once

// Where values sit in a JSON text, found without building it: the archive keeps a value that a
// stored body already holds as a reference into the body's bytes (docs/schema.md, "Internal
// steps"), and reads it back from there.

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace agentvcr::protocol {

/// One step of a path pattern: an object's member by name, or (empty name) any element of an
/// array.
struct JsonPathStep {
  std::string_view member;
};

/// The bytes [begin, end) of one value in a text.
struct JsonSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// Calls `found` for each value whose path matches `pattern`, in text order, with the array
/// index taken at each wildcard step. A member named twice is reported twice: the later one is
/// the one parseJson() keeps. For texts parseJson() accepts: the scan checks the structure it
/// walks through, not every token, and returns false where that structure breaks.
bool findJsonValues(std::string_view text, std::span<const JsonPathStep> pattern,
                    const std::function<void(std::span<const std::size_t>, JsonSpan)>& found);

/// The string held by the JSON string literal that starts at `offset` of `text`; nullopt when no
/// well-formed literal starts there.
std::optional<std::string> jsonStringAt(std::string_view text, std::size_t offset);

}  // namespace agentvcr::protocol
