// The per-call fields the archive keeps of an A2A exchange (a2a-protocol.md §4.3, §4.6, §5).

#include <charconv>
#include <map>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol::a2a {
namespace {

std::optional<std::string> stringMember(const Json& object, const char* name) {
  const Json* value = findMember(object, name);
  if (value == nullptr || !value->is_string()) {
    return std::nullopt;
  }
  return value->get<std::string>();
}

/// The text of a part in either dialect: v0.3 `{"kind":"text","text":...}`, v1.0 `{"text":...}`.
void appendPartTexts(const Json* parts, std::string& out) {
  if (parts == nullptr || !parts->is_array()) {
    return;
  }
  for (const Json& part : *parts) {
    if (auto text = stringMember(part, "text")) {
      if (!out.empty()) {
        out += '\n';
      }
      out += *text;
    }
  }
}

std::optional<std::string> textOf(const Json* parts) {
  std::string text;
  appendPartTexts(parts, text);
  return text.empty() ? std::nullopt : std::optional<std::string>(std::move(text));
}

/// Fills the request side: method, id, the message's ids and skill, the task a tasks/* call
/// names, and the text sent.
void readRequest(const Json& request, Call& call) {
  call.method = stringMember(request, "method");
  if (const Json* id = findMember(request, "id")) {
    call.rpc_id = dumpCompact(*id);
  }
  const Json* params = findMember(request, "params");
  if (params == nullptr || !params->is_object()) {
    return;
  }
  if (const Json* message = findMember(*params, "message");
      message != nullptr && message->is_object()) {
    call.message_id = stringMember(*message, "messageId");
    call.context_id = stringMember(*message, "contextId");
    call.task_id = stringMember(*message, "taskId");
    if (const Json* metadata = findMember(*message, "metadata")) {
      call.skill_id = stringMember(*metadata, "skillId");
    }
    call.request_text = textOf(findMember(*message, "parts"));
  } else if (auto id = stringMember(*params, "id")) {
    call.task_id = std::move(id);  // tasks/get, tasks/cancel, tasks/resubscribe
  } else if (auto name = stringMember(*params, "name"); name && name->rfind("tasks/", 0) == 0) {
    call.task_id = name->substr(6);  // v1.0 resource names
  }
  if (!call.skill_id) {
    if (const Json* metadata = findMember(*params, "metadata")) {
      call.skill_id = stringMember(*metadata, "skillId");
    }
  }
}

/// The kind of a result in either dialect: v0.3 says so in `kind`; v1.0 wraps it in a member
/// named after it (`{"task":{...}}`) or leaves it to be recognised by its fields.
std::pair<std::string, const Json*> unwrapResult(const Json& result) {
  if (auto kind = stringMember(result, "kind")) {
    return {*kind, &result};
  }
  static constexpr std::pair<const char*, const char*> kWrappers[] = {
      {"task", "task"},
      {"message", "message"},
      {"statusUpdate", "status-update"},
      {"artifactUpdate", "artifact-update"},
  };
  for (const auto& [wrapper, kind] : kWrappers) {
    if (const Json* inner = findMember(result, wrapper); inner != nullptr && inner->is_object()) {
      return {kind, inner};
    }
  }
  if (findMember(result, "status") != nullptr && findMember(result, "id") != nullptr) {
    return {"task", &result};
  }
  if (findMember(result, "messageId") != nullptr) {
    return {"message", &result};
  }
  return {"", &result};
}

/// Accumulates a call's answer: one result for a plain response, one per event for a stream.
class AnswerReader {
 public:
  explicit AnswerReader(Call& call) : call_(call) {}

  void readResponse(const Json& response) {
    if (const Json* error = findMember(response, "error"); error != nullptr && error->is_object()) {
      readError(*error);
    }
    if (const Json* result = findMember(response, "result");
        result != nullptr && result->is_object()) {
      readResult(*result);
    }
  }

  /// Writes what was accumulated into the call.
  void finish() {
    if (!artifacts_.empty()) {
      Json list = Json::array();
      std::string text;
      for (const auto& [order, artifact] : artifacts_) {
        appendPartTexts(findMember(artifact, "parts"), text);
        list.push_back(artifact);
      }
      call_.artifacts = dumpCompact(list);
      if (!text.empty()) {
        call_.response_text = std::move(text);
      }
    }
    if (!call_.response_text && !answer_text_.empty()) {
      call_.response_text = answer_text_;
    }
  }

 private:
  void readError(const Json& error) {
    if (const Json* code = findMember(error, "code");
        code != nullptr && code->is_number_integer()) {
      call_.error_code = code->get<std::int64_t>();
    }
    call_.error_message = stringMember(error, "message");
    if (const Json* data = findMember(error, "data")) {
      call_.error_data = dumpCompact(*data);
      if (const Json* retry = findMember(*data, "retryAfter");
          retry != nullptr && retry->is_number()) {
        call_.retry_after = retry->get<double>();
      }
    }
  }

