#pragma once

// PostgreSQL's COPY text format for the change feed's rows (docs/fleet.md, "How rows travel").

#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::fleet::detail {

/// Appends `value` as one COPY text field: \N for NULL, decimal numbers, text with backslash,
/// tab, newline and carriage return escaped, bytes as bytea hex (\\x...). PostgreSQL's text
/// cannot hold a NUL byte or malformed UTF-8: each such byte of a text value becomes U+FFFD.
void appendCopyField(std::string& out, const store::FeedValue& value);

/// The rows of `table` as COPY text: fields separated by tabs, one row per line, each ending
/// with `last_field` when it is given (already in COPY text).
std::string copyText(const store::FeedTable& table, std::string_view last_field = {});

/// Text PostgreSQL's text type accepts: `text` with each NUL byte and each byte of a malformed
/// UTF-8 sequence replaced by U+FFFD.
std::string storableText(std::string_view text);

}  // namespace agentvcr::fleet::detail
