// The HTTP+JSON binding of A2A v1.0 (the specification's section 11): which call a method and
// path name, and how an error travels.

#include <array>
#include <charconv>

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::protocol::a2a {
namespace {

/// `path` split at '/', the empty pieces dropped ("/tasks/t1:cancel" -> tasks, t1:cancel).
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view piece = path.substr(0, slash);
    if (!piece.empty()) {
      out.push_back(piece);
    }
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return out;
}

/// The route of `pieces` (no tenant), or none.
std::optional<RestRoute> routeOf(std::string_view method,
                                 const std::vector<std::string_view>& pieces) {
  const auto route = [](std::string_view name, bool streams = false) {
    RestRoute r;
    r.method = name;
    r.streams = streams;
    return r;
  };
  if (pieces.size() == 1) {
    if (pieces[0] == "message:send" && method == "POST") {
      return route("SendMessage");
    }
    if (pieces[0] == "message:stream" && method == "POST") {
      return route("SendStreamingMessage", true);
    }
    if (pieces[0] == "tasks" && method == "GET") {
      return route("ListTasks");
    }
    if (pieces[0] == "extendedAgentCard" && method == "GET") {
      return route("GetExtendedAgentCard");
    }
    return std::nullopt;
  }
  if (pieces[0] != "tasks") {
    return std::nullopt;
  }
  if (pieces.size() == 2) {
    std::string_view id = pieces[1];
    std::optional<RestRoute> found;
    if (id.ends_with(":cancel") && method == "POST") {
      found = route("CancelTask");
      id.remove_suffix(7);
    } else if (id.ends_with(":subscribe") && (method == "POST" || method == "GET")) {
      // POST in the specification's text, GET in its proto: both are this call.
      found = route("SubscribeToTask", true);
      id.remove_suffix(10);
    } else if (id.find(':') == std::string_view::npos && method == "GET") {
      found = route("GetTask");
    }
    if (found && !id.empty()) {
      found->task_id = percentDecoded(id);
      return found;
    }
    return std::nullopt;
  }
  if (pieces[2] != "pushNotificationConfigs" || pieces.size() > 4) {
    return std::nullopt;
  }
  std::optional<RestRoute> found;
  if (pieces.size() == 3) {
    if (method == "POST") {
      found = route("CreateTaskPushNotificationConfig");
    } else if (method == "GET") {
      found = route("ListTaskPushNotificationConfigs");
    }
  } else if (method == "GET") {
    found = route("GetTaskPushNotificationConfig");
  } else if (method == "DELETE") {
    found = route("DeleteTaskPushNotificationConfig");
  }
  if (found) {
    found->task_id = percentDecoded(pieces[1]);
    if (pieces.size() == 4) {
      found->config_id = percentDecoded(pieces[3]);
    }
  }
  return found;
}

}  // namespace

std::string percentDecoded(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned value = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16).ptr ==
            text.data() + i + 3) {
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += plus_is_space && text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

std::optional<RestRoute> restRouteOf(std::string_view http_method, std::string_view path) {
  const std::vector<std::string_view> pieces = segments(path);
  if (pieces.empty()) {
    return std::nullopt;
  }
  if (auto route = routeOf(http_method, pieces)) {
    return route;
  }
  // An optional first segment names the tenant.
  std::vector<std::string_view> rest(pieces.begin() + 1, pieces.end());
  if (rest.empty()) {
    return std::nullopt;
  }
  auto route = routeOf(http_method, rest);
  if (route) {
    route->tenant = percentDecoded(pieces[0]);
  }
  return route;
}

std::optional<RestRoute> restRouteIn(std::string_view http_method, std::string_view path,
                                     bool a2a_hint) {
  const std::vector<std::string_view> pieces = segments(path);
  for (std::size_t from = 0; from < pieces.size(); ++from) {
    const std::vector<std::string_view> tail(pieces.begin() + static_cast<std::ptrdiff_t>(from),
                                             pieces.end());
    auto route = routeOf(http_method, tail);
    if (!route) {
      continue;
    }
    const bool generic = route->method == "GetTask" || route->method == "ListTasks";
    if (generic && !a2a_hint) {
      return std::nullopt;
    }
    return route;
  }
  return std::nullopt;
}

std::optional<RestRoute> restRouteOfRequest(std::string_view http_method, std::string_view target,
                                            const Headers& request_headers,
                                            std::string_view response_content_type) {
  const auto a2aType = [](std::string_view type) {
    return type.find("application/a2a+json") != std::string_view::npos;
  };
  const bool hint = !headerValue(request_headers, "A2A-Version").empty() ||
                    a2aType(headerValue(request_headers, "Content-Type")) ||
                    a2aType(response_content_type);
  return restRouteIn(http_method, pathOfTarget(target), hint);
}

std::optional<int> errorCodeOfReason(std::string_view reason) {
  for (int code : {-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005,
                   -32006, -32007, -32008, -32009}) {
    if (errorReason(code) == reason) {
      return code;
    }
  }
  return std::nullopt;
}

RestStatus restStatusOf(int jsonrpc_code) {
  switch (jsonrpc_code) {
    case -32001:
    case -32601:
      return {404, "NOT_FOUND"};
    case -32002:
    case -32003:
    case -32004:
    case -32007:
    case -32008:
    case -32009:
      return {400, "FAILED_PRECONDITION"};
    case -32005:
    case -32700:
    case -32600:
    case -32602:
      return {400, "INVALID_ARGUMENT"};
    default:
      return {500, "INTERNAL"};
  }
}

}  // namespace agentvcr::protocol::a2a
