#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/replay/a2a_compare.hpp"
#include "agentvcr/replay/agent_agreement.hpp"
#include "agentvcr/store/archive_reader.hpp"

/// The report of an `agentvcr eval` run recomputed from the evaluation session it stored
/// (docs/eval.md, In the viewer): what the viewer shows when an evaluation session is opened.
namespace agentvcr::replay {

/// One recorded conversation that was re-asked, with the evaluation's conversation that re-asked
/// it.
struct EvaluatedConversation {
  /// The conversation of the evaluation session that re-asked the recorded conversation: an
  /// evaluation is threaded by its step links, one conversation per recorded conversation of
  /// the same shape, whatever memories the live agent returned (store/reindex.hpp).
  std::int64_t evaluated_conversation_id = 0;
  std::int64_t recorded_conversation_id = 0;
  std::string title;  ///< the recorded conversation's title; empty when it has none
  std::int64_t steps = 0;
  std::int64_t matched = 0;
  /// 1-based, tree order as `agentvcr show` numbers them (in the recorded conversation);
  /// empty when every step matched.
  std::optional<std::int64_t> first_divergent_step;
  /// "contract: <first violation>" or the first difference of the first divergent step, as the
  /// evaluator words them; empty when every step matched.
  std::string first_difference;

  /// matched / steps; 1 when there are no steps.
  double matchRate() const;
};

/// One recorded A2A context whose messages were asked again, with the evaluation's context that
/// asked them.
struct EvaluatedA2aContext {
  std::int64_t evaluated_conversation_id = 0;
  std::int64_t recorded_conversation_id = 0;
  std::string context_id;  ///< the recorded context's contextId; empty when it has none
  std::int64_t calls = 0;
  std::int64_t matched = 0;
  /// The first divergent call's 1-based place among all the recorded context's calls, as the
  /// evaluator numbers it; empty when every call matched.
  std::optional<std::int64_t> first_divergent_message;
  /// "contract: <first violation>" or the first difference, as the evaluator words them.
  std::string first_difference;

  /// matched / calls; 1 when there are no calls.
  double matchRate() const;
};

/// The figures of `agentvcr eval`'s report (docs/eval.md, Report) but the latencies.
struct EvaluationReport {
  std::int64_t session_id = 0;
  std::string agent;  ///< the live agent's URL: the session's upstream
  std::int64_t steps = 0, matched = 0, say_normalised = 0, contract_violations = 0,
               error_candidates = 0;
  /// By recorded conversation id, as the evaluator lists them.
  std::vector<EvaluatedConversation> conversations;
  /// Each judged step's answer, by recorded step id: what agents are compared by.
  AgentAnswers answers;
  /// The A2A calls asked again ("a2a" of the report): contract_violations counts the calls
  /// that broke the contract.
  std::int64_t a2a_calls = 0, a2a_matched = 0, a2a_text_normalised = 0, a2a_contract_violations = 0;
  /// By recorded conversation id, as the evaluator lists them.
  std::vector<EvaluatedA2aContext> a2a_contexts;
  /// Each judged call's answer (replay::toJson of the live reply), by recorded call id.
  AgentAnswers a2a_answers;
  /// matched / steps; 1 when there are no steps.
  double matchRate() const;
  /// a2a_matched / a2a_calls; 1 when there are no calls.
  double a2aMatchRate() const;
};

/// Several evaluations of the same recorded inputs, side by side: one agent each.
struct EvaluationComparison {
  std::vector<EvaluationReport> agents;
  /// Every pair of agents, by their index in `agents` (pairwiseAgreement).
  std::vector<PairAgreement> agreement;
  /// The same over their A2A answers, compared by sameA2aReplies as the terminal does.
  std::vector<PairAgreement> a2a_agreement;
};

/// nullopt when the session is not an evaluation (mode "eval").
///
/// Every step of the session linked to a recorded step (step_links) is judged again as the
/// evaluator judged it (live_answer.hpp): the stored answer of its exchange checked against the
/// contract, and the recorded input's recorded outputs compared with the stored live outputs.
/// The figures then equal those `agentvcr eval` printed for the run, with two exceptions the
/// archive cannot know of: the `[output]` paths of an `--ignore-file` given at eval time are
/// not ignored here (so a step that matched only thanks to them differs), and a re-asked step
/// the evaluator could not store (its eval_step_id was 0) is missing. Archive errors throw
/// std::runtime_error.
///
/// Every A2A call of the session linked to a recorded call (call_links) is judged again the same
/// way (a2a_compare.hpp): a stored answer that never came, or came with an HTTP error status,
/// breaks the contract; otherwise the recorded call's reply is compared with the live call's. A
/// live answer the archive could not decode into a call has no link and is missing here.
std::optional<EvaluationReport> evaluationReport(const store::ArchiveReader& reader,
                                                 std::int64_t session_id);

/// The reports of `session_ids` (each an evaluation session, in the order given) and how the
/// agents agree where they leave the recording: what `agentvcr eval --agent A --agent B ...`
/// printed, recomputed as evaluationReport does. A session that is not an evaluation throws
/// std::invalid_argument naming it; archive errors throw std::runtime_error.
EvaluationComparison compareEvaluations(const store::ArchiveReader& reader,
                                        const std::vector<std::int64_t>& session_ids);

}  // namespace agentvcr::replay
