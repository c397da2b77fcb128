#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/proxy/asio.hpp"

namespace agentvcr::proxy {

/// Nanoseconds since the Unix epoch, the archive's time unit.
inline std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The header lines of `fields` in their order and spelling.
protocol::Headers toHeaders(const http::fields& fields);

/// The header of `request` or `response` as it goes on the wire: start line, fields in their
/// order and spelling, blank line. The same bytes as Beast's serializer writes, in one piece, so
/// that a message held whole goes out as one gather write of [header, body] (see writeWhole in
/// relay.cpp) rather than through the serializer's field-by-field buffer sequence, which Beast
/// walks again on every write.
std::string wireHeader(const http::request_header<>& request);
std::string wireHeader(const http::response_header<>& response);

/// Removes the hop-by-hop headers of RFC 9110 §7.6.1 (Connection, Keep-Alive,
/// Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade, and every header that
/// Connection names) plus Expect, which the proxy answers itself.
void stripHopByHop(http::fields& fields);

/// The body of an answer the proxy gives by itself: {"detail": message, "agentvcr_error": id}.
/// `id` is stable ("proxy.upstream.refused") so scripts can match it.
std::string errorBody(std::string_view id, std::string_view message);

/// A complete local answer, JSON, keep-alive as asked.
http::response<http::string_body> localResponse(http::status status, std::string_view id,
                                                std::string_view message, unsigned version,
                                                bool keep_alive);

}  // namespace agentvcr::proxy
