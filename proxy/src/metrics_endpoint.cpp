#include "agentvcr/proxy/metrics_endpoint.hpp"

#include <string>
#include <string_view>

#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::proxy {
namespace {

constexpr int kNotFound = 404;
constexpr int kMethodNotAllowed = 405;

}  // namespace

LocalHandler metricsRoutes(std::shared_ptr<const metrics::Exposition> exposition) {
  return [exposition = std::move(exposition)](const protocol::HttpRequest& request) {
    if (protocol::pathOfTarget(request.target) != "/metrics") {
      return protocol::HttpReply{
          kNotFound,
          "application/json",
          {},
          protocol::errorBody("metrics.not_found", "this listener serves GET /metrics only"),
          {}};
    }
    if (request.method != "GET" && request.method != "HEAD") {
      return protocol::HttpReply{
          kMethodNotAllowed,
          "application/json",
          {{"Allow", "GET, HEAD"}},
          protocol::errorBody("metrics.method_not_allowed", "/metrics answers GET and HEAD"),
          {}};
    }
    return protocol::HttpReply{
        200, std::string(metrics::kTextContentType), {}, exposition->scrape(), {}};
  };
}

MetricsEndpoint::MetricsEndpoint(ServerOptions listen,
                                 std::shared_ptr<const metrics::Exposition> exposition)
    : server_(std::make_unique<Server>(
          std::move(listen), makeLocalServiceFactory(metricsRoutes(std::move(exposition))))) {}

MetricsEndpoint::~MetricsEndpoint() {
  stop();
}

void MetricsEndpoint::start() {
  server_->start();
}

void MetricsEndpoint::stop() {
  server_->stop();
}

}  // namespace agentvcr::proxy
