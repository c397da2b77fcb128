#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/lint.hpp"

namespace agentvcr::protocol::lint {
namespace {

JsonPath child(const JsonPath& base, PathElement key) {
  JsonPath path = base;
  path.push_back(std::move(key));
  return path;
}

/// A value as a finding quotes it: scalars as JSON text, containers by their type, so that a
/// message stays one short line whatever the body held.
std::string shown(const Json* value) {
  if (value == nullptr) {
    return "nothing";
  }
  if (value->is_object()) {
    return "an object";
  }
  if (value->is_array()) {
    return "an array";
  }
  return dumpCompact(*value);
}

/// JSON-RPC 2.0 §4: an id is a string, a number or null; objects and arrays are not ids.
bool validId(const Json& id) {
  return id.is_string() || id.is_number() || id.is_null();
}

void checkVersion(const Json& envelope, const JsonPath& base, std::vector<LintFinding>& out) {
  auto version = envelope.find("jsonrpc");
  if (version == envelope.end() || *version != "2.0") {
    out.push_back({kA2aJsonrpcVersion, child(base, "jsonrpc"),
                   "jsonrpc must be the string \"2.0\", got " +
                       (version == envelope.end() ? std::string("nothing") : version->dump())});
  }
}

void checkId(const Json& envelope, const JsonPath& base, bool required,
             std::vector<LintFinding>& out) {
  auto id = envelope.find("id");
  if (id == envelope.end()) {
    if (required) {
      out.push_back({kA2aId, child(base, "id"), "A response must carry the request's id"});
    }
    return;
  }
  if (!validId(*id)) {
    out.push_back({kA2aId, child(base, "id"), "id must be a string, a number or null"});
  }
}

// --- A2A v1.0 shapes (a2a-v1.md): ProtoJSON objects without `kind`, SCREAMING_SNAKE enums ---

/// The v1.0 spelling of a v0.3 enum value: `user` is ROLE_USER, `input-required` is
/// TASK_STATE_INPUT_REQUIRED.
std::string v10Spelling(std::string_view prefix, std::string_view v03) {
  std::string name(prefix);
  for (char c : v03) {
    name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

/// v1.0 tells objects apart by their fields and by the member wrapping them; a `kind` member is
/// the v0.3 discriminator left in by a client or agent that was ported halfway.
void checkNoKind(const Json& object, const JsonPath& path, std::vector<LintFinding>& out) {
  if (const Json* kind = findMember(object, "kind")) {
    out.push_back(
        {kA2aV1Kind, child(path, "kind"),
         "kind " + shown(kind) + " is a v0.3 discriminator; v1.0 objects carry no kind member"});
  }
}

void checkPart(const Json& part, const JsonPath& path, std::vector<LintFinding>& out) {
  if (!part.is_object()) {
    out.push_back({kA2aV1Part, path, "A Part must be an object, got " + shown(&part)});
    return;
  }
  checkNoKind(part, path, out);
  std::string carried;
  int count = 0;
  for (const char* content : {"text", "raw", "url", "data"}) {
    const Json* value = findMember(part, content);
    if (value == nullptr) {
      continue;
    }
    carried += (count++ == 0 ? "" : " and ") + std::string(content);
    if (std::string_view(content) != "data" && !value->is_string()) {  // data: any JSON
      out.push_back({kA2aV1Part, child(path, content),
                     std::string("Part ") + content + " must be a string, got " + shown(value)});
    }
  }
  if (count != 1) {
    out.push_back({kA2aV1Part, path,
                   "A Part carries exactly one of text, raw, url and data, got " +
                       (count == 0 ? std::string("none") : carried)});
  }
}

/// The `parts` of a Message or an Artifact: required and not empty.
void checkParts(const Json& owner, const JsonPath& path, std::vector<LintFinding>& out) {
  const JsonPath at = child(path, "parts");
  const Json* parts = findMember(owner, "parts");
  if (parts == nullptr || !parts->is_array() || parts->empty()) {
    out.push_back({kA2aV1Parts, at,
                   "parts must be a non-empty array of Parts, got " +
                       (parts != nullptr && parts->is_array() ? std::string("an empty array")
                                                              : shown(parts))});
    return;
  }
  for (std::size_t i = 0; i < parts->size(); ++i) {
    checkPart((*parts)[i], child(at, static_cast<std::int64_t>(i)), out);
  }
}

void checkMessage(const Json* message, const JsonPath& path, std::vector<LintFinding>& out) {
  if (message == nullptr || !message->is_object()) {
    out.push_back(
        {kA2aV1Message, path,
         "A Message must be an object {messageId, role, parts, ...}, got " + shown(message)});
    return;
  }
  checkNoKind(*message, path, out);
  const Json* id = findMember(*message, "messageId");
  if (id == nullptr || !id->is_string() || id->get_ref<const std::string&>().empty()) {
    out.push_back({kA2aV1MessageId, child(path, "messageId"),
                   "messageId must be a non-empty string, got " + shown(id)});
  }
  const Json* role = findMember(*message, "role");
  if (role == nullptr || (*role != "ROLE_USER" && *role != "ROLE_AGENT")) {
    std::string expected = "role must be \"ROLE_USER\" or \"ROLE_AGENT\", got " + shown(role);
    if (role != nullptr && (*role == "user" || *role == "agent")) {
      expected = "role " + shown(role) + " is the v0.3 spelling; v1.0 writes \"" +
                 v10Spelling("ROLE_", role->get_ref<const std::string&>()) + "\"";
    }
    out.push_back({kA2aV1Role, child(path, "role"), std::move(expected)});
  }
  checkParts(*message, path, out);
}

/// A TaskState name: one of the eight TASK_STATE_* values a2a-v1.md lists (not
/// TASK_STATE_UNSPECIFIED). A v0.3 name is reported with its v1.0 spelling.
void checkTaskState(const Json* state, const JsonPath& path, std::vector<LintFinding>& out) {
  const std::string_view text = state != nullptr && state->is_string()
                                    ? std::string_view(state->get_ref<const std::string&>())
                                    : std::string_view();
  const std::string_view v03 = a2a::normalTaskState(text);
  const bool known = v03 != "unknown";
  if (known && text.starts_with("TASK_STATE_")) {
    return;
  }
  out.push_back(
      {kA2aV1TaskState, path,
       known ? "state " + shown(state) + " is the v0.3 spelling; v1.0 writes \"" +
                   v10Spelling("TASK_STATE_", v03) + "\""
             : "state must be a TASK_STATE_* name (TASK_STATE_SUBMITTED, TASK_STATE_WORKING, "
               "TASK_STATE_COMPLETED, ...), got " +
                   shown(state)});
}

void checkStatus(const Json* status, const JsonPath& path, std::vector<LintFinding>& out) {
  if (status == nullptr || !status->is_object()) {
    out.push_back({kA2aV1TaskState, path,
                   "status must be an object {state, message?, timestamp?}, got " + shown(status)});
    return;
  }
  checkTaskState(findMember(*status, "state"), child(path, "state"), out);
  if (const Json* message = findMember(*status, "message")) {
    checkMessage(message, child(path, "message"), out);
  }
}

void checkArtifact(const Json* artifact, const JsonPath& path, std::vector<LintFinding>& out) {
  if (artifact == nullptr || !artifact->is_object()) {
    out.push_back(
        {kA2aV1Artifact, path,
         "An Artifact must be an object {artifactId, parts, ...}, got " + shown(artifact)});
    return;
  }
  checkNoKind(*artifact, path, out);
  checkParts(*artifact, path, out);
}

void checkTask(const Json& task, const JsonPath& path, std::vector<LintFinding>& out) {
  if (!task.is_object()) {
    out.push_back(
        {kA2aV1Result, path, "A Task must be an object {id, status, ...}, got " + shown(&task)});
    return;
  }
  checkNoKind(task, path, out);
  const Json* id = findMember(task, "id");
  if (id == nullptr || !id->is_string()) {
    out.push_back(
        {kA2aV1TaskId, child(path, "id"), "A Task's id must be a string, got " + shown(id)});
  }
  checkStatus(findMember(task, "status"), child(path, "status"), out);
  if (const Json* history = findMember(task, "history")) {
    if (!history->is_array()) {
      out.push_back({kA2aV1Message, child(path, "history"),
                     "history must be an array of Messages, got " + shown(history)});
    } else {
      for (std::size_t i = 0; i < history->size(); ++i) {
        checkMessage(&(*history)[i], child(child(path, "history"), static_cast<std::int64_t>(i)),
                     out);
      }
    }
  }
  if (const Json* artifacts = findMember(task, "artifacts")) {
    if (!artifacts->is_array()) {
      out.push_back({kA2aV1Artifact, child(path, "artifacts"),
                     "artifacts must be an array of Artifacts, got " + shown(artifacts)});
    } else {
      for (std::size_t i = 0; i < artifacts->size(); ++i) {
        checkArtifact(&(*artifacts)[i],
                      child(child(path, "artifacts"), static_cast<std::int64_t>(i)), out);
      }
    }
  }
}

/// A result wrapped in exactly one of `wrappers` ({"task": Task}, {"statusUpdate": ...}), the
/// wrapped value checked as the object its member names.
void checkWrapped(std::string_view method, const Json& result, const JsonPath& path,
                  std::initializer_list<const char*> wrappers, std::vector<LintFinding>& out) {
  std::string expected;
  std::vector<std::string> present;
  for (const char* wrapper : wrappers) {
    expected += (expected.empty() ? "{\"" : " or {\"") + std::string(wrapper) + "\": ...}";
    if (findMember(result, wrapper) != nullptr) {
      present.emplace_back(wrapper);
    }
  }
  if (present.size() != 1) {
    std::string got;
    for (const std::string& wrapper : present) {
      got += (got.empty() ? "" : " and ") + wrapper;
    }
    if (present.empty() && result.is_object()) {
      for (const auto& [key, ignored] : result.items()) {
        got += (got.empty() ? "members " : ", ") + key;
      }
      if (got.empty()) {
        got = "an empty object";
      }
    }
    out.push_back({kA2aV1Result, path,
                   std::string(method) + " result must be exactly one of " + expected + ", got " +
                       (got.empty() ? shown(&result) : got)});
  }
  checkNoKind(result, path, out);
  if (present.size() != 1) {
    return;
  }
  const std::string& name = present[0];
  const Json& value = result[name];
  const JsonPath at = child(path, name);
  if (name == "task") {
    checkTask(value, at, out);
  } else if (name == "message") {
    checkMessage(&value, at, out);
  } else if (!value.is_object()) {
    out.push_back({kA2aV1Result, at, name + " must be an object, got " + shown(&value)});
  } else if (name == "statusUpdate") {
    checkNoKind(value, at, out);
    checkStatus(findMember(value, "status"), child(at, "status"), out);
  } else {
    checkNoKind(value, at, out);
    checkArtifact(findMember(value, "artifact"), child(at, "artifact"), out);
  }
}

/// The result of a v1.0 method, by the method's table row in a2a-v1.md. Streaming methods'
/// results are checked as one event: an event-stream body is not linted, but an agent may
/// answer a streaming call with a single JSON response.
void checkV10Result(std::string_view method, const Json& result, const JsonPath& path,
                    std::vector<LintFinding>& out) {
  if (method == "SendMessage") {
    checkWrapped(method, result, path, {"task", "message"}, out);
  } else if (method == "SendStreamingMessage" || method == "SubscribeToTask") {
    checkWrapped(method, result, path, {"task", "message", "statusUpdate", "artifactUpdate"}, out);
  } else if (method == "GetTask" || method == "CancelTask") {
    checkTask(result, path, out);
  } else if (method == "ListTasks") {
    const Json* tasks = findMember(result, "tasks");
    if (tasks == nullptr || !tasks->is_array()) {
      out.push_back({kA2aV1Result, result.is_object() ? child(path, "tasks") : path,
                     "ListTasks result must be an object {tasks: [Task], nextPageToken, ...}, "
                     "got " +
                         (!result.is_object() ? shown(&result)
                          : tasks == nullptr  ? std::string("no tasks member")
                                              : "tasks " + shown(tasks))});
      return;
    }
    for (std::size_t i = 0; i < tasks->size(); ++i) {
      checkTask((*tasks)[i], child(child(path, "tasks"), static_cast<std::int64_t>(i)), out);
    }
  }
}

/// The error of a v1.0 call: `data`, when v1.0 asks for it, an array of detail objects each
/// with an `@type`, one of them a google.rpc.ErrorInfo (the specification's section 9.5).
void checkV10ErrorDetails(const Json& error, const JsonPath& path, std::vector<LintFinding>& out) {
  if (!error.is_object() || !error.contains("code") || !error["code"].is_number_integer() ||
      a2a::errorReason(error["code"].get<int>()).empty()) {
    return;  // not an error v1.0 defines: its details are the agent's own
  }
  const JsonPath at = child(path, "data");
  const Json* data = findMember(error, "data");
  if (data == nullptr || !data->is_array()) {
    out.push_back({kA2aV1ErrorDetails, at,
                   "A v1.0 error carries its details in data, an array with a "
                   "google.rpc.ErrorInfo; got " +
                       shown(data)});
    return;
  }
  bool error_info = false;
  for (std::size_t i = 0; i < data->size(); ++i) {
    const Json* type = findMember((*data)[i], "@type");
    if (type == nullptr || !type->is_string()) {
      out.push_back({kA2aV1ErrorDetails, child(at, static_cast<std::int64_t>(i)),
                     "Each error detail must name its @type"});
      continue;
    }
    error_info = error_info || *type == a2a::kErrorInfoType;
  }
  if (!error_info) {
    out.push_back({kA2aV1ErrorDetails, at,
                   "A v1.0 error's details must hold a google.rpc.ErrorInfo naming its reason"});
  }
}

/// The task a v0.3 method answers (message/send, tasks/get, tasks/cancel): a state of v0.3's
/// enum, artifacts with parts.
void checkV03Task(const Json& task, const JsonPath& path, std::vector<LintFinding>& out) {
  if (!task.is_object() || findMember(task, "kind") == nullptr || task["kind"] != "task") {
    return;  // a Message, or a shape envelope rules already reported
  }
  const Json* status = findMember(task, "status");
  const Json* state = status != nullptr ? findMember(*status, "state") : nullptr;
  const std::string_view text = state != nullptr && state->is_string()
                                    ? std::string_view(state->get_ref<const std::string&>())
                                    : std::string_view();
  if (state != nullptr &&
      (text.starts_with("TASK_STATE_") || a2a::normalTaskState(text) == "unknown")) {
    if (text != "unknown") {
      out.push_back({kA2aTaskState, child(child(path, "status"), "state"),
                     "state must be one of v0.3's (submitted, working, input-required, "
                     "completed, canceled, failed, rejected, auth-required, unknown), got " +
                         shown(state)});
    }
  }
  const Json* artifacts = findMember(task, "artifacts");
  if (artifacts == nullptr || !artifacts->is_array()) {
    return;
  }
  for (std::size_t i = 0; i < artifacts->size(); ++i) {
    const Json* parts = findMember((*artifacts)[i], "parts");
    if (parts == nullptr || !parts->is_array() || parts->empty()) {
      out.push_back({kA2aArtifact,
                     child(child(child(path, "artifacts"), static_cast<std::int64_t>(i)), "parts"),
                     "An artifact must hold a non-empty array of parts, got " + shown(parts)});
    }
  }
}

/// The members of the caller's message that A2A does not define, in either version.
std::vector<std::string> unknownMessageFields(const Json& request) {
  static constexpr std::array<std::string_view, 9> kKnown = {
      "kind",  "messageId", "contextId",  "taskId",          "role",
      "parts", "metadata",  "extensions", "referenceTaskIds"};
  std::vector<std::string> unknown;
  const Json* params = findMember(request, "params");
  const Json* message = params != nullptr ? findMember(*params, "message") : nullptr;
  if (message == nullptr || !message->is_object()) {
    return unknown;
  }
  for (const auto& [key, value] : message->items()) {
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end()) {
      unknown.push_back(key);
    }
  }
  return unknown;
}

/// Every message the answer holds (a result Message, a task's status message and history),
/// reported where it carries one of `unknown`.
void checkNothingEchoed(const Json& value, const JsonPath& path,
                        const std::vector<std::string>& unknown, std::vector<LintFinding>& out) {
  if (value.is_object()) {
    const bool message = value.contains("messageId") && value.contains("parts");
    for (const auto& [key, member] : value.items()) {
      if (message && std::find(unknown.begin(), unknown.end(), key) != unknown.end()) {
        out.push_back({kA2aEchoedUnknownField, child(path, key),
                       "The caller's field " + key +
                           " is not A2A's: the agent must ignore it, not send it back"});
      } else {
        checkNothingEchoed(member, child(path, key), unknown, out);
      }
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      checkNothingEchoed(value[i], child(path, static_cast<std::int64_t>(i)), unknown, out);
    }
  }
}

void checkConfiguration(const Json& configuration, const JsonPath& path,
                        std::vector<LintFinding>& out) {
  if (!configuration.is_object()) {
    out.push_back({kA2aV1Configuration, path,
                   "configuration must be an object, got " + shown(&configuration)});
    return;
  }
  const Json* history = findMember(configuration, "historyLength");
  if (history != nullptr && !(history->is_number_integer() && *history >= 0)) {
    out.push_back({kA2aV1Configuration, child(path, "historyLength"),
                   "historyLength must be a non-negative integer, got " + shown(history)});
  }
  const Json* immediately = findMember(configuration, "returnImmediately");
  if (immediately != nullptr && !immediately->is_boolean()) {
    out.push_back({kA2aV1Configuration, child(path, "returnImmediately"),
                   "returnImmediately must be a boolean, got " + shown(immediately)});
  }
}

/// The params of a request on the v1.0 binding, by the method's table row in a2a-v1.md. A
/// v0.3 method name sent with `A2A-Version: 1.x` is itself the finding: a server routing by
/// the header (as @a2a-js/sdk does) answers it with -32601.
void checkV10Request(const Json& request, const std::string& method, const JsonPath& base,
                     std::string_view version_header, std::vector<LintFinding>& out) {
  if (!a2a::isV10Method(method)) {
    if (a2a::asksForV10(version_header)) {
      const std::string_view renamed = a2a::v10MethodName(method);
      out.push_back({kA2aV1Method, child(base, "method"),
                     "A2A-Version " + std::string(version_header) +
                         " asks for the v1.0 binding, which has no method \"" + method + "\"" +
                         (renamed.empty() ? std::string()
                                          : "; v1.0 calls it \"" + std::string(renamed) + "\"")});
    }
    return;
  }
  const bool send = method == "SendMessage" || method == "SendStreamingMessage";
  const bool by_id = method == "GetTask" || method == "CancelTask" || method == "SubscribeToTask";
  const Json* params = findMember(request, "params");
  if ((!send && !by_id && method != "ListTasks") || (method == "ListTasks" && params == nullptr)) {
    return;  // no params rule for the method, or ListTasks, whose params are all optional
  }
  const JsonPath at = child(base, "params");
  if (params == nullptr || !params->is_object()) {
    out.push_back({kA2aV1Params, at,
                   method + " params must be an object" +
                       (send    ? " {message, configuration?, metadata?}"
                        : by_id ? " {id, ...}"
                                : "") +
                       ", got " + shown(params)});
    return;
  }
  if (send) {
    checkMessage(findMember(*params, "message"), child(at, "message"), out);
    if (const Json* configuration = findMember(*params, "configuration")) {
      checkConfiguration(*configuration, child(at, "configuration"), out);
    }
  } else if (by_id) {
    const Json* id = findMember(*params, "id");
    if (id == nullptr || !id->is_string()) {
      out.push_back({kA2aV1TaskId, child(at, "id"),
                     method + " params.id must be the task id as a string, got " + shown(id)});
    }
  } else {
    const Json* size = findMember(*params, "pageSize");
    if (size != nullptr && !(size->is_number_integer() && *size >= 1 && *size <= 100)) {
      out.push_back({kA2aV1PageSize, child(at, "pageSize"),
                     "pageSize must be an integer from 1 to 100, got " + shown(size)});
    }
    if (const Json* status = findMember(*params, "status")) {
      checkTaskState(status, child(at, "status"), out);
    }
  }
}

void lintRequestObject(const Json& request, const JsonPath& base, std::string_view version_header,
                       std::vector<LintFinding>& out) {
  if (!request.is_object()) {
    out.push_back({kA2aEnvelope, base, "A JSON-RPC request must be an object"});
    return;
  }
  checkVersion(request, base, out);
  auto method = request.find("method");
  if (method == request.end() || !method->is_string()) {
    out.push_back({kA2aMethod, child(base, "method"), "method must be a string"});
  }
  checkId(request, base, false, out);
  if (method != request.end() && method->is_string()) {
    checkV10Request(request, method->get_ref<const std::string&>(), base, version_header, out);
  }
}

void lintResponseObject(const Json& response, const JsonPath& base, std::vector<LintFinding>& out) {
  if (!response.is_object()) {
    out.push_back({kA2aEnvelope, base, "A JSON-RPC response must be an object"});
    return;
  }
  checkVersion(response, base, out);
  checkId(response, base, true, out);
  const bool has_result = response.contains("result");
  auto error = response.find("error");
  if (has_result == (error != response.end())) {
    out.push_back({kA2aResultOrError, base,
                   has_result ? "A response must not carry both result and error"
                              : "A response must carry either result or error"});
  }
  if (error == response.end()) {
    return;
  }
  auto code = error->is_object() ? error->find("code") : error->end();
  if (!error->is_object() || code == error->end() || !code->is_number_integer()) {
    out.push_back(
        {kA2aErrorCode, child(child(base, "error"), "code"), "error.code must be an integer"});
  }
}

template <class LintOne>
std::vector<LintFinding> lintSingleOrBatch(const Json& body, LintOne lint_one) {
  std::vector<LintFinding> out;
  if (body.is_array()) {
    for (std::size_t i = 0; i < body.size(); ++i) {
      lint_one(body[i], JsonPath{PathElement{static_cast<std::int64_t>(i)}}, out);
    }
  } else {
    lint_one(body, JsonPath{}, out);
  }
  return out;
}

/// Equal values of the same JSON type: 1 and "1" differ, and so do 1 and 1.0 (a client that
/// matches ids by their text would not find its call).
bool sameId(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    return a.is_number_integer() == b.is_number_integer() && a == b;
  }
  return a.type() == b.type() && a == b;
}

/// Ids a response may carry: those of the request(s) that expect an answer, and null (the
/// answer to a request whose id could not be read).
std::vector<Json> requestIds(const Json& request) {
  std::vector<Json> ids;
  auto add = [&ids](const Json& r) {
    if (r.is_object() && r.contains("id")) {
      ids.push_back(r["id"]);
    }
  };
  if (request.is_array()) {
    for (const Json& r : request) {
      add(r);
    }
  } else {
    add(request);
  }
  return ids;
}

/// The request object `response` answers: the request itself when it is not a batch (a wrong
/// id is a finding of its own, the answer is still that call's); in a batch, the one with the
/// same id.
const Json* answeredRequest(const Json& request, const Json& response) {
  if (!request.is_array()) {
    return &request;
  }
  const Json* id = findMember(response, "id");
  for (const Json& r : request) {
    if (const Json* asked = findMember(r, "id");
        id != nullptr && asked != nullptr && sameId(*asked, *id)) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<LintFinding> lintA2aRequest(const Json& request, std::string_view a2a_version_header) {
  return lintSingleOrBatch(request, [a2a_version_header](const Json& r, const JsonPath& base,
                                                         std::vector<LintFinding>& out) {
    lintRequestObject(r, base, a2a_version_header, out);
  });
}

std::vector<LintFinding> lintA2aResponse(const Json& response) {
  return lintSingleOrBatch(response, lintResponseObject);
}

std::vector<LintFinding> lintA2aExchange(const Json& request, const Json& response) {
  std::vector<LintFinding> out = lintA2aResponse(response);
  const std::vector<Json> ids = requestIds(request);
  auto check = [&](const Json& r, const JsonPath& base, std::vector<LintFinding>& found) {
    if (!r.is_object() || !r.contains("id") || !validId(r["id"]) || r["id"].is_null()) {
      return;
    }
    for (const Json& id : ids) {
      if (sameId(id, r["id"])) {
        return;
      }
    }
    found.push_back({kA2aIdMismatch, child(base, "id"),
                     "Response id " + r["id"].dump() + " answers no request id of the exchange"});
  };
  // A result is checked against the shape of the method it answers; the method name alone
  // says which results are v1.0 (a v0.3 name under a v1.0 header has no v1.0 shape).
  auto shape = [&](const Json& r, const JsonPath& base, std::vector<LintFinding>& found) {
    const Json* call = answeredRequest(request, r);
    const Json* method = call != nullptr ? findMember(*call, "method") : nullptr;
    if (method == nullptr || !method->is_string()) {
      return;
    }
    const std::string& name = method->get_ref<const std::string&>();
    const bool v10 = a2a::isV10Method(name);
    if (const Json* result = findMember(r, "result")) {
      if (v10) {
        checkV10Result(name, *result, child(base, "result"), found);
      } else {
        checkV03Task(*result, child(base, "result"), found);
      }
      checkNothingEchoed(*result, child(base, "result"), unknownMessageFields(*call), found);
    }
    if (const Json* error = findMember(r, "error"); error != nullptr && v10) {
      checkV10ErrorDetails(*error, child(base, "error"), found);
    }
  };
  auto relate = [&](const Json& r, const JsonPath& base, std::vector<LintFinding>& found) {
    check(r, base, found);
    shape(r, base, found);
  };
  for (LintFinding& f : lintSingleOrBatch(response, relate)) {
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<LintFinding> lintA2aRestRequest(const Json& call) {
  Json envelope = call;
  envelope["jsonrpc"] = "2.0";
  std::vector<LintFinding> out;
  for (LintFinding& finding : lintA2aRequest(envelope, "1.0")) {
    // The binding's body is the params: paths start below them.
    if (!finding.path.empty() && finding.path.front() == PathElement{"params"}) {
      finding.path.erase(finding.path.begin());
    }
    out.push_back(std::move(finding));
  }
  return out;
}

std::vector<LintFinding> lintA2aRestResponse(const Json& call, int http_status,
                                             const Json& response) {
  std::vector<LintFinding> out;
  const Json* method = findMember(call, "method");
  if (method == nullptr || !method->is_string()) {
    return out;
  }
  if (http_status < 400) {
    checkV10Result(method->get_ref<const std::string&>(), response, {}, out);
    checkNothingEchoed(response, {}, unknownMessageFields(call), out);
    return out;
  }
  const Json* status = findMember(response, "error");
  const Json* details = status != nullptr ? findMember(*status, "details") : nullptr;
  bool error_info = false;
  if (details != nullptr && details->is_array()) {
    for (const Json& detail : *details) {
      const Json* type = findMember(detail, "@type");
      error_info = error_info || (type != nullptr && *type == a2a::kErrorInfoType);
    }
  }
  if (!error_info) {
    out.push_back({kA2aV1ErrorDetails, JsonPath{PathElement{"error"}, PathElement{"details"}},
                   "An HTTP+JSON error is {\"error\": google.rpc.Status} whose details hold a "
                   "google.rpc.ErrorInfo naming its reason"});
  }
  return out;
}

}  // namespace agentvcr::protocol::lint
