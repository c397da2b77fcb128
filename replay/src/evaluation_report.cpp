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

/// As `agentvcr eval` computes it: nothing asked, nothing missed.
double rateOf(std::int64_t matched, std::int64_t steps) {
  return steps == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(steps);
}

}  // namespace

double EvaluatedConversation::matchRate() const {
  return rateOf(matched, steps);
}

double EvaluationReport::matchRate() const {
  return rateOf(matched, steps);
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
  return report;
}

EvaluationComparison compareEvaluations(const store::ArchiveReader& reader,
                                        const std::vector<std::int64_t>& session_ids) {
  EvaluationComparison comparison;
  std::vector<AgentAnswers> answers;
  for (const std::int64_t id : session_ids) {
    auto report = evaluationReport(reader, id);
    if (!report) {
      throw std::invalid_argument("session " + std::to_string(id) + " is not an evaluation");
    }
    answers.push_back(report->answers);
    comparison.agents.push_back(std::move(*report));
  }
  comparison.agreement = pairwiseAgreement(answers);
  return comparison;
}

}  // namespace agentvcr::replay
