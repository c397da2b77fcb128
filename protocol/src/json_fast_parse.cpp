#include "json_fast_parse.hpp"

#include <cstdint>
#include <string>

#include <simdjson.h>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol::detail {
namespace {

namespace dom = simdjson::dom;

/// Builds `out` from `element`; false when a container would nest `max_depth` levels or more
/// deep, which the exact parser then reports.
template <class JsonT>
bool build(dom::element element, JsonT& out, std::size_t depth, std::size_t max_depth) {
  switch (element.type()) {
    case dom::element_type::ARRAY: {
      if (depth >= max_depth) {
        return false;
      }
      out = JsonT::array();
      auto& items = out.template get_ref<typename JsonT::array_t&>();
      for (dom::element child : dom::array(element)) {
        items.emplace_back();
        if (!build(child, items.back(), depth + 1, max_depth)) {
          return false;
        }
      }
      return true;
    }
    case dom::element_type::OBJECT: {
      if (depth >= max_depth) {
        return false;
      }
      out = JsonT::object();
      // A repeated key lands on the same slot: the last value wins, where the first stood.
      for (dom::key_value_pair field : dom::object(element)) {
        if (!build(field.value, out[std::string(field.key)], depth + 1, max_depth)) {
          return false;
        }
      }
      return true;
    }
    case dom::element_type::INT64: {
      // As the exact parser types them: a number without a sign is unsigned.
      const std::int64_t value = std::int64_t(element);
      out = value >= 0 ? JsonT(static_cast<std::uint64_t>(value)) : JsonT(value);
      return true;
    }
    case dom::element_type::UINT64:
      out = JsonT(std::uint64_t(element));
      return true;
    case dom::element_type::DOUBLE:
      out = JsonT(double(element));
      return true;
    case dom::element_type::STRING:
      out = JsonT(std::string(std::string_view(element)));
      return true;
    case dom::element_type::BOOL:
      out = JsonT(bool(element));
      return true;
    case dom::element_type::NULL_VALUE:
      out = JsonT(nullptr);
      return true;
  }
  return false;
}

}  // namespace

template <class JsonT>
std::optional<JsonT> parseJsonFast(std::string_view text, std::size_t max_depth) {
  if (text.size() > kFastParseLimit) {
    return std::nullopt;
  }
  // One parser per thread: it keeps its buffers, sized for the largest document seen (at most
  // kFastParseLimit), so parsing allocates nothing but the result.
  thread_local dom::parser parser(kFastParseLimit);
  dom::element root;
  if (parser.parse(text.data(), text.size()).get(root) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  JsonT out;
  if (!build(root, out, 0, max_depth)) {
    return std::nullopt;
  }
  return out;
}

template std::optional<Json> parseJsonFast<Json>(std::string_view, std::size_t);
template std::optional<OrderedJson> parseJsonFast<OrderedJson>(std::string_view, std::size_t);

}  // namespace agentvcr::protocol::detail
