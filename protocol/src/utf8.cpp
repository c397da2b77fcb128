#include "utf8.hpp"

#include <cstdint>
#include <cstring>

#include "agentvcr/protocol/utf8.hpp"

namespace agentvcr::protocol::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
constexpr char32_t kReplacementCode = 0xFFFD;
constexpr char kHex[] = "0123456789abcdef";

/// The code point of the well-formed sequence of `length` bytes starting at `i`.
char32_t decodeSequence(std::string_view text, std::size_t i, std::size_t length) {
  static constexpr std::uint8_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  auto byte = [&](std::size_t k) {
    return static_cast<char32_t>(static_cast<std::uint8_t>(text[k]));
  };
  char32_t code = byte(i) & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k) {
    code = (code << 6U) | (byte(i + k) & 0x3FU);
  }
  return code;
}

/// `\uxxxx` of one UTF-16 code unit, lowercase as Python writes it.
void appendUnicodeEscape(std::string& out, char32_t unit) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) {
    out += kHex[(unit >> shift) & 0xFU];
  }
}

/// A code point as ensure_ascii writes it: one escape, or a surrogate pair above U+FFFF.
void appendAsciiEscape(std::string& out, char32_t code) {
  if (code < 0x10000) {
    appendUnicodeEscape(out, code);
    return;
  }
  char32_t offset = code - 0x10000;
  appendUnicodeEscape(out, 0xD800 + (offset >> 10));
  appendUnicodeEscape(out, 0xDC00 + (offset & 0x3FFU));
}

/// Whether `c` is written as itself: printable ASCII other than the quote and the backslash.
bool isPlainAscii(std::uint8_t c, bool ensure_ascii) {
  return c >= 0x20 && c < (ensure_ascii ? 0x7F : 0x80) && c != '"' && c != '\\';
}

/// Whether any of the eight bytes in `word` is written otherwise than as itself: a control
/// character, the quote, the backslash, or a byte above 0x7E (ensure_ascii) or 0x7F. The usual
/// borrow tricks: exact for the word as a whole, which is all that is asked.
bool wordNeedsCare(std::uint64_t word, bool ensure_ascii) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  auto has_zero = [&](std::uint64_t v) { return ((v - kOnes) & ~v & kHighs) != 0; };
  const bool below_space = ((word - kOnes * 0x20) & ~word & kHighs) != 0;
  const bool high = (word & kHighs) != 0;
  return below_space || high || has_zero(word ^ (kOnes * '"')) || has_zero(word ^ (kOnes * '\\')) ||
         (ensure_ascii && has_zero(word ^ (kOnes * 0x7F)));
}

/// The end of the run of plain ASCII (isPlainAscii) that starts at `i`. Most of a prompt or
/// memory is such a run: eight bytes are looked at together while none of them needs care.
std::size_t plainRunEnd(std::string_view text, std::size_t i, bool ensure_ascii) {
  std::uint64_t word = 0;
  while (i + sizeof word <= text.size()) {
    std::memcpy(&word, text.data() + i, sizeof word);
    if (wordNeedsCare(word, ensure_ascii)) {
      break;
    }
    i += sizeof word;
  }
  while (i < text.size() && isPlainAscii(static_cast<std::uint8_t>(text[i]), ensure_ascii)) {
    ++i;
  }
  return i;
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text, bool ensure_ascii) {
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    // Most of a prompt or memory is plain ASCII: copy each run of it at once.
    const std::size_t plain_end = plainRunEnd(text, i, ensure_ascii);
    if (plain_end != i) {
      out.append(text, i, plain_end - i);
      i = plain_end;
      continue;
    }
    auto c = static_cast<std::uint8_t>(text[i]);
    if (c >= 0x80) {
      std::size_t length = utf8SequenceLength(text, i);
      if (length == 0) {
        if (ensure_ascii) {
          appendAsciiEscape(out, kReplacementCode);
        } else {
          out += kReplacement;
        }
        ++i;
      } else {
        if (ensure_ascii) {
          appendAsciiEscape(out, decodeSequence(text, i, length));
        } else {
          out.append(text, i, length);
        }
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:  // another control character, or DEL under ensure_ascii
        appendUnicodeEscape(out, c);
    }
    ++i;
  }
  out += '"';
}

}  // namespace agentvcr::protocol::detail

namespace agentvcr::protocol {

std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  std::uint8_t lead = byte(i);
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
    if (lead == 0xE0) {
      low = 0xA0;
    } else if (lead == 0xED) {
      high = 0x9F;
    }
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) {
      low = 0x90;
    } else if (lead == 0xF4) {
      high = 0x8F;
    }
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

bool isUtf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t n = utf8SequenceLength(bytes, i);
    if (n == 0) {
      return false;
    }
    i += n;
  }
  return true;
}

std::string oneLine(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {  // a character's first byte
      if (chars + (space ? 1 : 0) >= max_chars) {
        return out + "…";
      }
      if (space) {
        out += ' ';
        ++chars;
      }
      ++chars;
    }
    space = false;
    out += c;
  }
  return out;
}

}  // namespace agentvcr::protocol
