#include "agentvcr/proxy/relay.hpp"

#include <memory>
#include <string>

#include <boost/asio/this_coro.hpp>

#include "agentvcr/store/recorder.hpp"
#include "relay_core.hpp"
#include "upstream_pool.hpp"

namespace agentvcr::proxy {
namespace {

std::string endpointText(const tcp::endpoint& endpoint) {
  return net::HostPort{endpoint.address().to_string(), endpoint.port()}.toString();
}

/// The relay on sockets: RelayCore over the server's client connections and a pool of
/// upstream connections, recording into `recorder`.
template <class Stream>
class RelayHandler final : public ConnectionHandler {
 public:
  RelayHandler(asio::io_context& io, std::shared_ptr<const RelayOptions> options,
               std::shared_ptr<asio::ssl::context> tls_context, store::Recorder& recorder,
               RelayCounters& counters)
      : pool_(io, options, std::move(tls_context)),
        core_(io, options, pool_, recordInto(recorder), recorder.clock(), counters) {}

  asio::awaitable<void> serve(std::shared_ptr<Connection> connection) override {
    // A cut (Connection::cut) ends the operation in progress; what follows it, the answer to
    // the client and the record, must still run.
    co_await asio::this_coro::throw_if_cancelled(false);
    beast::error_code ec;
    std::string client_address = endpointText(connection->stream.socket().remote_endpoint(ec));
    const tcp::endpoint reached = connection->stream.socket().local_endpoint(ec);
    const std::string reached_url = ec ? std::string() : "http://" + endpointText(reached);
    beast::flat_buffer buffer;
    buffer.reserve(kRequestBufferBytes);
    while (!connection->stopping) {
      bool keep_alive =
          co_await core_.exchangeOne(*connection, buffer, client_address, reached_url);
      connection->busy = false;
      if (!keep_alive) {
        break;
      }
    }
    connection->stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

 private:
  static ExchangeSink recordInto(store::Recorder& recorder) {
    return {
        .submit =
            [&recorder](protocol::Exchange& exchange, const std::function<void()>& on_committed) {
              return on_committed ? recorder.trySubmit(exchange, on_committed)
                                  : recorder.trySubmit(exchange);
            },
        .began =
            [&recorder](std::int64_t started_ns) { return recorder.requestBegan(started_ns); }};
  }

  UpstreamPool<Stream> pool_;
  RelayCore<Connection, UpstreamPool<Stream>> core_;
};

}  // namespace

HandlerFactory makeRelayFactory(std::shared_ptr<const RelayOptions> options,
                                store::Recorder& recorder, RelayCounters& counters) {
  std::shared_ptr<asio::ssl::context> tls_context;
  if (options->upstream.tls) {
    tls_context = net::makeTlsClientContext(options->ca_file);
  }
  return [options, tls_context, &recorder,
          &counters](asio::io_context& io) -> std::unique_ptr<ConnectionHandler> {
    if (options->upstream.tls) {
      return std::make_unique<RelayHandler<net::TlsStream>>(io, options, tls_context, recorder,
                                                            counters);
    }
    return std::make_unique<RelayHandler<beast::tcp_stream>>(io, options, tls_context, recorder,
                                                             counters);
  };
}

}  // namespace agentvcr::proxy
