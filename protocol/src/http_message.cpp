#include "agentvcr/protocol/http_message.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace agentvcr::protocol {
namespace {

char lowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::string_view trimBlanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool entityTagMatches(std::string_view if_none_match, std::string_view etag) {
  const auto opaque = [](std::string_view tag) {
    tag = trimBlanks(tag);
    return tag.starts_with("W/") ? tag.substr(2) : tag;
  };
  if (trimBlanks(if_none_match) == "*") {
    return true;
  }
  // An entity tag holds no comma (RFC 9110 §8.8.3: etagc excludes it), so commas split the list.
  while (!if_none_match.empty()) {
    const std::size_t comma = if_none_match.find(',');
    if (opaque(if_none_match.substr(0, comma)) == opaque(etag)) {
      return true;
    }
    if_none_match = comma == std::string_view::npos ? "" : if_none_match.substr(comma + 1);
  }
  return false;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return lowerAscii(x) == lowerAscii(y); });
}

const HeaderField* findHeader(const Headers& headers, std::string_view name) {
  auto found = std::ranges::find_if(
      headers, [&](const HeaderField& field) { return equalsIgnoreCase(field.name, name); });
  return found == headers.end() ? nullptr : &*found;
}

std::string_view headerValue(const Headers& headers, std::string_view name) {
  const HeaderField* field = findHeader(headers, name);
  return field ? std::string_view(field->value) : std::string_view();
}

std::size_t headerCount(const Headers& headers, std::string_view name) {
  return static_cast<std::size_t>(std::ranges::count_if(
      headers, [&](const HeaderField& field) { return equalsIgnoreCase(field.name, name); }));
}

std::string errorBody(std::string_view id, std::string_view message) {
  nlohmann::ordered_json body = {{"detail", message}, {"agentvcr_error", id}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace agentvcr::protocol
