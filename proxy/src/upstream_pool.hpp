#pragma once

#include <memory>
#include <vector>

#include "agentvcr/net/tls_client.hpp"
#include "agentvcr/proxy/connection.hpp"
#include "agentvcr/proxy/relay.hpp"

namespace agentvcr::proxy {

/// One connection to the upstream with its read buffer (bytes the parser has not consumed yet
/// belong to the connection, not to a message).
template <class Stream>
struct UpstreamConnection {
  Stream stream;
  beast::flat_buffer buffer;
};

/// Why a connection could not be had: the stable error id and a sentence.
struct ConnectFailure {
  beast::error_code ec;
  bool timed_out = false;
};

/// Per-worker pool of keep-alive connections to the one upstream. Single-threaded by
/// construction (a worker's io_context runs on one thread), so no locks.
template <class Stream>
class UpstreamPool {
 public:
  using Connection = UpstreamConnection<Stream>;

  UpstreamPool(asio::io_context& io, std::shared_ptr<const RelayOptions> options,
               std::shared_ptr<asio::ssl::context> tls_context)
      : io_(io), options_(std::move(options)), tls_context_(std::move(tls_context)) {}

  /// An idle pooled connection if there is one (`reused` = true), else a new one.
  asio::awaitable<std::unique_ptr<Connection>> acquire(bool& reused, ConnectFailure& failure) {
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      reused = true;
      co_return connection;
    }
    reused = false;
    co_return co_await connect(failure);
  }

  /// Opens a fresh connection, bypassing the pool (the retry after a stale reused one).
  asio::awaitable<std::unique_ptr<Connection>> connect(ConnectFailure& failure);

  /// Gives a connection whose last response was read completely back for reuse.
  void release(std::unique_ptr<Connection> connection) {
    if (idle_.size() < options_->max_idle_upstream_connections) {
      idle_.push_back(std::move(connection));
    }
  }

 private:
  std::unique_ptr<Connection> makeConnection();

  asio::io_context& io_;
  std::shared_ptr<const RelayOptions> options_;
  std::shared_ptr<asio::ssl::context> tls_context_;
  tcp::resolver::results_type endpoints_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace agentvcr::proxy
