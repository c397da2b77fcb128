#include "agentvcr/protocol/python_json.hpp"

#include <cstdlib>

#include "python_dump.hpp"

namespace agentvcr::protocol {

std::string pythonJsonDumps(const nlohmann::json& value, PythonJsonStyle style) {
  std::string out;
  detail::appendPythonJson(out, value, style);
  return out;
}

std::string pythonJsonDumps(const nlohmann::ordered_json& value, PythonJsonStyle style) {
  std::string out;
  detail::appendPythonJson(out, value, style);
  return out;
}

namespace {

/// Whether the first object member of `text` is followed by `": "`: the first string token
/// (strings are skipped whole, escapes included) that a colon follows is a member name.
bool firstMemberSpaced(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') {
      continue;
    }
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') {
        ++i;  // skip the escaped character, a quote included
      }
    }
    if (i + 1 < text.size() && text[i + 1] == ':') {
      return text.substr(i + 1).starts_with(": ");
    }
  }
  return false;
}

/// Whether `text` is pure ASCII with a `\uXXXX` escape of a character Python's ensure_ascii
/// escapes (DEL and above).
bool escapesNonAscii(std::string_view text) {
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      return false;
    }
    if (byte != '\\') {
      continue;
    }
    if (i + 5 < text.size() && text[i + 1] == 'u') {
      const std::string hex(text.substr(i + 2, 4));
      escaped = escaped || std::strtoul(hex.c_str(), nullptr, 16) >= 0x7f;
    }
    ++i;  // the escaped character is never the start of another escape
  }
  return escaped;
}

}  // namespace

PythonJsonStyle detectPythonJsonStyle(std::string_view text) {
  return PythonJsonStyle{
      .spaced = firstMemberSpaced(text), .ensure_ascii = escapesNonAscii(text), .allow_nan = false};
}

}  // namespace agentvcr::protocol
