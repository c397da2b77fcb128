#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/sim/magma/rule_match.hpp"
#include "agentvcr/sim/magma/script.hpp"

namespace agentvcr::sim::magma {

/// The most candidates one request may ask for (sum of num_outputs); more is a 422.
inline constexpr std::int64_t kMaxCandidatesPerRequest = 1024;

/// A deterministic MAGMA agent driven by a script, behaving like the reference full-history
/// agent: it keeps `memory.history`, answers every input of a batch in contract order, and
/// never mixes say and tool calls. No I/O: each call maps request bytes to reply bytes.
///
/// Decisions depend only on the input and the candidate index, so the same request always
/// gives the same bytes. Immutable after construction: every method may be called from any
/// number of threads at once.
class ScriptedAgent {
 public:
  /// A loaded agent, or why the script is not usable.
  struct Load;

  explicit ScriptedAgent(Script script);

  /// Loads a script document (see script.hpp and fixtures/demo/README.md). Never throws.
  static Load fromJson(const protocol::Json& script);

  /// parseJson + fromJson.
  static Load fromText(std::string_view script_text);

  /// GET /health: 200 `{"status":"ready"}`.
  protocol::HttpReply health() const;

  /// GET /v1/info: 200 with the script's identity, in model order.
  protocol::HttpReply info() const;

  /// POST /v1/responses. 422 with a FastAPI `detail` list when the body is not JSON or not an
  /// AgentRequest; 422 `{"detail":"..."}` for full-history's own memory checks or too many
  /// candidates; otherwise 200 with one candidate per (input, k) in contract order.
  protocol::HttpReply respond(std::string_view request_body) const;

  /// The outputs of a valid request, in contract order (what respond() serialises).
  protocol::magma::AgentResponse answer(const protocol::magma::AgentRequest& request) const;

  /// Candidate `candidate_index` of one input.
  protocol::magma::AgentOutput candidate(const std::string& request_id,
                                         const protocol::magma::AgentInput& input,
                                         std::int64_t candidate_index) const;

  const Script& script() const { return script_; }

 private:
  protocol::magma::AgentOutput candidateFor(const std::string& request_id,
                                            const RuleInput& rule_input,
                                            std::int64_t candidate_index) const;

  Script script_;
};

struct ScriptedAgent::Load {
  std::optional<ScriptedAgent> agent;
  std::string error;
};

}  // namespace agentvcr::sim::magma
