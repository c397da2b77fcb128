#pragma once

#include <memory>
#include <string>

#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/config.hpp"
#include "agentvcr/sim/a2a/engine.hpp"

namespace agentvcr::services {

/// The A2A mock engine as a LocalHandler. The engine keeps tasks, counters and its id
/// sequence, so one mutex serialises the calls; several workers may call the handler at once.
/// Streams are computed whole under the lock and written outside it, at their own pace.
proxy::LocalHandler a2aMockRoutes(std::shared_ptr<sim::a2a::MockEngine> engine);

/// `agentvcr mock a2a` as an object: the engine behind an HTTP/1.1 server.
///
/// Thread-safety: start(), stop() and the accessors are called from one controlling thread.
class A2aMockService {
 public:
  /// Binds at once (throws std::runtime_error naming the address when it cannot) and throws
  /// std::invalid_argument for a config the engine refuses. When `config.public_url` is empty
  /// the card's url is the bound address plus the endpoint path.
  /// `metrics` counts the answers and their A2A calls (`--metrics-listen`); null: not counted.
  A2aMockService(sim::a2a::MockConfig config, std::shared_ptr<const sim::a2a::Clock> clock,
                 proxy::ServerOptions server,
                 std::shared_ptr<metrics::TrafficMetrics> metrics = nullptr);

  void start() { server_->start(); }

  void stop() { server_->stop(); }

  /// Ends stop()'s drain at once (proxy::Server::cutNow()). Safe from any thread.
  void cutNow() { server_->cutNow(); }

  const net::HostPort& endpoint() const { return server_->endpoint(); }

  /// "http://host:port" of the bound address.
  std::string baseUrl() const;

  /// Where the card sends clients: the public URL.
  const std::string& publicUrl() const { return public_url_; }

  const sim::a2a::Profile& profile() const { return engine_->profile(); }

 private:
  std::shared_ptr<sim::a2a::MockEngine> engine_;
  std::unique_ptr<proxy::Server> server_;
  std::string public_url_;
};

}  // namespace agentvcr::services
