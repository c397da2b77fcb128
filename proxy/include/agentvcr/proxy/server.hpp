#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agentvcr/proxy/asio.hpp"

namespace agentvcr::proxy {

/// One accepted client connection, shared by its handler coroutine and the worker that
/// accepted it (which uses it only to close idle connections when the server stops).
struct Connection {
  explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}

  beast::tcp_stream stream;
  /// Set by the handler while an exchange is in progress: stop() lets it finish.
  bool busy = false;
  /// Turns true when the server stops: finish the exchange in progress, then return.
  bool stopping = false;
};

/// Serves connections. A handler is made once per worker and only ever runs on that worker's
/// single thread, so it may keep per-worker state (an upstream connection pool) without locks.
class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;
  /// Serves `connection` until it closes. Must not throw.
  virtual asio::awaitable<void> serve(std::shared_ptr<Connection> connection) = 0;
};

/// Makes one worker's handler, on that worker's thread, when the server starts.
using HandlerFactory = std::function<std::unique_ptr<ConnectionHandler>(asio::io_context&)>;

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< servers bind to loopback unless told otherwise
  std::uint16_t port = 0;          ///< 0: any free port (read it back with endpoint())
  unsigned threads = 1;            ///< workers, each with its own io_context and acceptor
  /// How long stop() lets exchanges in progress finish before closing them.
  std::chrono::milliseconds drain_timeout{10000};
};

/// An HTTP/1.1 server made of independent workers: each worker thread runs its own io_context,
/// and one acceptor hands new connections to the workers in turn, so a connection lives on
/// one thread from accept to close and no strand or lock is on the path.
///
/// Thread-safety: start(), stop() and wait() are called from one controlling thread.
class Server {
 public:
  /// Binds the listening socket at once (throws boost::system::system_error if the address is
  /// taken), so endpoint() is valid before start().
  Server(ServerOptions options, HandlerFactory factory);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  tcp::endpoint endpoint() const { return endpoint_; }

  void start();
  /// Stops accepting, closes idle connections, lets busy ones finish (up to drain_timeout),
  /// then joins the workers. Idempotent.
  void stop();

  /// Connections open right now, over all workers.
  std::size_t openConnections() const { return open_connections_.load(); }

 private:
  class Worker;

  asio::awaitable<void> acceptLoop();

  ServerOptions options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  tcp::acceptor acceptor_;  ///< runs on the first worker's io_context
  tcp::endpoint endpoint_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> open_connections_{0};
  bool started_ = false;
  bool stopped_ = false;
  bool accepting_ = true;  ///< touched on the first worker's thread only
};

}  // namespace agentvcr::proxy
