#include "upstream_pool.hpp"

#include <openssl/ssl.h>

namespace agentvcr::proxy {

template <>
std::unique_ptr<UpstreamConnection<beast::tcp_stream>>
UpstreamPool<beast::tcp_stream>::makeConnection() {
  return std::make_unique<Connection>(Connection{beast::tcp_stream(io_), {}});
}

template <>
std::unique_ptr<UpstreamConnection<TlsStream>> UpstreamPool<TlsStream>::makeConnection() {
  return std::make_unique<Connection>(Connection{TlsStream(io_, *tls_context_), {}});
}

template <class Stream>
asio::awaitable<std::unique_ptr<UpstreamConnection<Stream>>> UpstreamPool<Stream>::connect(
    ConnectFailure& failure) {
  const Url& upstream = options_->upstream;
  if (endpoints_.empty()) {
    tcp::resolver resolver(io_);
    auto [ec, results] =
        co_await resolver.async_resolve(upstream.host, std::to_string(upstream.port), kUseTuple);
    if (ec) {
      failure.ec = ec;
      co_return nullptr;
    }
    endpoints_ = std::move(results);
  }
  auto connection = makeConnection();
  auto& socket_stream = beast::get_lowest_layer(connection->stream);
  socket_stream.expires_after(options_->connect_timeout);
  auto [ec, endpoint] = co_await socket_stream.async_connect(endpoints_, kUseTuple);
  if (ec) {
    // Forget the addresses: the next attempt resolves again (the agent may have moved).
    endpoints_ = {};
    failure.ec = ec;
    failure.timed_out = ec == beast::error::timeout;
    co_return nullptr;
  }
  beast::error_code ignored;
  socket_stream.socket().set_option(tcp::no_delay(true), ignored);
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    // SNI and host-name verification: the certificate must be for the host we dialled.
    if (!SSL_set_tlsext_host_name(connection->stream.native_handle(), upstream.host.c_str())) {
      failure.ec =
          beast::error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
      co_return nullptr;
    }
    if (options_->verify_tls) {
      connection->stream.set_verify_mode(asio::ssl::verify_peer);
      connection->stream.set_verify_callback(asio::ssl::host_name_verification(upstream.host));
    } else {
      connection->stream.set_verify_mode(asio::ssl::verify_none);
    }
    auto [handshake_ec] =
        co_await connection->stream.async_handshake(asio::ssl::stream_base::client, kUseTuple);
    if (handshake_ec) {
      failure.ec = handshake_ec;
      failure.timed_out = handshake_ec == beast::error::timeout;
      co_return nullptr;
    }
  }
  co_return connection;
}

template class UpstreamPool<beast::tcp_stream>;
template class UpstreamPool<TlsStream>;

}  // namespace agentvcr::proxy
