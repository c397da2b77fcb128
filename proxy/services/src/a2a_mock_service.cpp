#include "agentvcr/services/a2a_mock_service.hpp"

#include <mutex>

namespace agentvcr::services {
proxy::LocalHandler a2aMockRoutes(std::shared_ptr<sim::a2a::MockEngine> engine) {
  auto guard = std::make_shared<std::mutex>();
  return [engine = std::move(engine), guard](const protocol::HttpRequest& request) {
    std::lock_guard lock(*guard);
    return engine->handle(request);
  };
}

A2aMockService::A2aMockService(sim::a2a::MockConfig config,
                               std::shared_ptr<const sim::a2a::Clock> clock,
                               proxy::ServerOptions server,
                               std::shared_ptr<metrics::TrafficMetrics> metrics)
    : engine_(std::make_shared<sim::a2a::MockEngine>(std::move(config), std::move(clock))),
      server_(std::make_unique<proxy::Server>(
          std::move(server),
          proxy::makeLocalServiceFactory(
              a2aMockRoutes(engine_), proxy::LocalServiceOptions{.metrics = std::move(metrics)}))) {
  // The server is bound but not started: no request can reach the engine yet, so the card's
  // url may still change without the lock.
  public_url_ = engine_->config().public_url;
  if (public_url_.empty()) {
    public_url_ = baseUrl() + engine_->config().endpoint_path;
    engine_->setPublicUrl(public_url_);
  }
}

std::string A2aMockService::baseUrl() const {
  return endpoint().httpUrl();
}

}  // namespace agentvcr::services
