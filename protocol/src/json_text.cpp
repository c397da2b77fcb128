#include "agentvcr/protocol/json_text.hpp"

#include "json_parse_impl.hpp"
#include "utf8.hpp"

namespace agentvcr::protocol {
namespace detail {

std::size_t tooDeepOffset(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return i;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return text.size();
}

JsonSyntaxError syntaxError(std::size_t position, const std::string& what) {
  // nlohmann counts the offending character as read: position 1 is the first byte.
  std::size_t offset = position > 0 ? position - 1 : 0;
  std::string message = what;
  if (!message.empty() && message.front() == '[') {
    std::size_t end = message.find("] ");
    if (end != std::string::npos) {
      message.erase(0, end + 2);
    }
  }
  return JsonSyntaxError{offset, std::move(message)};
}

}  // namespace detail

namespace {

/// A JsonParseResult from `parse` (parseJsonAs or parseJsonExactly), refusing empty input.
template <class Parse>
JsonParseResult parseWith(std::string_view text, std::size_t max_depth, Parse&& parse) {
  JsonParseResult result;
  if (text.empty()) {
    result.error = JsonSyntaxError{0, "empty input"};
    return result;
  }
  result.value = parse(text, max_depth, result.error);
  return result;
}

}  // namespace

JsonParseResult parseJson(std::string_view text, std::size_t max_depth) {
  return parseWith(text, max_depth, &detail::parseJsonAs<Json>);
}

JsonParseResult parseJsonExact(std::string_view text, std::size_t max_depth) {
  return parseWith(text, max_depth, &detail::parseJsonExactly<Json>);
}

std::optional<OrderedJson> parseOrderedJson(std::string_view text, std::size_t max_depth) {
  if (text.empty()) {
    return std::nullopt;
  }
  JsonSyntaxError ignored;
  return detail::parseJsonAs<OrderedJson>(text, max_depth, ignored);
}

const Json* findMember(const Json& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json& memberOrNull(const Json& object, std::string_view key) {
  static const Json kNull;
  const Json* found = findMember(object, key);
  return found != nullptr ? *found : kNull;
}

std::string dumpCompact(const Json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

void appendJsonString(std::string& out, std::string_view text) {
  detail::appendJsonString(out, text, /*ensure_ascii=*/false);
}

}  // namespace agentvcr::protocol
