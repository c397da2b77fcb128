#pragma once

// PostgreSQL's COPY text format for the change feed's rows, and the escape that keeps every
// value exact where PostgreSQL's text and jsonb types cannot hold it (docs/fleet.md, "Values
// PostgreSQL cannot hold").

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::fleet::detail {

/// True when the fleet archive keeps `table`.`column` as jsonb (its feed value is JSON text).
bool isJsonColumn(std::string_view table, std::string_view column);

/// True when the fleet archive's `table` has text or jsonb columns, and so an `escaped` column
/// after the feed's own.
bool hasEscapes(std::string_view table);

/// Appends `value` as one COPY text field: \N for NULL, decimal numbers, text with backslash,
/// tab, newline and carriage return escaped, bytes as bytea hex (\\x...). A text value must
/// already be storable (storableText()).
void appendCopyField(std::string& out, const store::FeedValue& value);

/// What a COPY line carries after a row's own fields and its `escaped` field.
struct CopyTail {
  std::string_view field;   ///< a field already in COPY text (a monthly table's session_month)
  bool json_again = false;  ///< the row's JSON column once more (a blob's text as its `doc`)
};

/// Appends row `row` of `table` as one COPY text line: its fields, then the `escaped` field
/// when the table has one (escapedField()), then what `tail` asks for.
void appendCopyRow(std::string& out, const store::FeedTable& table, std::size_t row,
                   const CopyTail& tail = {});

/// The rows of `table` as COPY text, one appendCopyRow() line each.
std::string copyText(const store::FeedTable& table, const CopyTail& tail = {});

/// Text PostgreSQL's text type accepts: `text` with each NUL byte and each byte of a malformed
/// UTF-8 sequence replaced by U+FFFD. Equal to `text` when it is storable.
std::string storableText(std::string_view text);

/// JSON text PostgreSQL's jsonb accepts, or nullopt when no rewrite gives one (a number its
/// numeric cannot hold, zeros included: too many digits before or after the point, an exponent
/// out of its reach): storableText(), with each string escape jsonb refuses (NUL, a surrogate
/// without its pair) as the escape of U+FFFD.
std::optional<std::string> storableJson(std::string_view json);

}  // namespace agentvcr::fleet::detail
