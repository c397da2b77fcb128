#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/a2a_compare.hpp"
#include "agentvcr/replay/decision_compare.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::services {

/// Raised when the live agent is not one evaluation can ask (its /health or /v1/info is not
/// what BENCH requires): nothing was sent to /v1/responses and nothing was stored.
class EvalRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EvalConfig {
  std::string db_path;
  net::Url agent;  ///< plain http
  /// What to re-ask. Empty: every session that is not itself an evaluation.
  store::ReplaySelection selection;
  unsigned jobs = 1;  ///< concurrent requests to the agent
  /// Send each recorded input as its own request instead of in the recording's batches.
  bool one_by_one = false;
  std::chrono::milliseconds timeout{600'000};
  std::string node;  ///< the node the evaluation session names (empty: the host name)
  /// Appended to the session's name ("eval of session 1, agent 2 of 3"): which of several
  /// compared agents it is. Empty for a lone evaluation.
  std::string label;
  /// RFC 6901 pointers into each output (AgentOutput) left out of both sides of the comparison:
  /// values known to vary from run to run (`agentvcr noise`, the [output] of an ignore file).
  std::vector<std::string> ignored_output_paths;
  /// Called after each answered request with (done, total), from the worker threads.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

/// One recorded step re-asked.
struct EvalStep {
  std::int64_t recorded_session_id = 0;
  std::int64_t conversation_id = 0;  ///< the recorded conversation
  std::int64_t step_number = 0;      ///< 1-based, in the conversation's tree order
  std::int64_t recorded_step_id = 0;
  std::int64_t recorded_exchange_id = 0;
  /// The step of the evaluation session that re-asked it (linked in `step_links`); 0 when the
  /// live request was not stored as steps.
  std::int64_t eval_step_id = 0;
  /// Its conversation, threaded as the recorded one (one per recorded conversation); 0 with
  /// eval_step_id.
  std::int64_t eval_conversation_id = 0;
  replay::StepComparison comparison;
  /// The live outputs compared (replay::StepVerdict::live_outputs).
  protocol::Json live_outputs = protocol::Json::array();
  /// Contract findings of the live answer ("http 500", "not JSON", "/0/status literal_error:
  /// ..."); when not empty the step does not match.
  std::vector<std::string> violations;
  std::int64_t error_candidates = 0;  ///< live candidates with status "error"

  bool match() const { return violations.empty() && comparison.match; }
};

/// One recorded exchange re-asked as one request.
struct EvalExchange {
  std::int64_t recorded_exchange_id = 0;
  /// The agent's time to its first answer byte, from the request fully written to it (the
  /// timing points upstream_sent_ns and upstream_first_byte_ns, docs/schema.md): empty when no
  /// answer came.
  std::optional<double> live_ms;
  /// The same span of the recorded exchange: empty when the recording has no such points (an
  /// answer agentvcr gave itself, a row older than schema 11).
  std::optional<double> recorded_ms;
};

/// One recorded A2A call (message/send or SendMessage) sent again to the live agent.
struct A2aEvalCall {
  std::int64_t recorded_session_id = 0;
  std::int64_t conversation_id = 0;  ///< the recorded context's conversation
  std::string context_id;            ///< the recorded contextId
  /// 1-based place among all the calls of its context, as `replay --fork-at` counts them.
  std::int64_t message_number = 0;
  std::int64_t recorded_call_id = 0;
  std::int64_t recorded_exchange_id = 0;
  /// The conversation of the evaluation session the live context was threaded into; 0 when the
  /// live call was not stored as an A2A call.
  std::int64_t eval_conversation_id = 0;
  replay::A2aReplyComparison comparison;
  /// What the live agent said (replay::toJson of its A2aReply): what another agent's answer to
  /// the same call is compared with; null when no JSON-RPC answer came.
  protocol::Json live_reply;
  std::optional<double> live_ms;      ///< the agent's time to first byte, as EvalExchange's
  std::optional<double> recorded_ms;  ///< the recorded one

  bool match() const { return comparison.match(); }
};

struct EvalRun {
  std::int64_t eval_session_id = 0;
  std::vector<std::int64_t> recorded_sessions;
  std::vector<EvalStep> steps;  ///< by conversation, then step number
  std::vector<EvalExchange> exchanges;
  /// The recorded A2A contexts' calls, by conversation, then message number.
  std::vector<A2aEvalCall> a2a_calls;
};

/// Checks the agent's /health and /v1/info when the selection holds MAGMA steps (throws
/// EvalRefused), re-asks every recorded MAGMA input of the selection with its recorded
/// exchange's batching and order under a fresh request_id, sends every recorded A2A context's
/// message/send calls again in order under the live agent's ids, validates and compares each
/// answer, and records the live exchanges into the archive as a new session of mode "eval"
/// whose steps are linked one by one to the recorded steps they re-asked
/// (store/step_links.hpp). Archive errors throw std::runtime_error; an
/// ignored output path that is not a JSON pointer throws std::invalid_argument before anything
/// is asked.
EvalRun runEvaluation(const EvalConfig& config);

}  // namespace agentvcr::services
