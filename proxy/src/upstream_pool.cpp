#include "upstream_pool.hpp"

namespace agentvcr::proxy {

template <>
std::unique_ptr<UpstreamConnection<beast::tcp_stream>>
UpstreamPool<beast::tcp_stream>::makeConnection() {
  return std::make_unique<Connection>(Connection{beast::tcp_stream(io_), {}});
}

template <>
std::unique_ptr<UpstreamConnection<net::TlsStream>> UpstreamPool<net::TlsStream>::makeConnection() {
  return std::make_unique<Connection>(Connection{net::TlsStream(io_, *tls_context_), {}});
}

template <class Stream>
asio::awaitable<std::unique_ptr<UpstreamConnection<Stream>>> UpstreamPool<Stream>::connect(
    ConnectFailure& failure) {
  const net::Url& upstream = options_->upstream;
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
  if constexpr (std::is_same_v<Stream, net::TlsStream>) {
    if (auto tls_ec =
            net::prepareTlsClient(connection->stream, upstream.host, options_->verify_tls)) {
      failure.ec = tls_ec;
      co_return nullptr;
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
template class UpstreamPool<net::TlsStream>;

}  // namespace agentvcr::proxy
