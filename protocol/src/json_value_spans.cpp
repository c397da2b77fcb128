#include "json_value_spans.hpp"

#include <algorithm>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol::detail {
namespace {

/// Walks a document already known to be JSON, value by value, keeping the path of the value it
/// is in, and notes where each wanted value lies. Open containers are kept on a stack of its
/// own, so that deep nesting costs no call stack.
class ValueSpanWalker {
 public:
  ValueSpanWalker(std::string_view text, const std::vector<JsonPath>& wanted)
      : text_(text), wanted_(wanted), spans_(wanted.size()) {}

  std::vector<std::optional<TextSpan>> run() {
    if (text_.starts_with("\xEF\xBB\xBF")) {
      at_ = 3;  // the byte order mark parseJson() skips
    }
    if (!walk()) {
      std::fill(spans_.begin(), spans_.end(), std::nullopt);
    }
    return std::move(spans_);
  }

 private:
  /// An open object or array: where it began, and how many of its items have begun.
  struct Container {
    bool object = false;
    std::size_t begin = 0;
    std::size_t items = 0;
  };

  bool walk() {
    while (true) {
      skipWhitespace();
      if (!openOrReadValue()) {
        return false;
      }
      if (!open_.empty() && open_.back().items == 0) {
        if (!beginItem()) {
          return false;
        }
        continue;  // a container just opened: its first item
      }
      // A whole value was read: close what ends after it, until a comma begins the next item.
      while (true) {
        if (open_.empty()) {
          return true;
        }
        skipWhitespace();
        const char c = peek();
        if (c == ',') {
          ++at_;
          path_.pop_back();
          if (!beginItem()) {
            return false;
          }
          break;
        }
        if (c != (open_.back().object ? '}' : ']')) {
          return false;
        }
        ++at_;
        path_.pop_back();
        note(TextSpan{open_.back().begin, at_});
        open_.pop_back();
      }
    }
  }

  /// Reads the scalar or the empty container at the cursor whole, or opens the container there.
  bool openOrReadValue() {
    const std::size_t begin = at_;
    const char c = peek();
    if (c == '{' || c == '[') {
      ++at_;
      skipWhitespace();
      if (peek() == (c == '{' ? '}' : ']')) {
        ++at_;
        note(TextSpan{begin, at_});
      } else {
        open_.push_back(Container{c == '{', begin});
      }
      return true;
    }
    if (c == '"') {
      if (!skipString()) {
        return false;
      }
    } else {
      while (at_ < text_.size() && isScalarByte(text_[at_])) {
        ++at_;
      }
      if (at_ == begin) {
        return false;
      }
    }
    note(TextSpan{begin, at_});
    return true;
  }

  /// Begins the next item of the innermost container: its member name and colon, or its index.
  bool beginItem() {
    Container& container = open_.back();
    const std::size_t index = container.items++;
    skipWhitespace();
    if (!container.object) {
      path_.push_back(std::to_string(index));
      return true;
    }
    const std::size_t begin = at_;
    if (peek() != '"' || !skipString()) {
      return false;
    }
    const std::string_view name = text_.substr(begin + 1, at_ - begin - 2);
    if (name.find('\\') == std::string_view::npos) {
      path_.emplace_back(name);
    } else {
      // What the escapes spell, as the parser reads them.
      auto decoded = parseJson(text_.substr(begin, at_ - begin));
      if (!decoded.value || !decoded.value->is_string()) {
        return false;
      }
      path_.push_back(decoded.value->get<std::string>());
    }
    skipWhitespace();
    if (peek() != ':') {
      return false;
    }
    ++at_;
    return true;
  }

  /// The value at path_ lies at `span`. A later place of the same path is the one the parser
  /// keeps, so it wins.
  void note(TextSpan span) {
    for (std::size_t i = 0; i < wanted_.size(); ++i) {
      if (wanted_[i] == path_) {
        spans_[i] = span;
      }
    }
  }

  /// From an opening quote to past the closing one.
  bool skipString() {
    ++at_;
    while (at_ < text_.size() && text_[at_] != '"') {
      at_ += text_[at_] == '\\' ? 2 : 1;
    }
    if (at_ >= text_.size()) {
      return false;
    }
    ++at_;
    return true;
  }

  /// The bytes of a number or a literal.
  static bool isScalarByte(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == 'E' || c == '-' || c == '+' ||
           c == '.';
  }

  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }

  void skipWhitespace() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t')) {
      ++at_;
    }
  }

  std::string_view text_;
  const std::vector<JsonPath>& wanted_;
  std::vector<std::optional<TextSpan>> spans_;
  std::size_t at_ = 0;
  std::vector<Container> open_;
  JsonPath path_;  ///< of the value being read
};

}  // namespace

std::vector<std::optional<TextSpan>> valueSpansAt(std::string_view text,
                                                  const std::vector<JsonPath>& paths) {
  return ValueSpanWalker(text, paths).run();
}

}  // namespace agentvcr::protocol::detail
