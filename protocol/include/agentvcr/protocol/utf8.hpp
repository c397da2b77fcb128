#pragma once

#include <cstddef>
#include <string>
#include <string_view>

/// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), as
/// every layer that must tell text from bytes checks it.
namespace agentvcr::protocol {

/// Length of the well-formed UTF-8 sequence that starts at `text[i]` (1 to 4), or 0 when the
/// bytes there are not one. `i` must be inside `text`.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

/// Whether all of `bytes` is well-formed UTF-8.
bool isUtf8(std::string_view bytes);

/// `text` for one line of a report or a view: whitespace runs folded to one space, ends trimmed,
/// cut to `max_chars` code points with "…". One helper, so that `agentvcr eval` and the viewer
/// shorten a text alike.
std::string oneLine(std::string_view text, std::size_t max_chars = 160);

}  // namespace agentvcr::protocol
