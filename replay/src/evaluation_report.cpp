#include "agentvcr/replay/evaluation_report.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "agentvcr/replay/live_answer.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

/// The answer an evaluation exchange stored: what the evaluator judged when it came back.
LiveAnswer storedAnswer(const store::ExchangeRow& exchange) {
  LiveAnswer answer{exchange.request_body, "", exchange.status, exchange.response_body};
  const std::string error = exchange.error.value_or("");
  if (error.starts_with(kNoAnswerErrorPrefix)) {
    answer.client_error = error.substr(kNoAnswerErrorPrefix.size());
  }
  return answer;
}

/// One linked step judged, placed in its recorded conversation.
struct JudgedStep {
  std::int64_t recorded_conversation_id = 0;
  std::int64_t step_number = 0;  ///< 1-based, the recorded conversation's tree order
  std::int64_t evaluated_conversation_id = 0;
  std::int64_t recorded_step_id = 0;
  StepVerdict verdict;
};

/// Judges every step of the session that is linked to a recorded step, reading each stored
/// answer once.
std::vector<JudgedStep> judgeLinkedSteps(const store::ArchiveReader& reader,
                                         std::int64_t session_id) {
  std::map<std::int64_t, CheckedAnswer> answers;  // by evaluation exchange
  std::map<std::int64_t, std::map<std::int64_t, std::int64_t>> step_numbers;
  std::vector<JudgedStep> judged;
  for (const store::StepLink& link : reader.stepLinksOfSession(session_id)) {
    const auto evaluated = reader.step(link.step_id);
    const auto recorded = reader.step(link.recorded_step_id);
    if (!evaluated || !recorded) {
      continue;
    }
    auto answer = answers.find(evaluated->exchange_id);
    if (answer == answers.end()) {
      const auto exchange = reader.exchange(evaluated->exchange_id);
      answer = answers
                   .emplace(evaluated->exchange_id,
                            checkAnswer(exchange ? storedAnswer(*exchange) : LiveAnswer{}))
                   .first;
    }
    auto& numbers = step_numbers[recorded->conversation_id];
    if (numbers.empty()) {
      std::int64_t number = 0;
      for (const store::StepRow& step : reader.steps(recorded->conversation_id)) {
        numbers[step.id] = ++number;
      }
    }
    Json recorded_outputs = Json::array();
    for (const store::CandidateRow& candidate : reader.candidates(recorded->id)) {
      recorded_outputs.push_back(reader.outputJson(candidate.id).value_or(Json::object()));
    }
    judged.push_back({recorded->conversation_id, numbers[recorded->id], evaluated->conversation_id,
                      recorded->id,
                      judgeStep(reader.inputJson(recorded->id).value_or(Json::object()),
                                recorded->source_id, recorded_outputs, answer->second)});
  }
  std::stable_sort(judged.begin(), judged.end(), [](const JudgedStep& a, const JudgedStep& b) {
    return std::pair(a.recorded_conversation_id, a.step_number) <
           std::pair(b.recorded_conversation_id, b.step_number);
  });
  return judged;
}

/// One linked A2A call judged, placed in its recorded context.
struct JudgedCall {
  std::int64_t recorded_conversation_id = 0;
  std::int64_t message_number = 0;  ///< 1-based, among all the recorded context's calls
  std::int64_t evaluated_conversation_id = 0;
  std::int64_t recorded_call_id = 0;
  std::string context_id;
  A2aReplyComparison comparison;
  Json live_reply;  ///< null when no answer was judged
};

/// `live` judged against `recorded` as the evaluator judged it when it came back
/// (services' judgeA2aCall): no answer, or an HTTP error, breaks the contract.
JudgedCall judgeCall(const store::ArchiveReader& reader, const store::A2aCallRow& recorded,
                     const store::A2aCallRow& live) {
  JudgedCall judged;
  const auto exchange = reader.exchange(live.exchange_id);
  const LiveAnswer answer = exchange ? storedAnswer(*exchange) : LiveAnswer{};
  if (!answer.client_error.empty()) {
    judged.comparison.violations.push_back("no answer: " + answer.client_error);
  } else if (answer.status < 200 || answer.status >= 300) {
    judged.comparison.violations.push_back("http " + std::to_string(answer.status));
  } else {
    const A2aReply reply = a2aReplyOf(live);
    judged.comparison = compareA2aReplies(a2aReplyOf(recorded), reply);
    judged.live_reply = toJson(reply);
  }
  return judged;
}

/// Judges every A2A call of the session that is linked to a recorded call, in the recorded
/// contexts' order.
std::vector<JudgedCall> judgeLinkedCalls(const store::ArchiveReader& reader,
                                         std::int64_t session_id) {
  std::map<std::int64_t, std::map<std::int64_t, std::int64_t>> call_numbers;
  std::vector<JudgedCall> judged;
  for (const store::CallLink& link : reader.callLinksOfSession(session_id)) {
    const auto live = reader.a2aCall(link.call_id);
    const auto recorded = reader.a2aCall(link.recorded_call_id);
    if (!live || !recorded || !recorded->conversation_id) {
      continue;
    }
    auto& numbers = call_numbers[*recorded->conversation_id];
    if (numbers.empty()) {
      std::int64_t number = 0;
      for (const store::A2aCallRow& call : reader.a2aCalls(*recorded->conversation_id)) {
        numbers[call.id] = ++number;
      }
    }
    JudgedCall call = judgeCall(reader, *recorded, *live);
    call.recorded_conversation_id = *recorded->conversation_id;
    call.message_number = numbers[recorded->id];
    call.evaluated_conversation_id = live->conversation_id.value_or(0);
    call.recorded_call_id = recorded->id;
    call.context_id = recorded->context_id.value_or("");
    judged.push_back(std::move(call));
  }
  std::stable_sort(judged.begin(), judged.end(), [](const JudgedCall& a, const JudgedCall& b) {
    return std::pair(a.recorded_conversation_id, a.message_number) <
           std::pair(b.recorded_conversation_id, b.message_number);
  });
  return judged;
}

