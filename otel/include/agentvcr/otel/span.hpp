#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

/// A span as OTLP carries it, before encoding (otlp_json.hpp).
namespace agentvcr::otel {

using AttributeValue = std::variant<std::string, std::int64_t, bool, double>;

struct Attribute {
  std::string key;
  AttributeValue value;
  bool operator==(const Attribute&) const = default;
};

using Attributes = std::vector<Attribute>;

/// OTLP's SpanKind enum values.
enum class SpanKind : int { Internal = 1, Server = 2, Client = 3 };

struct Span {
  std::string trace_id;        ///< 32 lowercase hex digits
  std::string span_id;         ///< 16 lowercase hex digits
  std::string parent_span_id;  ///< empty for the root of a trace
  std::string name;
  SpanKind kind = SpanKind::Internal;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  Attributes attributes;
  bool error = false;  ///< status ERROR, with `status_message`
  std::string status_message;

  /// The attribute named `key`, or null.
  const AttributeValue* attribute(const std::string& key) const;
};

}  // namespace agentvcr::otel
