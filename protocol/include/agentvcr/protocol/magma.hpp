#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/validation.hpp"

/// The MAGMA agent HTTP contract, protocol 2.0: typed models and validation exactly as strict
/// as the reference Pydantic models (extra="forbid", strict=True, allow_inf_nan=False).
namespace agentvcr::protocol::magma {

inline constexpr const char* kProtocolVersion = "2.0";

enum class InstructionType { User, Env };

struct Instruction {
  InstructionType type = InstructionType::User;
  std::string content;
};

struct AgentInput {
  std::int64_t id = 0;
  Instruction instruction;
  Json tools = Json::array();        ///< list of free JSON objects
  Json attributes = Json::object();  ///< free JSON object
  Json memory = Json::object();      ///< free JSON object
  std::int64_t num_outputs = 1;
  Json extra_keys = Json::object();  ///< free JSON object
};

struct AgentRequest {
  std::string request_id;
  std::vector<AgentInput> inputs;
};

struct ToolCall {
  std::string name;
  Json arguments = Json::object();
  std::string target_robot_name;
};

struct AgentDecision {
  std::string say;
  std::vector<ToolCall> tool_calls;
};

struct AgentError {
  std::string code;
  std::string message;
  std::optional<std::string> component;
};

enum class OutputStatus { Completed, Error };

struct AgentOutput {
  std::string request_id;
  std::int64_t source_id = 0;
  std::int64_t candidate_index = 0;
  OutputStatus status = OutputStatus::Completed;
  Json memory = Json::object();
  Json internal_steps = Json::array();  ///< list of free JSON objects
  std::optional<AgentDecision> output;
  std::optional<AgentError> error;
};

using AgentResponse = std::vector<AgentOutput>;

struct AgentHealth {
  std::string status = "ready";
};

struct AgentInfo {
  std::string protocol_version = kProtocolVersion;
  std::string agent_id;
  std::string agent_version;
  std::vector<std::string> specialized_coaching;
  bool coaching_resume = false;
  std::optional<std::string> coaching_session_version;
  std::optional<std::string> coaching_unavailable_reason;
  std::map<std::string, bool> capabilities;
};

// --- coaching (magma-core agent_coaching.py) ---

struct CoachingBackendConfig {
  std::string type;
  std::string endpoint;
  std::string default_model;
  std::map<std::string, std::string> headers;
  double timeout = 30;
  std::int64_t max_retry = 3;
};

struct CoachingSessionConfig {
  std::map<std::string, CoachingBackendConfig> backends;
  std::string provider = "llm";  ///< "llm" or "human"
  std::optional<std::string> endpoint;
  double connect_timeout = 10;
  bool capture_logs = true;
};

struct CoachingStage {
  std::int64_t id = 0;
  std::string goal;
  std::optional<std::string> hint;
};

struct CoachingActiveError {
  std::string code;
  std::string description;
  Json details = Json::object();
};

struct CoachingDiagnosis {
  std::string explanation;
  std::optional<std::string> expected_decision;
};

struct CoachingTrajectoryStep {
  std::int64_t id = 0;
  AgentInput input;
  std::optional<AgentDecision> output;
  std::optional<AgentError> error;
  Json internal_steps = Json::array();
  Json execution = Json::object();
};

struct ReinjectionPoint {
  std::string id;
  std::optional<std::int64_t> input_step_id;
  std::optional<AgentInput> input;
};

struct SpecializedCoachingRequest {
  std::string run_id;
  std::string request_id;
  std::string kind;  ///< "failure", "suboptimal" or "format"
  CoachingStage stage;
  std::vector<CoachingActiveError> active_errors;
  std::optional<CoachingDiagnosis> diagnosis;
  std::int64_t target_step_id = 0;
  std::vector<CoachingTrajectoryStep> trajectory;
  std::vector<ReinjectionPoint> reinjection_points;
  Json additional_info = Json::object();
};

struct CoachingLog {
  std::string coaching_type;
  std::string content;
};

struct CoachingProposal {
  std::string reinjection_point_id;
  Json extra_keys = Json::object();
};

struct SpecializedCoachingResponse {
  std::vector<CoachingLog> logs;
  std::string request_id;
  std::string status;  ///< "corrected", "abandoned" or "error"
  std::vector<CoachingProposal> proposals;
  std::optional<std::string> reason;
};

// --- validation ---

struct ValidationOptions {
  /// Reject a decision whose `say` and `tool_calls` are both non-empty (the early 2.0 betas).
  /// Off by default: 2.0.0 validates types only (magma-protocol.md §6).
  bool exclusive_say_and_tool_calls = false;
};

/// Parsers of untrusted bodies: every finding is reported (see validation.hpp), defaults are
/// applied to omitted fields, `X | null` fields take null, free objects are kept as sent.
/// `options` does not change request validation today; it is taken for symmetry.
Parsed<AgentRequest> parseAgentRequest(const Json& body, const ValidationOptions& options = {});
Parsed<AgentInput> parseAgentInput(const Json& body, const ValidationOptions& options = {});

/// Validates a response body on its own (each output) and, when `request` is given, the
/// candidate-order rule against it: for each input in order, k = 0..num_outputs-1, exactly
/// (request_id, input.id, k). Order findings have loc [index] and type "candidate_order".
/// A missing tail is one finding at loc [response size] counting the slots left; the expected
/// slots are never materialised (num_outputs is untrusted).
Parsed<AgentResponse> parseAgentResponse(const Json& body, const AgentRequest* request = nullptr,
                                         const ValidationOptions& options = {});
Parsed<AgentHealth> parseAgentHealth(const Json& body);
Parsed<AgentInfo> parseAgentInfo(const Json& body);
Parsed<CoachingSessionConfig> parseCoachingSessionConfig(const Json& body);
Parsed<SpecializedCoachingRequest> parseSpecializedCoachingRequest(const Json& body);
/// With `request`, also checks request_id equality and that proposals name its points.
Parsed<SpecializedCoachingResponse> parseSpecializedCoachingResponse(
    const Json& body, const SpecializedCoachingRequest* request = nullptr);

// --- serialisation, as the reference FastAPI servers emit it (model order, nulls emitted) ---

/// The JSON of a model with keys in model order, compact, raw UTF-8, numbers as Python writes
/// them: byte for byte what FastAPI sends. Free objects (memory, arguments, internal steps) have
/// their members sorted by key, since Json does not keep the order they were received in.
std::string serializeResponse(const AgentResponse& response);
std::string serializeOutput(const AgentOutput& output);
/// `capabilities` is written with "inference" first, then the other names in byte order: the
/// reference agents' order ({"inference":true,"coaching":...}).
std::string serializeInfo(const AgentInfo& info);
std::string serializeHealth(const AgentHealth& health);
Json toJson(const AgentInput& input);  ///< all six non-id fields plus id
Json toJson(const AgentDecision& decision);
Json toJson(const AgentOutput& output);

// --- keys ---

/// The replay key of an input: canonicalHash of the input without "id" (magma-protocol.md
/// §18.2), over instruction, tools, attributes, memory, num_outputs and extra_keys.
///
/// Defaults are filled in first, so that an omitted field and its default spelled out (no
/// "tools" vs "tools":[], no "num_outputs" vs 1) give the same key: the raw overload parses the
/// object as an AgentInput (with any "id" replaced by a placeholder, since the id never counts)
/// and, when that succeeds, returns the key of the parsed input. Any other value (not an
/// object, or not a valid AgentInput) falls back to the canonical hash of the raw value without
/// "id". Defined for every JSON value; never throws.
std::uint64_t replayKey(const Json& input_json);
/// canonicalHash(toJson(input) without "id").
std::uint64_t replayKey(const AgentInput& input);
/// replayKey(input), given the canonicalJson() texts of input.tools, input.attributes,
/// input.memory and input.extra_keys (which callers that store them have at hand already):
/// the key's canonical text is assembled from them instead of re-serializing the input.
std::uint64_t replayKey(const AgentInput& input, std::string_view tools_text,
                        std::string_view attributes_text, std::string_view memory_text,
                        std::string_view extra_keys_text);

/// The MAGMA route a request addresses, from method and path (query string ignored).
enum class Route {
  None,            ///< not a MAGMA route: plain HTTP
  Health,          ///< GET /health
  Info,            ///< GET /v1/info
  Responses,       ///< POST /v1/responses
  CoachingPut,     ///< PUT /v1/coaching/sessions/{run_id}
  CoachingDelete,  ///< DELETE /v1/coaching/sessions/{run_id}
  Coaching,        ///< POST /v1/coaching
};

/// Methods are case-sensitive; paths match exactly (no trailing slash); an absolute-form target
/// ("http://host/v1/responses") is reduced to its path; query and fragment are ignored; a
/// session route needs a non-empty run_id without '/'.
Route routeOf(std::string_view method, std::string_view target);
/// Stable snake_case names: "none", "health", "info", "responses", "coaching_put",
/// "coaching_delete", "coaching".
const char* routeName(Route route);

}  // namespace agentvcr::protocol::magma
