#include "agentvcr/scripted/python_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace agentvcr::scripted {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

/// Decodes one UTF-8 sequence at `pos`; invalid bytes decode to U+FFFD one byte at a time.
char32_t decodeUtf8(std::string_view text, std::size_t& pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  std::size_t length = 0;
  char32_t code = 0;
  char32_t minimum = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    code = lead & 0x1F;
    minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    code = lead & 0x0F;
    minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    code = lead & 0x07;
    minimum = 0x10000;
  } else {
    ++pos;
    return kReplacement;
  }
  if (pos + length > text.size()) {
    ++pos;
    return kReplacement;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const unsigned char next = byte(pos + i);
    if ((next & 0xC0) != 0x80) {
      ++pos;
      return kReplacement;
    }
    code = (code << 6) | (next & 0x3F);
  }
  if (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
    ++pos;
    return kReplacement;
  }
  pos += length;
  return code;
}

void appendUtf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

void appendUnicodeEscape(std::string& out, char32_t unit) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) {
    out += kHex[(unit >> shift) & 0xF];
  }
}

void appendString(std::string& out, std::string_view text, bool ensure_ascii) {
  out += '"';
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char32_t code = decodeUtf8(text, pos);
    switch (code) {
      case U'"':
        out += "\\\"";
        continue;
      case U'\\':
        out += "\\\\";
        continue;
      case U'\n':
        out += "\\n";
        continue;
      case U'\r':
        out += "\\r";
        continue;
      case U'\t':
        out += "\\t";
        continue;
      case U'\b':
        out += "\\b";
        continue;
      case U'\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    if (code < 0x20) {
      appendUnicodeEscape(out, code);
    } else if (!ensure_ascii || code < 0x7F) {
      appendUtf8(out, code);
    } else if (code < 0x10000) {
      appendUnicodeEscape(out, code);
    } else {
      const char32_t offset = code - 0x10000;
      appendUnicodeEscape(out, 0xD800 + (offset >> 10));
      appendUnicodeEscape(out, 0xDC00 + (offset & 0x3FF));
    }
  }
  out += '"';
}

void appendValue(std::string& out, const nlohmann::ordered_json& value, bool ensure_ascii) {
  using Type = nlohmann::ordered_json::value_t;
  switch (value.type()) {
    case Type::null:
    case Type::discarded:
      out += "null";
      return;
    case Type::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Type::number_integer:
      out += std::to_string(value.get<std::int64_t>());
      return;
    case Type::number_unsigned:
      out += std::to_string(value.get<std::uint64_t>());
      return;
    case Type::number_float:
      out += pythonFloatRepr(value.get<double>());
      return;
    case Type::string:
      appendString(out, value.get_ref<const std::string&>(), ensure_ascii);
      return;
    case Type::binary:
      out += "null";
      return;
    case Type::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value) {
        if (!first) {
          out += ", ";
        }
        first = false;
        appendValue(out, item, ensure_ascii);
      }
      out += ']';
      return;
    }
    case Type::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) {
          out += ", ";
        }
        first = false;
        appendString(out, key, ensure_ascii);
        out += ": ";
        appendValue(out, item, ensure_ascii);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string pythonFloatRepr(double value) {
  if (std::isnan(value)) {
    return "NaN";
  }
  if (std::isinf(value)) {
    return value > 0 ? "Infinity" : "-Infinity";
  }
  // Shortest round-trip digits in scientific form, e.g. "-1.5e-07".
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  if (result.ec != std::errc()) {
    return "0.0";  // cannot happen: 64 bytes hold any double
  }
  const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  const std::size_t e_pos = text.find('e');
  std::string_view mantissa = text.substr(0, e_pos);
  int exponent = 0;
  const std::string_view exponent_text = text.substr(e_pos + 1);
  std::from_chars(exponent_text.data() + (exponent_text.front() == '+' ? 1 : 0),
                  exponent_text.data() + exponent_text.size(), exponent);

  std::string out;
  if (!mantissa.empty() && mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (const char c : mantissa) {
    if (c != '.') {
      digits += c;
    }
  }
  // Python's float_repr_style 'short': value = 0.DIGITS * 10^decpt.
  const int decpt = exponent + 1;
  const int length = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits.front();
    if (length > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10) {
      out += '0';
    }
    out += std::to_string(magnitude);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= length) {
    out += digits;
    out.append(static_cast<std::size_t>(decpt - length), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<std::size_t>(decpt));
    out += '.';
    out.append(digits, static_cast<std::size_t>(decpt));
  }
  return out;
}

std::string pythonJsonDumps(const nlohmann::ordered_json& value, bool ensure_ascii) {
  std::string out;
  appendValue(out, value, ensure_ascii);
  return out;
}

}  // namespace agentvcr::scripted
