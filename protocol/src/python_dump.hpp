#pragma once

// Compact JSON text exactly as Python writes it with
// json.dumps(value, ensure_ascii=False, separators=(",", ":")) (private to agentvcr_protocol).
// Members are written in the JSON type's iteration order: sorted for nlohmann::json (the
// canonical form), insertion order for nlohmann::ordered_json (FastAPI's model order).

#include <string>

#include <nlohmann/json.hpp>

#include "utf8.hpp"

namespace agentvcr::protocol::detail {

/// Python's repr() of a double: shortest round-trip digits, positional notation for decimal
/// exponents in [-4, 16) with ".0" on integral values, else "1e+16" / "1.5e-07". Non-finite
/// values (impossible in parsed JSON) are written as null.
void appendPythonFloat(std::string& out, double value);

template <class JsonT>
void appendPythonJson(std::string& out, const JsonT& value) {
  using Type = typename JsonT::value_t;
  switch (value.type()) {
    case Type::object: {
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) {
          out += ',';
        }
        first = false;
        appendJsonString(out, it.key());
        out += ':';
        appendPythonJson(out, *it);
      }
      out += '}';
      return;
    }
    case Type::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) {
          out += ',';
        }
        first = false;
        appendPythonJson(out, element);
      }
      out += ']';
      return;
    }
    case Type::string:
      appendJsonString(out, value.template get_ref<const std::string&>());
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
      appendPythonFloat(out, value.template get<double>());
      return;
    case Type::null:
    case Type::discarded:
    case Type::binary:
      out += "null";
      return;
  }
}

template <class JsonT>
std::string pythonJson(const JsonT& value) {
  std::string out;
  appendPythonJson(out, value);
  return out;
}

}  // namespace agentvcr::protocol::detail
