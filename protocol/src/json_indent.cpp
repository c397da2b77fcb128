#include <string>
#include <string_view>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {
namespace {

bool isJsonWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// The first byte at or after `at` that is not whitespace, or '\0' at the end.
char nextToken(std::string_view text, std::size_t at) {
  while (at < text.size() && isJsonWhitespace(text[at])) {
    ++at;
  }
  return at < text.size() ? text[at] : '\0';
}

}  // namespace

std::optional<std::string> indentJson(std::string_view text, int indent) {
  // Checked first, so that the walk below may take the structure as given: a body that is not
  // JSON (plain text, HTML) is not for it to reshape.
  if (!parseJson(text).value) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  std::size_t depth = 0;
  const auto newLine = [&] {
    out += '\n';
    out.append(depth * static_cast<std::size_t>(indent), ' ');
  };
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '"') {
      // A string goes out byte for byte, escapes as written.
      const std::size_t begin = at++;
      while (text[at] != '"') {
        at += text[at] == '\\' ? 2 : 1;
      }
      out.append(text.substr(begin, at + 1 - begin));
    } else if (c == '{' || c == '[') {
      out += c;
      const char close = c == '{' ? '}' : ']';
      if (nextToken(text, at + 1) == close) {
        out += close;  // an empty container stays on its line: {} or []
        while (text[at] != close) {
          ++at;
        }
      } else {
        ++depth;
        newLine();
      }
    } else if (c == '}' || c == ']') {
      --depth;
      newLine();
      out += c;
    } else if (c == ',') {
      out += c;
      newLine();
    } else if (c == ':') {
      out += ": ";
    } else if (!isJsonWhitespace(c)) {
      out += c;  // a number or a literal, as spelled (and the byte order mark, as sent)
    }
  }
  return out;
}

}  // namespace agentvcr::protocol