  void readResult(const Json& result) {
    auto [kind, object] = unwrapResult(result);
    if (!kind.empty()) {
      call_.result_kind = kind;
    }
    if (kind == "task") {
      readTask(*object);
    } else if (kind == "message") {
      takeIds(*object, "taskId", "contextId");
      std::string text;
      appendPartTexts(findMember(*object, "parts"), text);
      if (!text.empty()) {
        answer_text_ = std::move(text);
      }
    } else if (kind == "status-update") {
      takeIds(*object, "taskId", "contextId");
      readStatus(findMember(*object, "status"));
    } else if (kind == "artifact-update") {
      takeIds(*object, "taskId", "contextId");
      if (const Json* artifact = findMember(*object, "artifact")) {
        const Json* append = findMember(*object, "append");
        mergeArtifact(*artifact, append != nullptr && append->is_boolean() && append->get<bool>());
      }
    }
  }

  void readTask(const Json& task) {
    takeIds(task, "id", "contextId");
    readStatus(findMember(task, "status"));
    if (const Json* history = findMember(task, "history");
        history != nullptr && history->is_array()) {
      call_.history = dumpCompact(*history);
      for (const Json& message : *history) {
        auto role = stringMember(message, "role");
        if (role == "agent" || role == "ROLE_AGENT") {
          std::string text;
          appendPartTexts(findMember(message, "parts"), text);
          if (!text.empty()) {
            answer_text_ = std::move(text);
          }
        }
      }
    }
    if (const Json* artifacts = findMember(task, "artifacts");
        artifacts != nullptr && artifacts->is_array()) {
      artifacts_.clear();
      for (const Json& artifact : *artifacts) {
        mergeArtifact(artifact, false);
      }
    }
  }

  void readStatus(const Json* status) {
    if (status == nullptr || !status->is_object()) {
      return;
    }
    if (auto state = stringMember(*status, "state")) {
      call_.task_state = std::move(state);
    }
    if (const Json* message = findMember(*status, "message");
        message != nullptr && message->is_object()) {
      std::string text;
      appendPartTexts(findMember(*message, "parts"), text);
      if (!text.empty()) {
        answer_text_ = std::move(text);  // a failed task explains itself here
      }
    }
  }

  /// Server-minted ids win over the ids the request named: they are what the caller got.
  void takeIds(const Json& object, const char* task_field, const char* context_field) {
    if (auto task = stringMember(object, task_field)) {
      call_.task_id = std::move(task);
    }
    if (auto context = stringMember(object, context_field)) {
      call_.context_id = std::move(context);
    }
  }

  void mergeArtifact(const Json& artifact, bool append) {
    if (!artifact.is_object()) {
      return;
    }
    std::string id = stringMember(artifact, "artifactId").value_or("");
    for (auto& [order, known] : artifacts_) {
      if (!id.empty() && stringMember(known, "artifactId") == id) {
        const Json* parts = findMember(artifact, "parts");
        if (append && parts != nullptr && parts->is_array() && known["parts"].is_array()) {
          for (const Json& part : *parts) {
            known["parts"].push_back(part);
          }
        } else {
          known = artifact;
        }
        return;
      }
    }
    artifacts_.emplace(artifacts_.size(), artifact);
  }

  Call& call_;
  std::map<std::size_t, Json> artifacts_;  ///< in order of first appearance
  std::string answer_text_;
};

std::optional<Json> parseBody(std::string_view body) {
  if (body.empty()) {
    return std::nullopt;
  }
  auto parsed = parseJson(body);
  return std::move(parsed.value);
}

WireVersion versionOf(std::string_view header, const std::optional<std::string>& method) {
  if (asksForV10(header) || (method && isV10Method(*method))) {
    return WireVersion::V10;
  }
  return WireVersion::V03;
}

/// The response object answering `request` in a batch: the one with the same id, else the
/// one at the same position.
const Json* answerIn(const Json& responses, const Json& request, std::size_t position) {
  if (const Json* id = findMember(request, "id")) {
    for (const Json& response : responses) {
      if (const Json* answered = findMember(response, "id");
          answered != nullptr && *answered == *id) {
        return &response;
      }
    }
  }
  return position < responses.size() ? &responses[position] : nullptr;
}

}  // namespace

