#include "agentvcr/otel/ids.hpp"

#include <xxhash.h>

#include "agentvcr/protocol/canonical.hpp"

namespace agentvcr::otel {
namespace {

/// OTLP reads an all-zero id as "no id": the one hash in 2^64 that gives it is moved off zero.
std::uint64_t nonZero(std::uint64_t value) {
  return value == 0 ? 1 : value;
}

std::string traceIdOf(std::string_view session_uuid, std::string_view kind, std::int64_t number) {
  // NUL separators: no uuid, kind or number can run into the next one.
  std::string key = "agentvcr.trace";
  key += '\0';
  key += session_uuid;
  key += '\0';
  key += kind;
  key += '\0';
  key += std::to_string(number);
  const XXH128_hash_t hash = XXH3_128bits(key.data(), key.size());
  return protocol::hashHex(hash.high64) + protocol::hashHex(nonZero(hash.low64));
}

}  // namespace

std::string conversationTraceId(std::string_view session_uuid, std::int64_t conversation) {
  return traceIdOf(session_uuid, "conversation", conversation);
}

std::string exchangeTraceId(std::string_view session_uuid, std::int64_t seq) {
  return traceIdOf(session_uuid, "exchange", seq);
}

std::string spanId(std::string_view trace_id, std::string_view path) {
  std::string key(trace_id);
  key += '\0';
  key += path;
  return protocol::hashHex(nonZero(protocol::stableHash(key)));
}

}  // namespace agentvcr::otel
