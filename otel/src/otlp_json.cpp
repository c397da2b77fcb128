#include "agentvcr/otel/otlp_json.hpp"

#include "agentvcr/store/identity.hpp"

namespace agentvcr::otel {
namespace {

using nlohmann::json;

json requestOf(const Attributes& resource, json spans) {
  json attributes = json::array();
  for (const Attribute& a : resource) {
    attributes.push_back(attributeJson(a));
  }
  return json{{"resourceSpans",
               json::array({json{
                   {"resource", {{"attributes", std::move(attributes)}}},
                   {"scopeSpans",
                    json::array({json{
                        {"scope", {{"name", "agentvcr"}, {"version", store::agentvcrVersion()}}},
                        {"spans", std::move(spans)}}})}}})}};
}

}  // namespace

json attributeJson(const Attribute& attribute) {
  json value = std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return {{"stringValue", v}};
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          // Protobuf's JSON mapping writes 64-bit integers as strings.
          return {{"intValue", std::to_string(v)}};
        } else if constexpr (std::is_same_v<T, bool>) {
          return {{"boolValue", v}};
        } else {
          return {{"doubleValue", v}};
        }
      },
      attribute.value);
  return {{"key", attribute.key}, {"value", std::move(value)}};
}

json spanJson(const Span& span) {
  json attributes = json::array();
  for (const Attribute& a : span.attributes) {
    attributes.push_back(attributeJson(a));
  }
  json out = {{"traceId", span.trace_id},
              {"spanId", span.span_id},
              {"name", span.name},
              {"kind", static_cast<int>(span.kind)},
              {"startTimeUnixNano", std::to_string(span.start_ns)},
              {"endTimeUnixNano", std::to_string(span.end_ns)},
              {"attributes", std::move(attributes)}};
  if (!span.parent_span_id.empty()) {
    out["parentSpanId"] = span.parent_span_id;
  }
  if (span.error) {
    out["status"] = {{"code", 2}, {"message", span.status_message}};
  }
  return out;
}

std::vector<Payload> encodePayloads(const Attributes& resource, const std::vector<Span>& spans,
                                    const PayloadLimits& limits) {
  std::vector<Payload> payloads;
  json pending = json::array();
  std::size_t pending_bytes = 0;
  auto flush = [&] {
    if (!pending.empty()) {
      const std::size_t count = pending.size();
      payloads.push_back({requestOf(resource, std::move(pending)).dump(), count});
      pending = json::array();
      pending_bytes = 0;
    }
  };
  for (const Span& span : spans) {
    json encoded = spanJson(span);
    const std::size_t bytes = encoded.dump().size();
    if (!pending.empty() &&
        (pending.size() >= limits.spans || pending_bytes + bytes > limits.bytes)) {
      flush();
    }
    pending.push_back(std::move(encoded));
    pending_bytes += bytes;
  }
  flush();
  return payloads;
}

}  // namespace agentvcr::otel
