#include "agentvcr/sim/magma/template.hpp"

#include <charconv>
#include <system_error>

namespace agentvcr::sim::magma {

namespace {

using protocol::Json;

std::optional<std::int64_t> parseIndex(std::string_view text) {
  std::int64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

/// `list[index]`, negative indexes counting from the end.
const Json* listItem(const Json& list, std::int64_t index) {
  if (!list.is_array()) {
    return nullptr;
  }
  const auto size = static_cast<std::int64_t>(list.size());
  if (index < 0) {
    index += size;
  }
  if (index < 0 || index >= size) {
    return nullptr;
  }
  return &list[static_cast<std::size_t>(index)];
}

const Json* walkPath(const Json& root, std::string_view path) {
  const Json* node = &root;
  while (node != nullptr) {
    const std::size_t dot = path.find('.');
    const std::string_view part = path.substr(0, dot);
    if (node->is_object()) {
      const auto it = node->find(part);
      node = it == node->end() ? nullptr : &*it;
    } else if (const auto index = parseIndex(part)) {
      node = listItem(*node, *index);
    } else {
      node = nullptr;
    }
    if (dot == std::string_view::npos) {
      break;
    }
    path.remove_prefix(dot + 1);
  }
  return node;
}

std::string textOf(const Json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<Json> argumentOf(const TemplateContext& context, std::string_view name) {
  if (context.outcome_call == nullptr || !context.outcome_call->is_object()) {
    return std::nullopt;
  }
  const auto arguments = context.outcome_call->find("arguments");
  if (arguments == context.outcome_call->end() || !arguments->is_object() || arguments->empty()) {
    return std::nullopt;
  }
  if (name.empty()) {
    return arguments->begin().value();
  }
  const auto it = arguments->find(name);
  if (it == arguments->end()) {
    return std::nullopt;
  }
  return *it;
}

}  // namespace

std::optional<Json> resolveVariable(std::string_view name, const TemplateContext& context) {
  const std::size_t colon = name.find(':');
  const std::string_view head = name.substr(0, colon);
  const std::string_view tail =
      colon == std::string_view::npos ? std::string_view() : name.substr(colon + 1);
  const bool has_tail = colon != std::string_view::npos;

  if (head == "content" && !has_tail) {
    return Json(std::string(context.content));
  }
  if (head == "candidate" && !has_tail) {
    return Json(context.candidate_index);
  }
  if (head == "robot") {
    const auto index = has_tail ? parseIndex(tail) : std::optional<std::int64_t>(0);
    if (!index || context.attributes == nullptr || !context.attributes->is_object()) {
      return std::nullopt;
    }
    const auto robots = context.attributes->find("known_robots");
    if (robots == context.attributes->end()) {
      return std::nullopt;
    }
    const Json* robot = listItem(*robots, *index);
    if (robot == nullptr || !robot->is_string()) {
      return std::nullopt;
    }
    return *robot;
  }
  if (head == "match" && has_tail) {
    const auto index = parseIndex(tail);
    if (!index || *index < 0 || static_cast<std::size_t>(*index) >= context.captures.size()) {
      return std::nullopt;
    }
    return Json(context.captures[static_cast<std::size_t>(*index)]);
  }
  if (head == "attr" && has_tail) {
    if (context.attributes == nullptr) {
      return std::nullopt;
    }
    const Json* node = walkPath(*context.attributes, tail);
    if (node == nullptr) {
      return std::nullopt;
    }
    return *node;
  }
  if (head == "outcome" && has_tail) {
    if (context.outcome == nullptr) {
      return std::nullopt;
    }
    if (tail == "robot") {
      return Json(context.outcome->robot);
    }
    if (tail == "tool") {
      return Json(context.outcome->tool);
    }
    if (tail == "message") {
      return Json(context.outcome->message);
    }
    return std::nullopt;
  }
  if (head == "arg") {
    if (has_tail && tail.empty()) {
      return std::nullopt;
    }
    return argumentOf(context, tail);
  }
  return std::nullopt;
}

std::optional<std::string> expandText(std::string_view text, const TemplateContext& context) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c != '$' || pos + 1 >= text.size()) {
      out += c;
      ++pos;
      continue;
    }
    if (text[pos + 1] == '$') {
      out += '$';
      pos += 2;
      continue;
    }
    if (text[pos + 1] != '{') {
      out += c;
      ++pos;
      continue;
    }
    const std::size_t close = text.find('}', pos + 2);
    if (close == std::string_view::npos) {
      return std::nullopt;
    }
    const auto value = resolveVariable(text.substr(pos + 2, close - pos - 2), context);
    if (!value) {
      return std::nullopt;
    }
    out += textOf(*value);
    pos = close + 1;
  }
  return out;
}

std::optional<Json> expandValue(const Json& value, const TemplateContext& context) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    // A string that is exactly one variable keeps the variable's JSON type.
    if (text.size() > 3 && text.compare(0, 2, "${") == 0 && text.back() == '}' &&
        text.find('}') == text.size() - 1) {
      return resolveVariable(std::string_view(text).substr(2, text.size() - 3), context);
    }
    auto expanded = expandText(text, context);
    if (!expanded) {
      return std::nullopt;
    }
    return Json(std::move(*expanded));
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& item : value) {
      auto expanded = expandValue(item, context);
      if (!expanded) {
        return std::nullopt;
      }
      out.push_back(std::move(*expanded));
    }
    return out;
  }
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& [key, item] : value.items()) {
      auto expanded = expandValue(item, context);
      if (!expanded) {
        return std::nullopt;
      }
      out[key] = std::move(*expanded);
    }
    return out;
  }
  return value;
}

}  // namespace agentvcr::sim::magma
