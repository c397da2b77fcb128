#include "agentvcr/proxy/server.hpp"

#include <atomic>
#include <iostream>
#include <list>
#include <thread>
#include <vector>

#include <boost/asio/bind_cancellation_slot.hpp>

#include "agentvcr/proxy/connection.hpp"

namespace agentvcr::proxy {
namespace {

/// How long cut exchanges have to end once cut: answering a client and handing a record over
/// take milliseconds, unless the client stopped reading.
constexpr std::chrono::milliseconds kCutGrace{2000};

}  // namespace

std::string listenError(const ServerOptions& options, const std::string& reason, bool in_use) {
  const net::HostPort address{options.host, options.port};
  std::string message =
      "cannot listen on " + address.toString() + " (" + options.option + "): " + reason;
  if (in_use) {
    // Taken by another program, or below 1024 without the privilege: port 0 always binds.
    message += "; stop what holds it, or let agentvcr pick a free port with " + options.option +
               " " + net::HostPort{options.host, 0}.toString();
  } else {
    message += "; " + options.option + " takes an IP address and a port, e.g. 127.0.0.1:0";
  }
  return message;
}

/// The server behind its interface: workers, the acceptor and the threads.
class Server::Impl {
 public:
  Impl(ServerOptions options, HandlerFactory factory);
  ~Impl();

  const net::HostPort& endpoint() const { return endpoint_; }

  std::size_t openConnections() const { return open_connections_.load(); }

  void start();
  void stop();

  void cutNow() { cut_now_ = true; }

 private:
  class Worker;

  asio::awaitable<void> acceptLoop();

  ServerOptions options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  tcp::acceptor acceptor_;  ///< runs on the first worker's io_context
  net::HostPort endpoint_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> open_connections_{0};
  std::atomic<bool> cut_now_{false};  ///< cutNow(): the drain ends at once
  bool started_ = false;
  bool stopped_ = false;
  bool accepting_ = true;  ///< touched on the first worker's thread only
};

/// One thread and one io_context: everything a connection touches stays here.
class Server::Impl::Worker {
 public:
  Worker(Impl& server, HandlerFactory factory) : server_(server), factory_(std::move(factory)) {}

  asio::io_context& io() { return io_; }

  void run() {
    // Made here rather than at bind time, so what the handler needs can be set up between
    // binding (port known) and start.
    handler_ = factory_(io_);
    // Workers wait for connections with nothing pending: keep run() from returning early.
    auto keep_running = asio::make_work_guard(io_);
    io_.run();
  }

  /// Runs on this worker's thread: serves an accepted connection until it closes.
  void adopt(tcp::socket socket) {
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto connection = std::make_shared<Connection>(std::move(socket));
    connection->stopping = stopping_;
    connections_.push_back(connection);
    // The completion handler keeps the connection, and so its cut signal, alive until the
    // coroutine bound to the signal has ended.
    asio::co_spawn(
        io_, handler_->serve(connection),
        asio::bind_cancellation_slot(connection->cut_signal.slot(),
                                     [this, connection](const std::exception_ptr& error) {
                                       if (error) {
                                         // Handlers must not throw; if one did, only its connection
                                         // is lost.
                                         std::cerr << "[proxy.connection] handler failed\n";
                                       }
                                       --server_.open_connections_;
                                     }));
  }

  /// Asks the worker to close idle connections; busy ones finish their exchange and return.
  void beginStop() {
    asio::post(io_, [this] {
      stopping_ = true;
      forEachConnection([](Connection& connection) {
        connection.stopping = true;
        if (!connection.busy) {
          beast::error_code ignored;
          connection.stream.socket().close(ignored);
        }
      });
    });
  }

  /// Cuts the exchanges still in progress after the drain: their handlers end them at once
  /// and record them as cut.
  void cutBusy() {
    asio::post(io_, [this] {
      forEachConnection([](Connection& connection) {
        if (connection.busy && !connection.cut) {
          connection.cut = true;
          connection.cut_signal.emit(asio::cancellation_type::terminal);
        }
      });
    });
  }

  /// Closes whatever is still open once the cut exchanges had their moment. A cut exchange
  /// still in progress is cut again: the first cut may have fallen between two of its
  /// operations, and it must not go on waiting for its agent.
  void forceStop() {
    asio::post(io_, [this] {
      forEachConnection([](Connection& connection) {
        if (connection.cut) {
          connection.cut_signal.emit(asio::cancellation_type::terminal);
        }
        beast::error_code ignored;
        connection.stream.socket().close(ignored);
      });
    });
  }

