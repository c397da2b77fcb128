// The mock's HTTP+JSON binding (A2A v1.0, the specification's section 11): each call is read
// into the JSON-RPC v1.0 call it stands for and answered by the same dispatcher, so both
// bindings share every check, task and fate; only the envelope differs.

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/sim/a2a/engine.hpp"
#include "agentvcr/sim/a2a/json_rpc.hpp"

namespace agentvcr::sim::a2a {
namespace {

constexpr const char* kRestContentType = "application/a2a+json";

/// The error as the binding writes it: a google.rpc.Status with the details v1.0 asks for.
std::string statusBody(const RpcError& error) {
  const protocol::a2a::RestStatus status = protocol::a2a::restStatusOf(error.code);
  Json body = Json::object();
  Json& inner = body["error"] = Json::object();
  inner["code"] = status.http_status;
  inner["status"] = status.name;
  inner["message"] = error.message;
  inner["details"] = error.data && error.data->is_array() ? *error.data : Json::array();
  return dumpJson(body);
}

protocol::HttpReply restReply(int status, std::string body) {
  protocol::HttpReply reply;
  reply.status = status;
  reply.content_type = kRestContentType;
  reply.body = std::move(body);
  return reply;
}

bool isJsonContent(const protocol::HeaderField* content_type) {
  if (content_type == nullptr) {
    return true;
  }
  const std::string_view type = protocol::trimBlanks(
      std::string_view(content_type->value).substr(0, content_type->value.find(';')));
  return protocol::equalsIgnoreCase(type, "application/json") ||
         protocol::equalsIgnoreCase(type, kRestContentType);
}

}  // namespace

bool MockEngine::isRestPath(std::string_view path, std::string_view& relative) const {
  const std::string& base = config_.rest_path;
  if (!servesRest() || !path.starts_with(base) ||
      (path.size() > base.size() && path[base.size()] != '/')) {
    return false;
  }
  relative = path.substr(base.size());
  return true;
}

protocol::HttpReply MockEngine::answerRest(const protocol::HttpRequest& request,
                                           std::string_view path) {
  const std::optional<protocol::a2a::RestRoute> route =
      protocol::a2a::restRouteOf(request.method, path);
  Json params = Json::object();
  std::string method;
  if (route) {
    method = std::string(route->method);
    if (!route->task_id.empty()) {
      params[route->method.find("PushNotification") != std::string_view::npos ? "taskId" : "id"] =
          route->task_id;
    }
    if (!route->config_id.empty()) {
      params["id"] = route->config_id;
    }
    const protocol::Json query = protocol::a2a::restQueryParams(request.target);
    for (const auto& [name, value] : query.items()) {
      params[name] = Json::parse(value.dump());
    }
    if (request.method == "POST" && !request.body.empty()) {
      const std::optional<Json> body = parseJsonText(request.body);
      if (body && body->is_object()) {
        for (const auto& [name, value] : body->items()) {
          params[name] = value;
        }
      } else {
        method.clear();  // an unreadable body: the JSON-RPC call below is one too
      }
    }
  }
  // The call the request stands for, in JSON-RPC v1.0, through the same checks. A route that
  // does not exist asks for a method that does not either (-32601, 404); a body that is not a
  // JSON object goes on as one that does not parse (-32700, 400).
  std::string body;
  if (!route) {
    body = R"({"jsonrpc":"2.0","id":1,"method":"HTTP+JSON )" + request.method + " " +
           std::string(path) + R"(","params":{}})";
  } else if (method.empty()) {
    body = "{";
  } else {
    Json call = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}};
    body = dumpJson(call);
  }
  protocol::Headers headers = {
      {"Content-Type", isJsonContent(protocol::findHeader(request.headers, "content-type"))
                           ? "application/json"
                           : std::string(protocol::headerValue(request.headers, "content-type"))}};
  const std::string_view version =
      protocol::trimBlanks(protocol::headerValue(request.headers, "a2a-version"));
  if (!version.empty() && !protocol::a2a::asksForV10(version)) {
    // The binding is v1.0's alone: v0.3's REST binding, or any other version, is not served.
    RpcError refused = profile_.error(Fault::VersionNotSupported, version);
    refused.data = Json{{"supportedVersions", "1.0"}};
    addV10ErrorDetails(refused);
    return restReply(protocol::a2a::restStatusOf(refused.code).http_status, statusBody(refused));
  }
  headers.push_back({"A2A-Version", version.empty() ? std::string("1.0") : std::string(version)});
  if (const protocol::HeaderField* authorization =
          protocol::findHeader(request.headers, "authorization")) {
    headers.push_back(*authorization);
  }
  RpcAnswers answers = dispatcher_.dispatch({"POST", config_.endpoint_path, headers, body});
  MethodOutcome& outcome = answers.answers.front().outcome;
  if (!outcome.stream.empty()) {
    protocol::HttpReply reply;
    reply.content_type = "text/event-stream";
    reply.headers.push_back({"Cache-Control", "no-cache"});
    for (const StreamFrame& frame : outcome.stream) {
      const auto delay =
          reply.stream.empty() ? std::chrono::milliseconds::zero() : config_.stream_delay;
      reply.stream.push_back({delay, frame.result ? sseData(dumpJson(*frame.result))
                                                  : sseError(statusBody(*frame.error))});
    }
    return reply;
  }
  if (outcome.result) {
    return restReply(200, dumpJson(*outcome.result));
  }
  return restReply(protocol::a2a::restStatusOf(outcome.error->code).http_status,
                   statusBody(*outcome.error));
}

}  // namespace agentvcr::sim::a2a
