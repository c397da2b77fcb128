#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/otel/span.hpp"

/// Spans in OTLP/HTTP's JSON encoding of ExportTraceServiceRequest: ids as lowercase hex, times
/// as decimal strings of nanoseconds, 64-bit integers as strings, enums as integers.
namespace agentvcr::otel {

/// `{"key": ..., "value": {"stringValue" | "intValue" | "boolValue" | "doubleValue": ...}}`.
nlohmann::json attributeJson(const Attribute& attribute);

nlohmann::json spanJson(const Span& span);

/// How much one request to the collector carries at most.
struct PayloadLimits {
  std::size_t spans = 512;
  /// Span bytes per request; a single larger span still goes, alone.
  std::size_t bytes = 1u << 20;
};

/// One request body and how many spans it carries.
struct Payload {
  std::string body;
  std::size_t spans = 0;
};

/// The spans of one resource (a session) as request bodies within `limits`, in order.
std::vector<Payload> encodePayloads(const Attributes& resource, const std::vector<Span>& spans,
                                    const PayloadLimits& limits = {});

}  // namespace agentvcr::otel
