#include "agentvcr/proxy/a2a_mock_service.hpp"

#include <mutex>

namespace agentvcr::proxy {
namespace {

LocalResponse toLocal(a2a_mock::HttpReply reply) {
  LocalResponse local;
  local.status = reply.status;
  local.content_type = std::move(reply.content_type);
  local.body = std::move(reply.body);
  local.headers = std::move(reply.headers);
  for (auto& event : reply.stream) {
    local.stream.push_back(StreamChunk{event.delay, std::move(event.bytes)});
  }
  return local;
}

}  // namespace

LocalHandler a2aMockRoutes(std::shared_ptr<a2a_mock::MockEngine> engine) {
  auto guard = std::make_shared<std::mutex>();
  return [engine = std::move(engine), guard](const LocalRequest& request) {
    a2a_mock::HttpRequest mock_request{request.method, request.target, request.headers,
                                       request.body};
    a2a_mock::HttpReply reply;
    {
      std::lock_guard lock(*guard);
      reply = engine->handle(mock_request);
    }
    return toLocal(std::move(reply));
  };
}

A2aMockService::A2aMockService(a2a_mock::MockConfig config,
                               std::shared_ptr<const a2a_mock::Clock> clock, ServerOptions server)
    : engine_(std::make_shared<a2a_mock::MockEngine>(std::move(config), std::move(clock))),
      server_(std::make_unique<Server>(std::move(server),
                                       makeLocalServiceFactory(a2aMockRoutes(engine_)))) {
  // The server is bound but not started: no request can reach the engine yet, so the card's
  // url may still change without the lock.
  public_url_ = engine_->config().public_url;
  if (public_url_.empty()) {
    public_url_ = baseUrl() + engine_->config().endpoint_path;
    engine_->setPublicUrl(public_url_);
  }
}

std::string A2aMockService::baseUrl() const {
  const auto bound = endpoint();
  return "http://" + bound.address().to_string() + ":" + std::to_string(bound.port());
}

}  // namespace agentvcr::proxy
