#include "copy_text.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/utf8.hpp"

namespace agentvcr::fleet::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// jsonb keeps numbers as numeric, which holds at most this many digits before the decimal point
// and after it, and reads no exponent from INT_MAX / 2 on.
constexpr std::int64_t kNumericIntegerDigits = 131072;
constexpr std::int64_t kNumericFractionDigits = 16383;
constexpr std::int64_t kNumericExponentBound = 1073741823;

/// The COPY text escape of `c`, or nullptr when it goes as it is.
const char* copyEscape(char c) {
  switch (c) {
    case '\\':
      return "\\\\";
    case '\t':
      return "\\t";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    default:
      return nullptr;
  }
}

/// Appends `text` COPY-escaped. One pass that appends runs of plain bytes whole: the shipper
/// spends most of its time here.
void appendEscaped(std::string& out, std::string_view text) {
  std::size_t done = 0;  // text[0, done) is in `out`
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (const char* escape = copyEscape(text[i])) {
      out.append(text.data() + done, i - done);
      out += escape;
      done = i + 1;
    }
  }
  out.append(text.data() + done, text.size() - done);
}

/// True when PostgreSQL's text holds `text` as it is: no NUL byte, well-formed UTF-8.
bool isStorableText(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) {
      return false;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = protocol::utf8SequenceLength(text, i);
    if (n == 0) {
      return false;
    }
    i += n;
  }
  return true;
}

/// The value of the four hex digits of a \u escape at `at` (just after "\u"), or -1.
int escapeValue(std::string_view json, std::size_t at) {
  if (at + 4 > json.size()) {
    return -1;
  }
  int value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const int digit = protocol::hexDigitValue(json[i]);
    if (digit < 0) {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

bool isHighSurrogate(int v) {
  return v >= 0xD800 && v <= 0xDBFF;
}

bool isLowSurrogate(int v) {
  return v >= 0xDC00 && v <= 0xDFFF;
}

/// Skips the JSON number at `i` and says whether numeric can hold it, by the rules of
/// PostgreSQL's numeric input (numeric.c, set_var_from_str and make_result): an exponent that
/// reaches INT_MAX / 2 is refused outright; the digits kept after the point (those written
/// there, less the exponent) may number kNumericFractionDigits, a zero's too; and the first
/// significant digit may stand at most kNumericIntegerDigits places before the point.
bool numberFits(std::string_view json, std::size_t& i) {
  if (json[i] == '-') {
    ++i;
  }
  auto isDigit = [&](std::size_t at) {
    return at < json.size() && json[at] >= '0' && json[at] <= '9';
  };
  // Where the first significant digit stands: 0 is the units, 1 the tens, -1 the tenths.
  std::optional<std::int64_t> leading;
  std::int64_t integer_digits = 0;
  for (; isDigit(i); ++i) {
    ++integer_digits;
    if (!leading && json[i] != '0') {
      leading = 0;
      integer_digits = 1;
    }
  }
  if (leading) {
    leading = integer_digits - 1;
  }
  std::int64_t fraction_digits = 0;
  if (i < json.size() && json[i] == '.') {
    for (++i; isDigit(i); ++i) {
      ++fraction_digits;
      if (!leading && json[i] != '0') {
        leading = -fraction_digits;
      }
    }
  }
  std::int64_t exponent = 0;
  if (i < json.size() && (json[i] == 'e' || json[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < json.size() && (json[i] == '+' || json[i] == '-')) {
      negative = json[i] == '-';
      ++i;
    }
    for (; isDigit(i); ++i) {
      // Past the bound the value no longer matters: numeric refuses it.
      exponent = std::min<std::int64_t>(exponent * 10 + (json[i] - '0'), kNumericExponentBound);
    }
    exponent = negative ? -exponent : exponent;
  }
  if (exponent >= kNumericExponentBound || exponent <= -kNumericExponentBound ||
      fraction_digits - exponent > kNumericFractionDigits) {
    return false;
  }
  return !leading || *leading + exponent < kNumericIntegerDigits;
}

/// A quick look that clears nearly every JSON text without storableJson()'s rewrite: only text
/// with an escape, a byte PostgreSQL refuses, an exponent or a very long number may need it.
bool jsonMayNeedRewrite(std::string_view json) {
  if (!isStorableText(json) || json.find("\\u") != std::string_view::npos) {
    return true;
  }
  std::size_t digits = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    const bool digit = c >= '0' && c <= '9';
    digits = digit ? digits + 1 : 0;
    if (digits > 1000 || ((c == 'e' || c == 'E') && i > 0 &&
                          ((json[i - 1] >= '0' && json[i - 1] <= '9') || json[i - 1] == '.'))) {
      return true;
    }
  }
  return false;
}

/// True when the fleet archive keeps `table`.`column` itself as jsonb; a blob's `text` is text,
/// which its `doc` holds again as jsonb.
bool isJsonbColumn(std::string_view table, std::string_view column) {
  return isJsonColumn(table, column) && table != "blobs";
}

}  // namespace

bool isJsonColumn(std::string_view table, std::string_view column) {
  return (table == "steps" && column == "env_feedback") ||
         (table == "candidates" && column == "tool_calls") ||
         (table == "blobs" && column == "text");  // the JSON that `doc` holds as jsonb
}

bool hasEscapes(std::string_view table) {
  return table != "step_links" && table != "body_dictionaries";
}

std::string storableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t done = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c != 0 && c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = c == 0 ? 0 : protocol::utf8SequenceLength(text, i);
    if (n != 0) {
      i += n;
      continue;
    }
    out.append(text.data() + done, i - done);
    out += kReplacement;
    done = ++i;
  }
  out.append(text.data() + done, text.size() - done);
  return out;
}

