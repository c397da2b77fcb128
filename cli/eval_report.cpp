#include "agentvcr/cli/eval_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

namespace agentvcr::cli {
namespace {

using protocol::Json;

Json stepJson(const services::EvalStep& step) {
  return Json{{"conversation_id", step.conversation_id},
              {"step", step.step_number},
              {"recorded_step_id", step.recorded_step_id},
              {"recorded_exchange_id", step.recorded_exchange_id},
              {"eval_step_id", step.eval_step_id},
              {"eval_conversation_id", step.eval_conversation_id},
              {"match", step.match()},
              {"say_normalised", step.comparison.say_normalised},
              {"differences", step.comparison.allDifferences()},
              {"violations", step.violations},
              {"error_candidates", step.error_candidates}};
}

Json latencyJson(std::vector<double> values) {
  if (values.empty()) {
    return nullptr;
  }
  return Json{{"p50", percentile(values, 50)}, {"p95", percentile(values, 95)}};
}

std::string firstProblem(const Json& step) {
  if (!step["violations"].empty()) {
    return "contract: " + step["violations"][0].get<std::string>();
  }
  if (!step["differences"].empty()) {
    return step["differences"][0].get<std::string>();
  }
  return "";
}

std::string formatMs(const Json& latency, const char* key) {
  if (latency.is_null()) {
    return "-";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", latency[key].get<double>());
  return text;
}

}  // namespace

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

Json evalReportJson(const services::EvalRun& run, const std::string& agent) {
  Json steps = Json::array();
  std::map<std::int64_t, Json> conversations;
  std::int64_t matched = 0;
  std::int64_t normalised = 0;
  std::int64_t violations = 0;
  std::int64_t error_candidates = 0;
  for (const auto& step : run.steps) {
    Json json = stepJson(step);
    auto& conversation = conversations[step.conversation_id];
    if (conversation.is_null()) {
      conversation = Json{{"conversation_id", step.conversation_id},
                          {"eval_conversation_id", step.eval_conversation_id},
                          {"steps", 0},
                          {"matched", 0},
                          {"first_divergent_step", nullptr},
                          {"first_difference", nullptr}};
    }
    conversation["steps"] = conversation["steps"].get<std::int64_t>() + 1;
    if (step.match()) {
      conversation["matched"] = conversation["matched"].get<std::int64_t>() + 1;
      ++matched;
    } else if (conversation["first_divergent_step"].is_null()) {
      conversation["first_divergent_step"] = step.step_number;
      conversation["first_difference"] = firstProblem(json);
    }
    normalised += step.comparison.say_normalised ? 1 : 0;
    violations += step.violations.empty() ? 0 : 1;
    error_candidates += step.error_candidates;
    steps.push_back(std::move(json));
  }
  std::vector<double> live_ms;
  std::vector<double> recorded_ms;
  for (const auto& exchange : run.exchanges) {
    if (exchange.live_ms) {
      live_ms.push_back(*exchange.live_ms);
    }
    if (exchange.recorded_ms) {
      recorded_ms.push_back(*exchange.recorded_ms);
    }
  }
  Json conversation_list = Json::array();
  for (auto& [id, conversation] : conversations) {
    conversation_list.push_back(std::move(conversation));
  }
  const auto total = static_cast<std::int64_t>(run.steps.size());
  Json overall{
      {"steps", total},
      {"matched", matched},
      {"say_normalised", normalised},
      {"match_rate", total == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(total)},
      {"contract_violations", violations},
      {"error_candidates", error_candidates},
      {"requests", run.exchanges.size()},
      {"latency_ms", {{"live", latencyJson(live_ms)}, {"recorded", latencyJson(recorded_ms)}}}};
  return Json{{"eval_session_id", run.eval_session_id},        {"agent", agent},
              {"recorded_sessions", run.recorded_sessions},    {"overall", std::move(overall)},
              {"conversations", std::move(conversation_list)}, {"steps", std::move(steps)}};
}

void printEvalSummary(const Json& report, std::ostream& out) {
  out << "conversation  evaluated as  steps  matched  first divergence\n";
  for (const auto& conversation : report["conversations"]) {
    char line[80];
    std::snprintf(line, sizeof line, "%12lld  %12lld  %5lld  %7lld  ",
                  static_cast<long long>(conversation["conversation_id"].get<std::int64_t>()),
                  static_cast<long long>(conversation["eval_conversation_id"].get<std::int64_t>()),
                  static_cast<long long>(conversation["steps"].get<std::int64_t>()),
                  static_cast<long long>(conversation["matched"].get<std::int64_t>()));
    out << line;
    if (conversation["first_divergent_step"].is_null()) {
      out << "-\n";
    } else {
      out << "step " << conversation["first_divergent_step"].get<std::int64_t>() << ": "
          << conversation["first_difference"].get<std::string>() << "\n";
    }
  }
  const Json& overall = report["overall"];
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f%%", overall["match_rate"].get<double>() * 100);
  const Json& latency = overall["latency_ms"];
  out << "overall: " << overall["matched"].get<std::int64_t>() << "/"
      << overall["steps"].get<std::int64_t>() << " steps match (" << rate << ", "
      << overall["say_normalised"].get<std::int64_t>() << " only once say is normalised), "
      << overall["contract_violations"].get<std::int64_t>() << " contract violations, "
      << overall["error_candidates"].get<std::int64_t>() << " error candidates\n"
      << "agent's time to first byte: live p50 " << formatMs(latency["live"], "p50") << ", p95 "
      << formatMs(latency["live"], "p95") << "; recorded p50 "
      << formatMs(latency["recorded"], "p50") << ", p95 " << formatMs(latency["recorded"], "p95")
      << "\n"
      << "stored as session " << report["eval_session_id"].get<std::int64_t>() << "\n";
}

replay::AgentAnswers answersOf(const services::EvalRun& run) {
  replay::AgentAnswers answers;
  for (const auto& step : run.steps) {
    answers[step.recorded_step_id] = {step.match(), step.violations.empty(), step.live_outputs};
  }
  return answers;
}

Json comparisonReportJson(const std::vector<ComparedAgent>& agents) {
  Json agent_list = Json::array();
  // conversation id -> first divergent step of each agent (null: none, or not evaluated)
  std::map<std::int64_t, Json> first_divergent;
  std::vector<replay::AgentAnswers> evaluated_answers;
  std::vector<std::size_t> evaluated_index;  // index in `agents` of each evaluated agent
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const ComparedAgent& agent = agents[i];
    if (agent.report.is_null()) {
      agent_list.push_back(Json{{"agent", agent.url}, {"refused", agent.refusal}});
      continue;
    }
    agent_list.push_back(Json{{"agent", agent.url}, {"report", agent.report}});
    for (const auto& conversation : agent.report["conversations"]) {
      Json& steps = first_divergent[conversation["conversation_id"].get<std::int64_t>()];
      if (steps.is_null()) {
        steps = Json::array();
        for (std::size_t k = 0; k < agents.size(); ++k) {
          steps.push_back(nullptr);
        }
      }
      steps[i] = conversation["first_divergent_step"];
    }
    evaluated_answers.push_back(agent.answers);
    evaluated_index.push_back(i);
  }
  Json conversations = Json::array();
  for (auto& [id, steps] : first_divergent) {
    conversations.push_back(Json{{"conversation_id", id}, {"first_divergent_step", steps}});
  }
  Json agreement = Json::array();
  for (const replay::PairAgreement& pair : replay::pairwiseAgreement(evaluated_answers)) {
    const auto rate = pair.rate();
    agreement.push_back(
        Json{{"agents", {evaluated_index[pair.first], evaluated_index[pair.second]}},
             {"differing_steps", pair.differing_steps},
             {"agreeing_steps", pair.agreeing_steps},
             {"rate", rate ? Json(*rate) : Json()}});
  }
  return Json{{"agents", std::move(agent_list)},
              {"conversations", std::move(conversations)},
              {"agreement", std::move(agreement)}};
}

void printComparison(const Json& comparison, std::ostream& out) {
  const Json& agents = comparison["agents"];
  out << "agent  steps  matched    rate  violations  errors  first byte p50      p95  session  "
         "url\n";
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const Json& agent = agents[i];
    char line[160];
    if (!agent.contains("report")) {
      std::snprintf(line, sizeof line, "%5zu  not evaluated: ", i + 1);
      out << line << agent["refused"].get<std::string>() << "  "
          << agent["agent"].get<std::string>() << "\n";
      continue;
    }
    const Json& overall = agent["report"]["overall"];
    const Json& live = overall["latency_ms"]["live"];
    std::snprintf(line, sizeof line,
                  "%5zu  %5lld  %7lld  %5.1f%%  %10lld  %6lld  %14s  %7s  %7lld  ", i + 1,
                  static_cast<long long>(overall["steps"].get<std::int64_t>()),
                  static_cast<long long>(overall["matched"].get<std::int64_t>()),
                  overall["match_rate"].get<double>() * 100,
                  static_cast<long long>(overall["contract_violations"].get<std::int64_t>()),
                  static_cast<long long>(overall["error_candidates"].get<std::int64_t>()),
                  formatMs(live, "p50").c_str(), formatMs(live, "p95").c_str(),
                  static_cast<long long>(agent["report"]["eval_session_id"].get<std::int64_t>()));
    out << line << agent["agent"].get<std::string>() << "\n";
  }
  out << "first divergent step\nconversation";
  for (std::size_t i = 0; i < agents.size(); ++i) {
    out << "  agent " << i + 1;
  }
  out << "\n";
  for (const auto& conversation : comparison["conversations"]) {
    char cell[32];
    std::snprintf(cell, sizeof cell, "%12lld",
                  static_cast<long long>(conversation["conversation_id"].get<std::int64_t>()));
    out << cell;
    for (const auto& step : conversation["first_divergent_step"]) {
      std::snprintf(
          cell, sizeof cell, "  %7s",
          step.is_null() ? "-" : ("step " + std::to_string(step.get<std::int64_t>())).c_str());
      out << cell;
    }
    out << "\n";
  }
  out << "agreement where they leave the recording\n";
  for (const auto& pair : comparison["agreement"]) {
    out << "agents " << pair["agents"][0].get<std::size_t>() + 1 << " and "
        << pair["agents"][1].get<std::size_t>() + 1 << ": ";
    const auto differing = pair["differing_steps"].get<std::int64_t>();
    if (differing == 0) {
      out << "both match the recording at every step\n";
      continue;
    }
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f%%", pair["rate"].get<double>() * 100);
    out << "the same decisions at " << pair["agreeing_steps"].get<std::int64_t>() << " of "
        << differing << " steps where either differs (" << rate << ")\n";
  }
}

}  // namespace agentvcr::cli
