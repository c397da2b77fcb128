#pragma once

#include <memory>

#include "agentvcr/metrics/exposition.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::proxy {

/// The answers of a metrics listener: `GET /metrics` (or HEAD) gives the exposition's text;
/// another method on it gets 405, any other path 404.
LocalHandler metricsRoutes(std::shared_ptr<const metrics::Exposition> exposition);

/// `--metrics-listen`: `GET /metrics` on a listener of its own. The relayed port is the agent's
/// namespace, where a path of agentvcr's would shadow one of the agent's.
class MetricsEndpoint {
 public:
  /// Binds at once (throws std::runtime_error naming the address and `listen.option` when it
  /// cannot: proxy::listenError()).
  MetricsEndpoint(ServerOptions listen, std::shared_ptr<const metrics::Exposition> exposition);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  const net::HostPort& endpoint() const { return server_->endpoint(); }

  void start();
  void stop();

 private:
  std::unique_ptr<Server> server_;
};

}  // namespace agentvcr::proxy
