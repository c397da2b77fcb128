#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/proxy/connection.hpp"

namespace agentvcr::proxy {

/// What a connection's read buffer reserves up front: room for a typical request whole. Beast
/// reads as much as the buffer has room for (512 bytes into an empty one), and a 2 KB request
/// would otherwise take five reads.
inline constexpr std::size_t kRequestBufferBytes = 16 * 1024;

/// The header of `request` or `response` as it goes on the wire: start line, fields in their
/// order and spelling, blank line. The same bytes as Beast's serializer writes, in one piece, so
/// that a message held whole goes out as one gather write of [header, body]
/// (writeWholeMessage) rather than through the serializer's field-by-field buffer sequence,
/// which Beast walks again on every write.
std::string wireHeader(const http::request_header<>& request);
std::string wireHeader(const http::response_header<>& response);

/// Writes `message`, whose body is held whole, as http::async_write would: the same bytes, the
/// header built by wireHeader and sent with the body in one gather write. A chunked message
/// still goes through Beast's serializer, which encodes the chunks.
template <class Stream, bool isRequest>
asio::awaitable<std::tuple<beast::error_code, std::size_t>> writeWholeMessage(
    Stream& stream, const http::message<isRequest, http::string_body>& message) {
  if (message.chunked()) {
    co_return co_await http::async_write(stream, message, kUseTuple);
  }
  const std::string header = wireHeader(message.base());
  const std::array buffers{asio::buffer(header), asio::buffer(message.body())};
  co_return co_await asio::async_write(stream, buffers, kUseTuple);
}

/// Removes the hop-by-hop headers of RFC 9110 §7.6.1 (Connection, Keep-Alive,
/// Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade, and every header that
/// Connection names) plus Expect, which the proxy answers itself.
void stripHopByHop(http::fields& fields);

/// The header of `reply` (status, Content-Type when set, its headers) without a body.
template <class Body>
void setReplyHeader(http::response<Body>& response, const protocol::HttpReply& reply,
                    bool keep_alive) {
  response.result(static_cast<http::status>(reply.status));
  if (!reply.content_type.empty()) {
    response.set(http::field::content_type, reply.content_type);
  }
  for (const auto& header : reply.headers) {
    response.insert(header.name, header.value);
  }
  response.keep_alive(keep_alive);
}

/// `reply`, whose body is held whole, as a Beast response with its Content-Length.
http::response<http::string_body> wholeResponse(protocol::HttpReply reply, unsigned version,
                                                bool keep_alive);

/// Writes the header of `response`, promising its whole body, then the first half of the body
/// only: a connection that ends early, for chaos' truncate.
template <class Stream>
asio::awaitable<void> writeCutMessage(Stream& stream,
                                      const http::response<http::string_body>& response) {
  const std::string header = wireHeader(response.base());
  const std::string_view half(response.body().data(), response.body().size() / 2);
  const std::array<asio::const_buffer, 2> buffers{asio::buffer(header), asio::buffer(half)};
  co_await asio::async_write(stream, buffers, kUseTuple);
}

/// The 413's message: the limit `limit` in bytes (and MiB when whole), and `remedy`, what
/// raises it or that nothing does, so the caller knows whether to shrink the body or ask for more.
std::string bodyTooLargeMessage(std::uint64_t limit, std::string_view remedy);

/// A complete local answer, JSON, keep-alive as asked.
http::response<http::string_body> localResponse(http::status status, std::string_view id,
                                                std::string_view message, unsigned version,
                                                bool keep_alive);

}  // namespace agentvcr::proxy
