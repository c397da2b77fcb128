// Recognising A2A JSON-RPC, its replay key and id re-stamping (a2a-protocol.md §4, §5, §7).

#include <algorithm>
#include <array>
#include <utility>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "json_value_spans.hpp"

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

std::optional<std::vector<RecordedId>> recordedIdsOf(std::string_view response,
                                                     const Json& recorded_request) {
  const auto parsed = parseJson(response);
  if (!parsed.value) {
    return std::nullopt;
  }
  const Json& answer = *parsed.value;
  std::vector<detail::JsonPath> paths;
  std::vector<RecordedId> ids;
  if (!answer.is_array()) {
    if (findMember(answer, "id") != nullptr) {
      paths.push_back({"id"});
      ids.emplace_back();
    }
  } else if (recorded_request.is_array()) {
    for (std::size_t i = 0; i < answer.size(); ++i) {
      const Json* recorded_id = findMember(answer[i], "id");
      if (recorded_id == nullptr) {
        continue;
      }
      for (std::size_t call = 0; call < recorded_request.size(); ++call) {
        if (idOf(recorded_request[call]) == *recorded_id) {
          paths.push_back({std::to_string(i), "id"});
          ids.push_back(RecordedId{0, 0, call});
          break;
        }
      }
    }
  }
  const auto spans = detail::valueSpansAt(response, paths);
  std::vector<RecordedId> found;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (spans[i]) {
      found.push_back(RecordedId{spans[i]->begin, spans[i]->end, ids[i].position});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const RecordedId& a, const RecordedId& b) { return a.begin < b.begin; });
  return found;
}

std::string liveIdText(std::optional<std::size_t> position, std::string_view recorded_text,
                       const Json& live_request) {
  if (!position) {
    return dumpCompact(idOf(live_request));
  }
  if (live_request.is_array() && *position < live_request.size()) {
    return dumpCompact(idOf(live_request[*position]));
  }
  return std::string(recorded_text);  // the live request has no call there: left as recorded
}

std::optional<std::string> restampIds(std::string_view response, const Json& recorded_request,
                                      const Json& live_request) {
  const auto ids = recordedIdsOf(response, recorded_request);
  if (!ids) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(response.size());
  std::size_t from = 0;
  for (const RecordedId& id : *ids) {
    out.append(response.substr(from, id.begin - from));
    out += liveIdText(id.position, response.substr(id.begin, id.end - id.begin), live_request);
    from = id.end;
  }
  out.append(response.substr(from));
  return out;
}

std::string restampEventData(std::string_view data, const Json& live_id) {
  const auto parsed = parseJson(data);
  if (!parsed.value || !parsed.value->is_object()) {
    return std::string(data);
  }
  const auto span = detail::valueSpansAt(data, {{"id"}}).front();
  if (!span) {
    return std::string(data);
  }
  return std::string(data.substr(0, span->begin)) + dumpCompact(live_id) +
         std::string(data.substr(span->end));
}

std::optional<std::string> recordedTaskAnswer(std::string_view recorded_answer,
                                              std::size_t position, const Json& live_id,
                                              std::optional<std::size_t> history_length) {
  const auto parsed = parseJson(recorded_answer);
  if (!parsed.value) {
    return std::nullopt;
  }
  detail::JsonPath task_path;
  const Json* answer = &*parsed.value;
  if (answer->is_array() && position < answer->size()) {
    answer = &(*answer)[position];
    task_path.push_back(std::to_string(position));
  }
  const Json& task = memberOrNull(*answer, "result");
  if (!task.is_object()) {
    return std::nullopt;
  }
  task_path.emplace_back("result");
  // The task, then (when messages are cut) its history and the messages kept, in order.
  std::vector<detail::JsonPath> paths = {task_path};
  const Json& history = memberOrNull(task, "history");
  if (history_length && history.is_array() && history.size() > *history_length) {
    detail::JsonPath history_path = task_path;
    history_path.emplace_back("history");
    paths.push_back(history_path);
    for (std::size_t i = history.size() - *history_length; i < history.size(); ++i) {
      paths.push_back(history_path);
      paths.back().push_back(std::to_string(i));
    }
  }
  const auto spans = detail::valueSpansAt(recorded_answer, paths);
  if (std::any_of(spans.begin(), spans.end(), [](const auto& span) { return !span; })) {
    return std::nullopt;
  }
  const auto text = [&](std::size_t begin, std::size_t end) {
    return recorded_answer.substr(begin, end - begin);
  };
  std::string out = R"({"jsonrpc":"2.0","id":)" + dumpCompact(live_id) + R"(,"result":)";
  if (spans.size() == 1) {
    out += text(spans[0]->begin, spans[0]->end);
  } else {
    out += text(spans[0]->begin, spans[1]->begin);
    out += '[';
    for (std::size_t i = 2; i < spans.size(); ++i) {
      if (i > 2) {
        out += ',';
      }
      out += text(spans[i]->begin, spans[i]->end);
    }
    out += ']';
    out += text(spans[1]->end, spans[0]->end);
  }
  out += '}';
  return out;
}

}  // namespace agentvcr::protocol::a2a
