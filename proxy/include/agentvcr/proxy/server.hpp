#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "agentvcr/net/url.hpp"

namespace boost::asio {
class io_context;
}

namespace agentvcr::proxy {

/// Serves connections (agentvcr/proxy/connection.hpp, Beast-level).
class ConnectionHandler;

/// Makes one worker's handler, on that worker's thread, when the server starts.
using HandlerFactory =
    std::function<std::unique_ptr<ConnectionHandler>(boost::asio::io_context& io)>;

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< servers bind to loopback unless told otherwise
  std::uint16_t port = 0;          ///< 0: any free port (read it back with endpoint())
  /// What a person typed to choose this address, named when it cannot be bound so that the
  /// message says which option to change ("--listen", "--metrics-listen").
  std::string option = "--listen";
  unsigned threads = 1;  ///< workers, each with its own io_context and acceptor
  /// How long stop() lets exchanges in progress finish before it cuts them (Connection::cut).
  std::chrono::milliseconds drain_timeout{10000};
  /// Called by stop(), on the thread that stops, as it cuts what the drain left: work a handler
  /// waits for outside its worker's io_context (a replay's forward, which blocks the worker)
  /// never sees a cut, and is to be ended here.
  std::function<void()> on_cut;
};

/// An HTTP/1.1 server made of independent workers: each worker thread runs its own io_context,
/// and one acceptor hands new connections to the workers in turn, so a connection lives on
/// one thread from accept to close and no strand or lock is on the path.
///
/// Thread-safety: start() and stop() are called from one controlling thread; cutNow() and
/// openConnections() from any thread.
/// What a person reads when `host`:`port` cannot be listened on for `reason` (the system's
/// message, without Boost's internals): the address, the option that chose it and a way out.
std::string listenError(const ServerOptions& options, const std::string& reason, bool in_use);

class Server {
 public:
  /// Binds the listening socket at once, so endpoint() is valid before start(). Throws
  /// std::runtime_error naming the address, the reason and what to do (listenError()) when it
  /// cannot be bound.
  Server(ServerOptions options, HandlerFactory factory);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The address bound: the port is the one chosen when the options asked for 0.
  const net::HostPort& endpoint() const;

  void start();
  /// Stops accepting, closes idle connections, lets busy ones finish (up to drain_timeout, or
  /// until cutNow()), cuts those still busy (Connection::cut: a handler that records, records
  /// the exchange as cut) and gives them a moment to say so, then closes what is left and
  /// joins the workers. Idempotent.
  void stop();

  /// Ends stop()'s drain at once, or the next one: the exchanges still in progress are cut.
  /// For a second SIGINT or SIGTERM, which must not wait out the drain.
  void cutNow();

  /// Connections open right now, over all workers.
  std::size_t openConnections() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::proxy
