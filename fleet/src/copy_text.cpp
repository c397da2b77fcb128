#include "copy_text.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>

#include "agentvcr/protocol/utf8.hpp"

namespace agentvcr::fleet::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

/// Length of the UTF-8 sequence at `text[i]` that PostgreSQL's text can hold: a well-formed
/// one other than NUL; 0 for anything else.
std::size_t storableLength(std::string_view text, std::size_t i) {
  return text[i] == '\0' ? 0 : protocol::utf8SequenceLength(text, i);
}

void appendEscapedText(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

std::string storableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = storableLength(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
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
    bool clean = true;
    for (std::size_t i = 0; i < text->size() && clean;) {
      const std::size_t n = storableLength(*text, i);
      clean = n != 0;
      i += n;
    }
    appendEscapedText(out, clean ? std::string_view(*text) : std::string_view(storableText(*text)));
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::string& bytes = std::get<store::FeedBytes>(value).data;
    out += "\\\\x";
    for (unsigned char b : bytes) {
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
    }
  }
}

std::string copyText(const store::FeedTable& table) {
  std::string out;
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) {
        out += '\t';
      }
      appendCopyField(out, row[i]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace agentvcr::fleet::detail