/// Adds the judged A2A calls to `report`, per context and overall, as the report counts them.
void addA2aCalls(const std::vector<JudgedCall>& calls, EvaluationReport& report) {
  for (const JudgedCall& call : calls) {
    if (report.a2a_contexts.empty() ||
        report.a2a_contexts.back().recorded_conversation_id != call.recorded_conversation_id) {
      EvaluatedA2aContext context;
      context.recorded_conversation_id = call.recorded_conversation_id;
      context.evaluated_conversation_id = call.evaluated_conversation_id;
      context.context_id = call.context_id;
      report.a2a_contexts.push_back(std::move(context));
    }
    EvaluatedA2aContext& context = report.a2a_contexts.back();
    ++context.calls;
    ++report.a2a_calls;
    const A2aReplyComparison& comparison = call.comparison;
    if (comparison.match()) {
      ++context.matched;
      ++report.a2a_matched;
    } else if (!context.first_divergent_message) {
      context.first_divergent_message = call.message_number;
      context.first_difference = !comparison.violations.empty()
                                     ? "contract: " + comparison.violations.front()
                                     : comparison.differences.front();
    }
    report.a2a_text_normalised += comparison.text_normalised ? 1 : 0;
    report.a2a_contract_violations += comparison.violations.empty() ? 0 : 1;
    report.a2a_answers[call.recorded_call_id] = {comparison.match(), comparison.violations.empty(),
                                                 call.live_reply};
  }
}

/// As `agentvcr eval` computes it: nothing asked, nothing missed.
double rateOf(std::int64_t matched, std::int64_t steps) {
  return steps == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(steps);
}

}  // namespace

double EvaluatedConversation::matchRate() const {
  return rateOf(matched, steps);
}

double EvaluatedA2aContext::matchRate() const {
  return rateOf(matched, calls);
}

double EvaluationReport::matchRate() const {
  return rateOf(matched, steps);
}

double EvaluationReport::a2aMatchRate() const {
  return rateOf(a2a_matched, a2a_calls);
}

std::optional<EvaluationReport> evaluationReport(const store::ArchiveReader& reader,
                                                 std::int64_t session_id) {
  const auto session = reader.session(session_id);
  if (!session || session->mode != "eval") {
    return std::nullopt;
  }
  EvaluationReport report;
  report.session_id = session_id;
  report.agent = session->upstream;
  for (const JudgedStep& step : judgeLinkedSteps(reader, session_id)) {
    if (report.conversations.empty() ||
        report.conversations.back().recorded_conversation_id != step.recorded_conversation_id) {
      EvaluatedConversation conversation;
      conversation.recorded_conversation_id = step.recorded_conversation_id;
      conversation.evaluated_conversation_id = step.evaluated_conversation_id;
      if (auto recorded = reader.conversation(step.recorded_conversation_id)) {
        conversation.title = recorded->title.value_or("");
      }
      report.conversations.push_back(std::move(conversation));
    }
    EvaluatedConversation& conversation = report.conversations.back();
    ++conversation.steps;
    ++report.steps;
    if (step.verdict.match()) {
      ++conversation.matched;
      ++report.matched;
    } else if (!conversation.first_divergent_step) {
      conversation.first_divergent_step = step.step_number;
      conversation.first_difference = step.verdict.firstProblem();
    }
    report.answers[step.recorded_step_id] = {step.verdict.match(), step.verdict.violations.empty(),
                                             step.verdict.live_outputs};
    report.say_normalised += step.verdict.comparison.say_normalised ? 1 : 0;
    report.contract_violations += step.verdict.violations.empty() ? 0 : 1;
    report.error_candidates += step.verdict.error_candidates;
  }
  addA2aCalls(judgeLinkedCalls(reader, session_id), report);
  return report;
}

EvaluationComparison compareEvaluations(const store::ArchiveReader& reader,
                                        const std::vector<std::int64_t>& session_ids) {
  EvaluationComparison comparison;
  std::vector<AgentAnswers> answers;
  std::vector<AgentAnswers> a2a_answers;
  for (const std::int64_t id : session_ids) {
    auto report = evaluationReport(reader, id);
    if (!report) {
      throw std::invalid_argument("session " + std::to_string(id) + " is not an evaluation");
    }
    answers.push_back(report->answers);
    a2a_answers.push_back(report->a2a_answers);
    comparison.agents.push_back(std::move(*report));
  }
  comparison.agreement = pairwiseAgreement(answers);
  comparison.a2a_agreement = pairwiseAgreement(a2a_answers, sameA2aReplies);
  return comparison;
}

}  // namespace agentvcr::replay