  void stopLoop() { io_.stop(); }

 private:
  template <class Fn>
  void forEachConnection(Fn fn) {
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (auto connection = it->lock()) {
        fn(*connection);
        ++it;
      } else {
        it = connections_.erase(it);
      }
    }
  }

  Impl& server_;
  asio::io_context io_{1};
  HandlerFactory factory_;
  std::unique_ptr<ConnectionHandler> handler_;
  std::list<std::weak_ptr<Connection>> connections_;
  bool stopping_ = false;
};

Server::Impl::Impl(ServerOptions options, HandlerFactory factory)
    : options_(std::move(options)),
      workers_([&] {
        std::vector<std::unique_ptr<Worker>> workers;
        for (unsigned i = 0; i < std::max(1u, options_.threads); ++i) {
          workers.push_back(std::make_unique<Worker>(*this, factory));
        }
        return workers;
      }()),
      acceptor_(workers_.front()->io()) {
  // Asio's throwing calls would print Boost's source location; each step reports its own.
  beast::error_code ec;
  const auto address = asio::ip::make_address(options_.host, ec);
  if (ec) {
    throw std::runtime_error(listenError(options_, "not an IP address", false));
  }
  const tcp::endpoint endpoint{address, options_.port};
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) {
    acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  }
  if (!ec) {
    acceptor_.bind(endpoint, ec);
  }
  if (!ec) {
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  }
  tcp::endpoint bound;
  if (!ec) {
    bound = acceptor_.local_endpoint(ec);
  }
  if (ec) {
    throw std::runtime_error(
        listenError(options_, ec.message(),
                    ec == asio::error::address_in_use || ec == asio::error::access_denied));
  }
  endpoint_ = {bound.address().to_string(), bound.port()};
}

Server::Impl::~Impl() {
  stop();
}

asio::awaitable<void> Server::Impl::acceptLoop() {
  std::size_t next = 0;
  while (accepting_) {
    Worker& worker = *workers_[next];
    next = (next + 1) % workers_.size();
    // The socket is born on the worker that will serve it.
    auto [ec, socket] = co_await acceptor_.async_accept(worker.io(), kUseTuple);
    if (ec) {
      if (ec == asio::error::operation_aborted || !accepting_) {
        break;
      }
      // Out of descriptors and the like: the listener survives, that connection is lost.
      std::cerr << "[proxy.accept] " << ec.message() << "\n";
      continue;
    }
    ++open_connections_;
    asio::post(worker.io(), [&worker, socket = std::move(socket)]() mutable {
      worker.adopt(std::move(socket));
    });
  }
}

void Server::Impl::start() {
  if (started_) {
    return;
  }
  started_ = true;
  asio::co_spawn(workers_.front()->io(), acceptLoop(), asio::detached);
  for (auto& worker : workers_) {
    threads_.emplace_back([&worker] { worker->run(); });
  }
}

void Server::Impl::stop() {
  if (stopped_ || !started_) {
    stopped_ = true;
    return;
  }
  stopped_ = true;
  asio::post(workers_.front()->io(), [this] {
    accepting_ = false;
    beast::error_code ignored;
    acceptor_.close(ignored);
  });
  for (auto& worker : workers_) {
    worker->beginStop();
  }
  auto wait_until_closed = [this](std::chrono::milliseconds limit, bool until_cut_now) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (open_connections_.load() > 0 && std::chrono::steady_clock::now() < deadline &&
           !(until_cut_now && cut_now_.load())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  };
  wait_until_closed(options_.drain_timeout, true);
  if (options_.on_cut) {
    options_.on_cut();
  }
  for (auto& worker : workers_) {
    worker->cutBusy();
  }
  // A cut exchange answers its client, if it still can, and hands its record over.
  wait_until_closed(kCutGrace, false);
  for (auto& worker : workers_) {
    worker->forceStop();
  }
  wait_until_closed(std::chrono::milliseconds(1000), false);
  for (auto& worker : workers_) {
    worker->stopLoop();
  }
  for (auto& thread : threads_) {
    thread.join();
  }
  threads_.clear();
}

Server::Server(ServerOptions options, HandlerFactory factory)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(factory))) {}

Server::~Server() = default;

const net::HostPort& Server::endpoint() const {
  return impl_->endpoint();
}

void Server::start() {
  impl_->start();
}

void Server::stop() {
  impl_->stop();
}

void Server::cutNow() {
  impl_->cutNow();
}

std::size_t Server::openConnections() const {
  return impl_->openConnections();
}

}  // namespace agentvcr::proxy
