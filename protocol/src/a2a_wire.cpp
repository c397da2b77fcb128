// Recognising A2A JSON-RPC, its replay key and id re-stamping (a2a-protocol.md §4, §5, §7).

#include <array>
#include <utility>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::protocol::a2a {
namespace {

bool isJsonRpcObject(const Json& value) {
  if (!value.is_object()) {
    return false;
  }
  auto version = value.find("jsonrpc");
  return version != value.end() && version->is_string() && *version == "2.0";
}

/// The `id` a batch element or a single request carries; null when it has none.
Json idOf(const Json& object) {
  if (object.is_object()) {
    if (auto id = object.find("id"); id != object.end()) {
      return *id;
    }
  }
  return nullptr;
}

void setId(OrderedJson& response, const Json& live_id) {
  if (response.is_object() && response.contains("id")) {
    response["id"] = OrderedJson::parse(live_id.dump());
  }
}

}  // namespace

std::string_view normalTaskState(std::string_view wire_state) {
  // v1.0 spells each v0.3 state in upper case, with `_` for `-`, behind TASK_STATE_.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kStates = {{
      {"submitted", "TASK_STATE_SUBMITTED"},
      {"working", "TASK_STATE_WORKING"},
      {"input-required", "TASK_STATE_INPUT_REQUIRED"},
      {"auth-required", "TASK_STATE_AUTH_REQUIRED"},
      {"completed", "TASK_STATE_COMPLETED"},
      {"failed", "TASK_STATE_FAILED"},
      {"canceled", "TASK_STATE_CANCELED"},
      {"rejected", "TASK_STATE_REJECTED"},
  }};
  for (const auto& [v03, v10] : kStates) {
    if (wire_state == v03 || wire_state == v10) {
      return v03;
    }
  }
  return "unknown";
}

const char* wireVersionName(WireVersion version) {
  return version == WireVersion::V10 ? "1.0" : "0.3";
}

bool isAgentCardPath(std::string_view target) {
  std::string_view path = pathOfTarget(target);
  return path == "/.well-known/agent.json" || path == "/.well-known/agent-card.json";
}

bool isJsonRpc(const Json& body) {
  if (body.is_array()) {
    if (body.empty()) {
      return false;
    }
    for (const Json& element : body) {
      if (!isJsonRpcObject(element)) {
        return false;
      }
    }
    return true;
  }
  return isJsonRpcObject(body);
}

namespace {

/// The methods both versions have, under each one's name (a2a-v1.md, "Method names").
/// ListTasks is v1.0 only.
constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kRenamed = {{
    {"message/send", "SendMessage"},
    {"message/stream", "SendStreamingMessage"},
    {"tasks/get", "GetTask"},
    {"tasks/cancel", "CancelTask"},
    {"tasks/resubscribe", "SubscribeToTask"},
    {"tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"},
    {"tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"},
    {"tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"},
    {"tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"},
    {"agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"},
}};

}  // namespace

bool isV10Method(std::string_view method) {
  // The singular ListTaskPushNotificationConfig is an older spelling of the plural; calls that
  // use it are still v1.0 calls.
  if (method == "ListTasks" || method == "ListTaskPushNotificationConfig") {
    return true;
  }
  for (const auto& [v03, v10] : kRenamed) {
    if (method == v10) {
      return true;
    }
  }
  return false;
}

std::string_view v10MethodName(std::string_view v03_method) {
  for (const auto& [v03, v10] : kRenamed) {
    if (v03_method == v03) {
      return v10;
    }
  }
  return {};
}

const std::vector<std::string_view>& knownMethodNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all;
    for (const auto& [v03, v10] : kRenamed) {
      all.push_back(v03);
    }
    for (const auto& [v03, v10] : kRenamed) {
      all.push_back(v10);
    }
    all.push_back("ListTasks");
    all.push_back("ListTaskPushNotificationConfig");
    return all;
  }();
  return names;
}

std::string_view errorReason(int code) {
  switch (code) {
    case -32700:
      return "JSON_PARSE";
    case -32600:
      return "INVALID_REQUEST";
    case -32601:
      return "METHOD_NOT_FOUND";
    case -32602:
      return "INVALID_PARAMS";
    case -32603:
      return "INTERNAL";
    case -32001:
      return "TASK_NOT_FOUND";
    case -32002:
      return "TASK_NOT_CANCELABLE";
    case -32003:
      return "PUSH_NOTIFICATION_NOT_SUPPORTED";
    case -32004:
      return "UNSUPPORTED_OPERATION";
    case -32005:
      return "CONTENT_TYPE_NOT_SUPPORTED";
    case -32006:
      return "INVALID_AGENT_RESPONSE";
    case -32007:
      return "EXTENDED_AGENT_CARD_NOT_CONFIGURED";
    case -32008:
      return "EXTENSION_SUPPORT_REQUIRED";
    case -32009:
      return "VERSION_NOT_SUPPORTED";
    default:
      return {};
  }
}

bool asksForV10(std::string_view a2a_version_header) {
  return !a2a_version_header.empty() && a2a_version_header.front() == '1';
}

std::uint64_t callKey(std::string_view http_method, std::string_view target,
                      const Json& request_object, const KeyOptions& options) {
  Json keyed = Json::object();
  keyed["http"] = Json::array({std::string(http_method), std::string(pathOfTarget(target))});
  if (request_object.is_object()) {
    if (auto method = request_object.find("method"); method != request_object.end()) {
      keyed["method"] = *method;
    }
    if (auto params = request_object.find("params"); params != request_object.end()) {
      Json params_copy = *params;
      if (options.ignore_message_id && params_copy.is_object()) {
        if (auto message = params_copy.find("message");
            message != params_copy.end() && message->is_object()) {
          message->erase("messageId");
        }
      }
      keyed["params"] = std::move(params_copy);
    }
  } else {
    keyed["body"] = request_object;  // not a request object: keyed on what it is
  }
  return canonicalHash(keyed);
}

std::optional<std::string> restampIds(std::string_view response, const Json& recorded_request,
                                      const Json& live_request) {
  auto parsed = parseOrderedJson(response);
  if (!parsed) {
    return std::nullopt;
  }
  if (parsed->is_array()) {
    // Batch answers may come in any order: map each recorded id to the live id at its position.
    if (!recorded_request.is_array() || !live_request.is_array()) {
      return parsed->dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
    }
    for (OrderedJson& element : *parsed) {
      if (!element.is_object() || !element.contains("id")) {
        continue;
      }
      const Json recorded_id = Json::parse(element["id"].dump());
      for (std::size_t i = 0; i < recorded_request.size() && i < live_request.size(); ++i) {
        if (idOf(recorded_request[i]) == recorded_id) {
          setId(element, idOf(live_request[i]));
          break;
        }
      }
    }
  } else {
    setId(*parsed, idOf(live_request));
  }
  return parsed->dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

std::string restampEventData(std::string_view data, const Json& live_id) {
  auto parsed = parseOrderedJson(data);
  if (!parsed || !parsed->is_object()) {
    return std::string(data);
  }
  setId(*parsed, live_id);
  return parsed->dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace agentvcr::protocol::a2a
