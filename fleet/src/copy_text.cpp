#include "copy_text.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>

namespace agentvcr::fleet::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

/// Length of the well-formed UTF-8 sequence at `text[i]`, 0 when it is not one (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF), or for NUL.
std::size_t wellFormedLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t lead = byte(i);
  if (lead == 0) {
    return 0;
  }
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  std::uint8_t low = 0x80;
  std::uint8_t high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + length > text.size()) {
    return 0;
  }
  if (byte(i + 1) < low || byte(i + 1) > high) {
    return 0;
  }
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return length;
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
    const std::size_t n = wellFormedLength(text, i);
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
      const std::size_t n = wellFormedLength(*text, i);
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
