#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/validation.hpp"

/// Contract rules that strict validation does not check because they relate one document to
/// another (a decision to the tools and robots its input declared, a JSON-RPC response to its
/// request) or because the models accept the value (say together with tool calls). Pure
/// functions over parsed JSON: `agentvcr lint` feeds them recorded traffic
/// (docs/lint-and-stats.md).
namespace agentvcr::protocol::lint {

/// Stable rule names, as printed by `agentvcr lint`.
inline constexpr const char* kSayWithToolCalls = "say_with_tool_calls";
inline constexpr const char* kUndeclaredTool = "undeclared_tool";
inline constexpr const char* kUnknownRobot = "unknown_robot";
inline constexpr const char* kUnknownArgument = "unknown_argument";
inline constexpr const char* kA2aEnvelope = "a2a_envelope";
inline constexpr const char* kA2aJsonrpcVersion = "a2a_jsonrpc_version";
inline constexpr const char* kA2aMethod = "a2a_method";
inline constexpr const char* kA2aId = "a2a_id";
inline constexpr const char* kA2aResultOrError = "a2a_result_or_error";
inline constexpr const char* kA2aErrorCode = "a2a_error_code";
inline constexpr const char* kA2aIdMismatch = "a2a_id_mismatch";
// A2A v1.0 params and result shapes, on calls whose method is a v1.0 name.
inline constexpr const char* kA2aV1Method = "a2a_v1_method";
inline constexpr const char* kA2aV1Params = "a2a_v1_params";
inline constexpr const char* kA2aV1Message = "a2a_v1_message";
inline constexpr const char* kA2aV1MessageId = "a2a_v1_message_id";
inline constexpr const char* kA2aV1Role = "a2a_v1_role";
inline constexpr const char* kA2aV1Parts = "a2a_v1_parts";
inline constexpr const char* kA2aV1Part = "a2a_v1_part";
inline constexpr const char* kA2aV1Kind = "a2a_v1_kind";
inline constexpr const char* kA2aV1Configuration = "a2a_v1_configuration";
inline constexpr const char* kA2aV1TaskId = "a2a_v1_task_id";
inline constexpr const char* kA2aV1PageSize = "a2a_v1_page_size";
inline constexpr const char* kA2aV1TaskState = "a2a_v1_task_state";
inline constexpr const char* kA2aV1Artifact = "a2a_v1_artifact";
inline constexpr const char* kA2aV1Result = "a2a_v1_result";
inline constexpr const char* kA2aV1ErrorDetails = "a2a_v1_error_details";
// A2A v0.3 result shapes, on calls whose method is a v0.3 name.
inline constexpr const char* kA2aTaskState = "a2a_task_state";
inline constexpr const char* kA2aArtifact = "a2a_artifact";
// Both versions: a field of the caller's message that A2A does not define, sent back.
inline constexpr const char* kA2aEchoedUnknownField = "a2a_echoed_unknown_field";

/// One broken rule: `path` locates the offending value inside the document that was checked.
struct LintFinding {
  std::string rule;
  JsonPath path;
  std::string message;

  bool operator==(const LintFinding&) const = default;
};

/// Rules over one MAGMA candidate (an AgentOutput object) against the AgentInput it answers:
/// say together with tool calls; a tool call to a tool absent from `input.tools`, to a robot
/// absent from `input.attributes.known_robots` (only when that list is present), or with an
/// argument the declared tool does not list. Paths are relative to the AgentOutput object.
/// Parts that are missing or mistyped are skipped: strict validation reports those.
std::vector<LintFinding> lintCandidate(const Json& input, const Json& output);

/// Envelope rules of one JSON-RPC 2.0 request object (or batch array): `jsonrpc` is "2.0",
/// `method` a string, `id` (when present) a string, number or null. For a method of the v1.0
/// binding (a2a::isV10Method), the v1.0 params shapes: SendMessage/SendStreamingMessage a
/// Message (messageId, ROLE_* role, non-empty parts of exactly one of text, raw, url, data, no
/// `kind`) and a well-typed configuration; GetTask/CancelTask/SubscribeToTask a string id;
/// ListTasks a pageSize of 1..100 and a TASK_STATE_* status. `a2a_version_header` is the
/// request's A2A-Version header, empty when absent: a `1.x` header with a method v1.0 does not
/// name (`message/send`) is a kA2aV1Method finding.
std::vector<LintFinding> lintA2aRequest(const Json& request,
                                        std::string_view a2a_version_header = {});

/// Envelope rules of one JSON-RPC 2.0 response object (or batch array): `jsonrpc` is "2.0",
/// `id` a string, number or null, exactly one of `result` and `error`, `error.code` an integer.
std::vector<LintFinding> lintA2aResponse(const Json& response);

/// lintA2aResponse() plus: every response id is the id of a request of the exchange, of the
/// same JSON type (1 and "1" differ); and the result of a v1.0 method has its v1.0 shape:
/// SendMessage `{"task"}` or `{"message"}`, a streaming method one event (`{"task"}`,
/// `{"message"}`, `{"statusUpdate"}`, `{"artifactUpdate"}`), GetTask/CancelTask a Task,
/// ListTasks a `tasks` array; Tasks with a string id and a TASK_STATE_* state, Messages as in
/// lintA2aRequest(), none of these objects with a `kind`. The error of a v1.0 method carries
/// v1.0's details: `data` an array of `@type` objects, a google.rpc.ErrorInfo among them. The
/// task a v0.3 method answers has a v0.3 state and artifacts with parts. In both versions, no
/// message of the answer carries a field of the caller's message that A2A does not define
/// (receivers ignore those). Paths are relative to the response body.
std::vector<LintFinding> lintA2aExchange(const Json& request, const Json& response);

/// The v1.0 rules of one HTTP+JSON exchange: `call` is the JSON-RPC call it stands for
/// (a2a::restCallObject); `response` the body, or one event of a stream. The params shapes as
/// lintA2aRequest() checks them, with paths relative to the request body (the params); a 2xx
/// answer as the result of `call`'s method (lintA2aExchange()); an error as a
/// `{"error": google.rpc.Status}` whose `details` hold an ErrorInfo.
std::vector<LintFinding> lintA2aRestRequest(const Json& call);
std::vector<LintFinding> lintA2aRestResponse(const Json& call, int http_status,
                                             const Json& response);

}  // namespace agentvcr::protocol::lint
