#include "copy_text.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>

#include "agentvcr/protocol/utf8.hpp"

namespace agentvcr::fleet::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

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

/// Appends `text` as PostgreSQL's text can hold it (see storableText()), COPY-escaped when
/// `escape`. One pass that appends runs of plain bytes whole: the shipper spends most of its
/// time here.
void appendStorable(std::string& out, std::string_view text, bool escape) {
  std::size_t done = 0;  // text[0, done) is in `out`
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const char* replacement = nullptr;
    if (c >= 0x80 || c == 0) {
      const std::size_t n = c == 0 ? 0 : protocol::utf8SequenceLength(text, i);
      if (n != 0) {
        i += n;
        continue;
      }
      replacement = kReplacement.data();
    } else if (!escape || (replacement = copyEscape(static_cast<char>(c))) == nullptr) {
      ++i;
      continue;
    }
    out.append(text.data() + done, i - done);
    out += replacement;
    done = ++i;
  }
  out.append(text.data() + done, text.size() - done);
}

}  // namespace

std::string storableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  appendStorable(out, text, false);
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
    appendStorable(out, *text, true);
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

std::string copyText(const store::FeedTable& table, std::string_view last_field) {
  std::string out;
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) {
        out += '\t';
      }
      appendCopyField(out, row[i]);
    }
    if (!last_field.empty()) {
      out += '\t';
      out += last_field;
    }
    out += '\n';
  }
  return out;
}

}  // namespace agentvcr::fleet::detail