std::vector<Call> decodeCalls(const CallExchange& exchange) {
  std::optional<Json> request = parseBody(exchange.request_body);
  std::optional<Json> response = parseBody(exchange.response_body);
  std::vector<Json> requests;
  if (request && request->is_array() && !request->empty()) {
    requests.assign(request->begin(), request->end());
  } else {
    requests.push_back(request ? std::move(*request) : Json(nullptr));
  }
  const bool batch_response = response && response->is_array();

  std::vector<Call> calls;
  for (std::size_t position = 0; position < requests.size(); ++position) {
    const Json& object = requests[position];
    Call call;
    call.position = position;
    readRequest(object, call);
    call.wire_version = versionOf(exchange.a2a_version_header, call.method);
    call.replay_key = callKey(exchange.http_method, exchange.target, object);

    AnswerReader reader(call);
    if (!exchange.stream_data.empty()) {
      for (std::string_view data : exchange.stream_data) {
        if (auto event = parseBody(data)) {
          reader.readResponse(*event);
        }
      }
    } else if (batch_response) {
      if (const Json* answer = answerIn(*response, object, position)) {
        reader.readResponse(*answer);
      }
    } else if (response && requests.size() == 1) {
      reader.readResponse(*response);
    }
    reader.finish();
    calls.push_back(std::move(call));
  }
  return calls;
}

namespace {}  // namespace

Json restQueryParams(std::string_view target) {
  Json params = Json::object();
  const std::size_t question = target.find('?');
  std::string_view query =
      question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t equals = pair.find('=');
    if (!pair.empty() && equals != std::string_view::npos) {
      const std::string name = percentDecoded(pair.substr(0, equals), true);
      const std::string text = percentDecoded(pair.substr(equals + 1), true);
      // The integers and the boolean of the calls' params, where the text says so; the text
      // otherwise, which the params check then refuses.
      long long number = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if ((name == "pageSize" || name == "historyLength") && error == std::errc() &&
          end == text.data() + text.size()) {
        params[name] = number;
      } else if (name == "includeArtifacts" && (text == "true" || text == "false")) {
        params[name] = text == "true";
      } else {
        params[name] = text;
      }
    }
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  return params;
}

Json restCallObject(const RestRoute& route, std::string_view target, const Json& body) {
  Json params = Json::object();
  if (!route.task_id.empty()) {
    params[route.method.find("PushNotification") != std::string_view::npos ? "taskId" : "id"] =
        route.task_id;
  }
  if (!route.config_id.empty()) {
    params["id"] = route.config_id;
  }
  const Json query = restQueryParams(target);  // kept: items() would dangle on a temporary
  for (const auto& [name, value] : query.items()) {
    params[name] = value;
  }
  if (body.is_object()) {
    for (const auto& [name, value] : body.items()) {
      params[name] = value;
    }
  }
  Json call = Json::object();
  call["method"] = std::string(route.method);
  call["params"] = std::move(params);
  return call;
}

namespace {

/// An HTTP+JSON error body (`{"error": google.rpc.Status}`) as a JSON-RPC error object.
Json rpcErrorOf(const Json& status) {
  Json error = Json::object();
  if (const Json* details = findMember(status, "details"); details != nullptr) {
    if (details->is_array()) {
      for (const Json& detail : *details) {
        const Json* type = findMember(detail, "@type");
        const Json* reason = findMember(detail, "reason");
        if (type != nullptr && *type == kErrorInfoType && reason != nullptr &&
            reason->is_string()) {
          if (auto code = errorCodeOfReason(reason->get<std::string>())) {
            error["code"] = *code;
          }
        }
      }
    }
    error["data"] = *details;
  }
  if (const Json* message = findMember(status, "message")) {
    error["message"] = *message;
  }
  return error;
}

}  // namespace

Call decodeRestCall(const CallExchange& exchange, const RestRoute& route) {
  const Json request = restCallObject(route, exchange.target,
                                      parseBody(exchange.request_body).value_or(Json(nullptr)));
  CallExchange as_rpc = exchange;
  const std::string request_text = dumpCompact(request);
  as_rpc.request_body = request_text;
  // The answer: each event, or the body, as a result; a non-2xx body's Status as an error.
  std::string response_text;
  std::vector<std::string> events;
  if (!exchange.stream_data.empty()) {
    for (std::string_view data : exchange.stream_data) {
      auto event = parseBody(data);
      if (!event) {
        continue;
      }
      const Json* status = findMember(*event, "error");
      events.push_back(dumpCompact(status != nullptr && status->is_object()
                                       ? Json{{"error", rpcErrorOf(*status)}}
                                       : Json{{"result", *event}}));
    }
    as_rpc.stream_data.assign(events.begin(), events.end());
  } else if (auto body = parseBody(exchange.response_body)) {
    const Json* status = findMember(*body, "error");
    const bool failed = exchange.http_status >= 400 && status != nullptr && status->is_object();
    response_text =
        dumpCompact(failed ? Json{{"error", rpcErrorOf(*status)}} : Json{{"result", *body}});
    as_rpc.response_body = response_text;
  } else {
    as_rpc.response_body = {};
  }
  std::vector<Call> calls = decodeCalls(as_rpc);
  Call call = calls.empty() ? Call{} : std::move(calls.front());
  call.wire_version = WireVersion::V10;  // the binding exists in v1.0 only (v0.3's is not read)
  call.replay_key = callKey(exchange.http_method, exchange.target, request);
  return call;
}

}  // namespace agentvcr::protocol::a2a
