#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/decision_compare.hpp"
#include "agentvcr/replay/input_key.hpp"

/// How an evaluation judges a live agent's answer (docs/eval.md, steps 3 and 4): the contract
/// check of one POST /v1/responses answer, then each re-asked step against its recording. One
/// copy for `agentvcr eval`, which judges answers as they arrive, and for the viewer's report,
/// which judges them again from the stored evaluation session.
namespace agentvcr::replay {

/// What the evaluator writes before the client error of a request the agent never answered
/// (the stored exchange's `error`): how the stored session tells that case apart.
inline constexpr std::string_view kNoAnswerErrorPrefix = "[eval.agent] ";

/// What came back for one request of an evaluation.
struct LiveAnswer {
  std::string request_body;  ///< the AgentRequest that was sent
  /// Why no answer came (connection refused, timeout...); empty when one came.
  std::string client_error;
  int status = 0;
  std::string response_body;
};

/// A live answer checked against the contract, its findings charged to the inputs they concern.
class CheckedAnswer {
 public:
  /// Contract violations of the input whose id is `source_id`: those of the whole answer ("no
  /// answer: ...", "http status 500", "response is not JSON", findings not tied to one output)
  /// then those of its own outputs ("/0/status literal_error: ...").
  std::vector<std::string> violationsOf(std::int64_t source_id) const;
  /// The outputs of the response answering that input, in response order (empty when the body
  /// is not a JSON array).
  protocol::Json outputsOf(std::int64_t source_id) const;

 private:
  friend CheckedAnswer checkAnswer(const LiveAnswer& answer);

  protocol::Json body_ = protocol::Json::array();
  std::vector<std::string> shared_findings_;
  std::map<std::int64_t, std::vector<std::string>> findings_of_source_;
};

/// Validates `answer` with the strict response models and the candidate order rule of the
/// request that was sent. A non-2xx status, a body that is not JSON, or a missing answer is a
/// violation of every input of the request.
CheckedAnswer checkAnswer(const LiveAnswer& answer);

/// One re-asked step judged.
struct StepVerdict {
  StepComparison comparison;
  /// The live outputs that were compared: the answer's outputs for this input, without the
  /// ignored parts. What another agent's answer to the same input is compared with
  /// (agent_agreement.hpp).
  protocol::Json live_outputs = protocol::Json::array();
  std::vector<std::string> violations;
  std::int64_t error_candidates = 0;  ///< live candidates with status "error"

  /// No contract violation and the decisions match.
  bool match() const { return violations.empty() && comparison.match; }

  /// What a report names first: "contract: <first violation>", else the first difference;
  /// empty for a match.
  std::string firstProblem() const;
};

/// The recorded input `input` (whose id is `source_id`) and its recorded outputs, judged against
/// the live answer: violations from `answer`, decisions compared with compareDecisions once the
/// `ignored` output parts are taken out of both sides.
StepVerdict judgeStep(const protocol::Json& input, std::int64_t source_id,
                      const protocol::Json& recorded_outputs, const CheckedAnswer& answer,
                      const KeyRules& ignored = {});

}  // namespace agentvcr::replay
