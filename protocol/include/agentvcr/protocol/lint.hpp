#pragma once

#include <string>
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
/// `method` a string, `id` (when present) a string, number or null.
std::vector<LintFinding> lintA2aRequest(const Json& request);

/// Envelope rules of one JSON-RPC 2.0 response object (or batch array): `jsonrpc` is "2.0",
/// `id` a string, number or null, exactly one of `result` and `error`, `error.code` an integer.
std::vector<LintFinding> lintA2aResponse(const Json& response);

/// lintA2aResponse() plus: every response id is the id of a request of the exchange, of the
/// same JSON type (1 and "1" differ). Paths are relative to the response body.
std::vector<LintFinding> lintA2aExchange(const Json& request, const Json& response);

}  // namespace agentvcr::protocol::lint
