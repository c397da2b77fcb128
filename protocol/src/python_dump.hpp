#pragma once

// The writer behind pythonJsonDumps() (private to agentvcr_protocol), for callers that append
// to a buffer they own. Members are written in the JSON type's iteration order: sorted for
// nlohmann::json (the canonical form), insertion order for nlohmann::ordered_json (FastAPI's
// model order).

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/python_json.hpp"
#include "utf8.hpp"

namespace agentvcr::protocol::detail {

/// Appends pythonFloatRepr(value), or `null` for a non-finite value unless `allow_nan`.
void appendPythonFloat(std::string& out, double value, bool allow_nan);

/// Appends pythonJsonDumps(value, style).
template <class JsonT>
void appendPythonJson(std::string& out, const JsonT& value, const PythonJsonStyle& style) {
  using Type = typename JsonT::value_t;
  const std::string_view item_separator = style.spaced ? ", " : ",";
  switch (value.type()) {
    case Type::object: {
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) {
          out += item_separator;
        }
        first = false;
        appendJsonString(out, it.key(), style.ensure_ascii);
        out += style.spaced ? ": " : ":";
        appendPythonJson(out, *it, style);
      }
      out += '}';
      return;
    }
    case Type::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) {
          out += item_separator;
        }
        first = false;
        appendPythonJson(out, element, style);
      }
      out += ']';
      return;
    }
    case Type::string:
      appendJsonString(out, value.template get_ref<const std::string&>(), style.ensure_ascii);
      return;
    case Type::boolean:
      out += value.template get<bool>() ? "true" : "false";
      return;
    case Type::number_integer:
      out += std::to_string(value.template get<std::int64_t>());
      return;
    case Type::number_unsigned:
      out += std::to_string(value.template get<std::uint64_t>());
      return;
    case Type::number_float:
      appendPythonFloat(out, value.template get<double>(), style.allow_nan);
      return;
    case Type::null:
    case Type::discarded:
    case Type::binary:
      out += "null";
      return;
  }
}

}  // namespace agentvcr::protocol::detail
