#pragma once

// JSON string writing with UTF-8 checking (private to agentvcr_protocol).

#include <string>
#include <string_view>

namespace agentvcr::protocol::detail {

/// Appends `text` as a JSON string literal the way Python's json.dumps(ensure_ascii=...) writes
/// it: escapes for '"', '\\' and control characters (\b \f \n \r \t, others as \u00xx); the
/// rest raw UTF-8, or with `ensure_ascii` every character outside U+0020..U+007E as \uxxxx
/// (above U+FFFF as a surrogate pair). Bytes that are not valid UTF-8 become U+FFFD, one per
/// offending byte.
void appendJsonString(std::string& out, std::string_view text, bool ensure_ascii = false);

}  // namespace agentvcr::protocol::detail
