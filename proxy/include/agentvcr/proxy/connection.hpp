#pragma once

// What a ConnectionHandler sees of a connection. Beast-level, like agentvcr/net/asio.hpp: for
// proxy/'s handlers and their tests only (scripts/check-includes).

#include <memory>

#include <boost/asio/cancellation_signal.hpp>

#include "agentvcr/net/asio.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::proxy {

// The proxy speaks net/'s Asio flavour.
namespace asio = net::asio;
namespace beast = net::beast;
namespace http = net::http;
using net::kUseTuple;
using net::tcp;

/// One accepted client connection, shared by its handler coroutine and the worker that
/// accepted it (which uses it only to close idle connections, and cut busy ones, when the server
/// stops).
struct Connection {
  explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}

  beast::tcp_stream stream;
  /// Set by the handler while an exchange is in progress: stop() lets it finish.
  bool busy = false;
  /// Turns true when the server stops: finish the exchange in progress, then return.
  bool stopping = false;
  /// Turns true when the server stops and the exchange in progress did not finish within the
  /// drain (or a second signal came): end it at once, and return. The server emits `cut_signal`
  /// with it, which ends whatever operation the handler awaits with operation_aborted; the
  /// handler is to co_await `asio::this_coro::throw_if_cancelled(false)` first, so that the
  /// operations after it (answering the client, recording) run.
  bool cut = false;
  asio::cancellation_signal cut_signal;
};

/// Serves connections. A handler is made once per worker and only ever runs on that worker's
/// single thread, so it may keep per-worker state (an upstream connection pool) without locks.
class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;
  /// Serves `connection` until it closes. Must not throw.
  virtual asio::awaitable<void> serve(std::shared_ptr<Connection> connection) = 0;
};

}  // namespace agentvcr::proxy
