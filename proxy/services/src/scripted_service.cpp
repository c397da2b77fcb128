#include "agentvcr/services/scripted_service.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "agentvcr/protocol/fastapi_errors.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::services {

using protocol::magma::Route;

namespace {

protocol::HttpReply fastApiError(int status, const char* detail) {
  return protocol::HttpReply{status, "application/json", {}, protocol::detailBody(detail), {}};
}

}  // namespace

proxy::LocalHandler scriptedAgentRoutes(std::shared_ptr<const sim::magma::ScriptedAgent> agent) {
  return [agent](const protocol::HttpRequest& request) {
    switch (protocol::magma::routeOf(request.method, request.target)) {
      case Route::Health:
        return agent->health();
      case Route::Info:
        return agent->info();
      case Route::Responses:
        return agent->respond(request.body);
      default:
        break;
    }
    // A known path with another method is 405, as FastAPI answers; the rest is 404. The
    // scripted agent advertises no coaching, so the coaching routes are unknown paths.
    const auto path = request.target.substr(0, request.target.find('?'));
    if (path == "/health" || path == "/v1/info" || path == "/v1/responses") {
      return fastApiError(405, "Method Not Allowed");
    }
    return fastApiError(404, "Not Found");
  };
}

std::string readTextFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw std::runtime_error("cannot read " + path);
  }
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

std::shared_ptr<const sim::magma::ScriptedAgent> loadScriptedAgent(const std::string& path) {
  auto load = sim::magma::ScriptedAgent::fromText(readTextFile(path));
  if (!load.agent) {
    throw std::runtime_error(path + ": " + load.error);
  }
  return std::make_shared<const sim::magma::ScriptedAgent>(std::move(*load.agent));
}

}  // namespace agentvcr::services
