#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/agent_agreement.hpp"
#include "agentvcr/services/evaluator.hpp"

/// What `agentvcr eval` reports (docs/eval.md, Report): the JSON written by --report and the
/// table printed from it.
namespace agentvcr::cli {

/// The nearest-rank percentile `p` (0..100) of `values`; 0 when there are none.
double percentile(std::vector<double> values, double p);

/// {"eval_session_id","agent","recorded_sessions","overall","conversations","steps","a2a"}, the
/// last {"overall","contexts","calls"} of the recorded A2A contexts.
protocol::Json evalReportJson(const services::EvalRun& run, const std::string& agent);

/// One line per conversation (steps, matched, first divergent step and its first difference),
/// then the overall line.
void printEvalSummary(const protocol::Json& report, std::ostream& out);

/// One compared agent's run, as evalReportJson reports it, and its judged answers.
struct ComparedAgent {
  std::string url;
  protocol::Json report;  ///< evalReportJson; null when the agent could not be evaluated
  std::string refusal;    ///< why it could not be evaluated; empty when it was
  replay::AgentAnswers answers;
  replay::AgentAnswers a2a_answers;  ///< by recorded A2A call id
};

/// The answers of a run by recorded step id (replay/agent_agreement.hpp).
replay::AgentAnswers answersOf(const services::EvalRun& run);
/// The A2A answers of a run by recorded call id, their outputs replay::toJson(A2aReply).
replay::AgentAnswers a2aAnswersOf(const services::EvalRun& run);

/// {"agents": [{"agent", "report" | "refused"}...], "conversations": [{"conversation_id",
/// "first_divergent_step": [per agent]}], "agreement": [{"agents": [i, j], "differing_steps",
/// "agreeing_steps", "rate"}], "a2a_contexts": [{"conversation_id", "first_divergent_message":
/// [per agent]}], "a2a_agreement": [as "agreement", counting A2A calls]}: several agents asked
/// the same recorded inputs (docs/eval.md, Comparing agents).
protocol::Json comparisonReportJson(const std::vector<ComparedAgent>& agents);

/// One line per agent (rate, violations, error candidates, time to first byte, session), the
/// first divergent step per conversation and agent, then each pair's agreement where they leave
/// the recording.
void printComparison(const protocol::Json& comparison, std::ostream& out);

}  // namespace agentvcr::cli
