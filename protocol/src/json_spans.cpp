#include "agentvcr/protocol/json_spans.hpp"

#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

bool isJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// One past the string literal whose opening quote is at `at`; kNone when it never closes.
/// Strings hold most of a body's bytes (prompts, memories, and JSON within them, full of
/// escaped quotes), so sixteen bytes at a time are searched for the two that matter: a quote
/// ends the literal, a backslash takes the byte after it along.
std::size_t stringEnd(std::string_view text, std::size_t at) {
  const char* bytes = text.data();
  const std::size_t size = text.size();
  std::size_t i = at + 1;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  constexpr std::size_t kChunk = sizeof(__m128i);
  while (i + kChunk <= size) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
    auto found = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash))));
    std::size_t next = i + kChunk;
    // Every quote and backslash of the chunk in order, from one load: a backslash takes the
    // byte after it along, which may be the next chunk's first.
    while (found != 0) {
      const auto bit = static_cast<unsigned>(__builtin_ctz(found));
      if (bytes[i + bit] == '"') {
        return i + bit + 1;
      }
      found &= found - 1;
      if (bit + 1 < kChunk) {
        found &= ~(1U << (bit + 1));
      } else {
        next = i + kChunk + 1;
      }
    }
    i = next;
  }
#endif
  while (i < size) {
    if (bytes[i] == '"') {
      return i + 1;
    }
    i += bytes[i] == '\\' ? 2 : 1;
  }
  return kNone;
}

/// Walks a text once, descending only where the pattern leads and skipping the rest whole.
class PatternScanner {
 public:
  PatternScanner(std::string_view text, std::span<const JsonPathStep> pattern,
                 const std::function<void(std::span<const std::size_t>, JsonSpan)>& found)
      : text_(text), pattern_(pattern), found_(found) {}

  bool run() {
    if (text_.starts_with("\xEF\xBB\xBF")) {  // the byte order mark parseJson() skips
      pos_ = 3;
    }
    if (!value(0, true)) {
      return false;
    }
    skipSpace();
    return pos_ == text_.size();
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skipSpace() {
    while (pos_ < text_.size() && isJsonSpace(text_[pos_])) {
      ++pos_;
    }
  }

  bool skipString() {
    const std::size_t end = stringEnd(text_, pos_);
    if (end == kNone) {
      return false;
    }
    pos_ = end;
    return true;
  }

  /// Skips the value at pos_ without recursion, however deep it nests.
  bool skipValue() {
    skipSpace();
    const char c = peek();
    if (c == '"') {
      return skipString();
    }
    if (c == '{' || c == '[') {
      std::size_t depth = 0;
      while (pos_ < text_.size()) {
        const char d = text_[pos_];
        if (d == '"') {
          if (!skipString()) {
            return false;
          }
          continue;
        }
        if (d == '{' || d == '[') {
          ++depth;
        } else if ((d == '}' || d == ']') && --depth == 0) {
          ++pos_;
          return true;
        }
        ++pos_;
      }
      return false;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !isJsonSpace(text_[pos_]) && text_[pos_] != ',' &&
           text_[pos_] != '}' && text_[pos_] != ']' && text_[pos_] != ':') {
      ++pos_;
    }
    return pos_ > start;
  }

  bool value(std::size_t depth, bool matching) {
    skipSpace();
    if (!matching) {
      return skipValue();
    }
    if (depth == pattern_.size()) {
      const std::size_t begin = pos_;
      if (!skipValue()) {
        return false;
      }
      found_(indexes_, JsonSpan{begin, pos_});
      return true;
    }
    const bool wants_member = !pattern_[depth].member.empty();
    if (peek() == '{' && wants_member) {
      return object(depth);
    }
    if (peek() == '[' && !wants_member) {
      return array(depth);
    }
    return skipValue();
  }

  bool object(std::size_t depth) {
    ++pos_;
    skipSpace();
    if (peek() == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      skipSpace();
      if (peek() != '"') {
        return false;
      }
      const std::size_t key = pos_;
      if (!skipString()) {
        return false;
      }
      const std::string_view raw = text_.substr(key + 1, pos_ - key - 2);
      const bool match = raw.find('\\') == kNone
                             ? raw == pattern_[depth].member
                             : jsonStringAt(text_, key) == pattern_[depth].member;
      skipSpace();
      if (peek() != ':') {
        return false;
      }
      ++pos_;
      if (!value(depth + 1, match)) {
        return false;
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return true;
      }
      return false;
    }
  }

  bool array(std::size_t depth) {
    ++pos_;
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      return true;
    }
    for (std::size_t index = 0;; ++index) {
      indexes_.push_back(index);
      const bool ok = value(depth + 1, true);
      indexes_.pop_back();
      if (!ok) {
        return false;
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return true;
      }
      return false;
    }
  }

  std::string_view text_;
  std::span<const JsonPathStep> pattern_;
  const std::function<void(std::span<const std::size_t>, JsonSpan)>& found_;
  std::size_t pos_ = 0;
  std::vector<std::size_t> indexes_;
};

}  // namespace

bool findJsonValues(std::string_view text, std::span<const JsonPathStep> pattern,
                    const std::function<void(std::span<const std::size_t>, JsonSpan)>& found) {
  return PatternScanner(text, pattern, found).run();
}

std::optional<std::string> jsonStringAt(std::string_view text, std::size_t offset) {
  if (offset >= text.size() || text[offset] != '"') {
    return std::nullopt;
  }
  const std::size_t end = stringEnd(text, offset);
  if (end == kNone) {
    return std::nullopt;
  }
  const std::string_view literal = text.substr(offset, end - offset);
  if (literal.find('\\') == kNone) {
    return std::string(literal.substr(1, literal.size() - 2));
  }
  JsonParseResult parsed = parseJson(literal);
  if (!parsed.value || !parsed.value->is_string()) {
    return std::nullopt;
  }
  return parsed.value->get<std::string>();
}

}  // namespace agentvcr::protocol
