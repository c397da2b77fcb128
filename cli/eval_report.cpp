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

}  // namespace agentvcr::cli
