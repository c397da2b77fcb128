#pragma once

// JSON string writing with UTF-8 checking (private to agentvcr_protocol).

#include <string>
#include <string_view>

namespace agentvcr::protocol::detail {

/// Appends `text` as a JSON string literal the way Python's json.dumps(ensure_ascii=False)
/// writes it: raw UTF-8, escapes only for '"', '\\' and control characters (\b \f \n \r \t,
/// others as \u00xx). Bytes that are not valid UTF-8 become U+FFFD, one per offending byte.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace agentvcr::protocol::detail