std::optional<std::string> storableJson(std::string_view json) {
  const std::string text = storableText(json);
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (!in_string) {
      if (c == '"') {
        in_string = true;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        const std::size_t start = i;
        if (!numberFits(text, i)) {
          return std::nullopt;
        }
        out.append(text, start, i - start);
        continue;
      }
      out += c;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = false;
    } else if (c == '\\' && i + 1 < text.size()) {
      if (text[i + 1] == 'u') {
        const int value = escapeValue(text, i + 2);
        const int next = i + 7 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u'
                             ? escapeValue(text, i + 8)
                             : -1;
        if (value == 0 || isLowSurrogate(value) ||
            (isHighSurrogate(value) && !isLowSurrogate(next))) {
          out += "\\ufffd";  // what jsonb refuses: NUL, and a surrogate without its pair
          i += 6;
          continue;
        }
        if (isHighSurrogate(value)) {  // a pair goes whole
          out.append(text, i, 12);
          i += 12;
          continue;
        }
      }
      out.append(text, i, 2);
      i += 2;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

void appendCopyField(std::string& out, const store::FeedValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    out += "\\N";
  } else if (const auto* integer = std::get_if<std::int64_t>(&value)) {
    char buffer[24];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, *integer);
    out.append(buffer, end);
  } else if (const auto* real = std::get_if<double>(&value)) {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, *real);
    out.append(buffer, end);
  } else if (const auto* text = std::get_if<std::string>(&value)) {
    appendEscaped(out, *text);
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::string& bytes = std::get<store::FeedBytes>(value).data;
    const std::size_t at = out.size();
    out.resize(at + 3 + 2 * bytes.size());
    char* to = out.data() + at;
    *to++ = '\\';
    *to++ = '\\';
    *to++ = 'x';
    for (const char byte : bytes) {
      const auto b = static_cast<unsigned char>(byte);
      *to++ = kHex[b >> 4];
      *to++ = kHex[b & 0xF];
    }
  }
}

void appendCopyRow(std::string& out, const store::FeedTable& table, std::size_t row,
                   const CopyTail& tail) {
  const std::vector<store::FeedValue>& values = table.rows[row];
  // Filled only for a value PostgreSQL cannot hold: {"column": "hex of its exact bytes"}.
  std::string escaped;
  std::string json_field;  // the JSON column's field, when the tail wants it again
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) {
      out += '\t';
    }
    const auto* text = std::get_if<std::string>(&values[i]);
    if (text == nullptr) {
      appendCopyField(out, values[i]);
      continue;
    }
    bool exact = true;    // false: `escaped` keeps the value's bytes
    bool has_doc = true;  // false: no jsonb holds the JSON, and a blob's `doc` stays NULL
    const std::size_t field_start = out.size();
    const bool json_column = isJsonColumn(table.table, table.columns[i]);
    if (json_column && jsonMayNeedRewrite(*text)) {
      const std::optional<std::string> json = storableJson(*text);
      has_doc = json.has_value();
      if (json) {
        exact = *json == *text;
        appendEscaped(out, *json);
      } else if (isJsonbColumn(table.table, table.columns[i])) {
        exact = false;
        out += "\\N";  // no jsonb holds it; `escaped` does
      } else {
        // A blob's text column is text: it holds the JSON as any text column does.
        const std::string stored = storableText(*text);
        exact = stored == *text;
        appendEscaped(out, stored);
      }
    } else if (!isStorableText(*text)) {
      exact = false;
      appendEscaped(out, storableText(*text));
    } else {
      appendEscaped(out, *text);
    }
    if (json_column && tail.json_again && has_doc) {
      json_field.assign(out, field_start);
    }
    if (!exact) {
      escaped += escaped.empty() ? "{" : ",";
      escaped += "\"" + table.columns[i] + "\":\"" + protocol::hexEncode(*text) + "\"";
    }
  }
  if (hasEscapes(table.table)) {
    out += '\t';
    if (escaped.empty()) {
      out += "\\N";
    } else {
      out += escaped;
      out += '}';
    }
  }
  if (tail.json_again) {
    out += '\t';
    out += json_field.empty() ? std::string_view("\\N") : std::string_view(json_field);
  }
  if (!tail.field.empty()) {
    out += '\t';
    out += tail.field;
  }
  out += '\n';
}

std::string copyText(const store::FeedTable& table, const CopyTail& tail) {
  std::string out;
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    appendCopyRow(out, table, row, tail);
  }
  return out;
}

}  // namespace agentvcr::fleet::detail
