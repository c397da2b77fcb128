#include "agentvcr/cli/eval_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

#include "agentvcr/replay/a2a_compare.hpp"

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

/// The "a2a" object of a report: per context and overall, as the MAGMA steps are reported.
Json a2aReportJson(const std::vector<services::A2aEvalCall>& a2a_calls) {
  Json calls = Json::array();
  std::map<std::int64_t, Json> contexts;
  std::int64_t matched = 0;
  std::int64_t normalised = 0;
  std::int64_t violations = 0;
  std::vector<double> live_ms;
  std::vector<double> recorded_ms;
  for (const auto& call : a2a_calls) {
    Json json{{"conversation_id", call.conversation_id},
              {"message", call.message_number},
              {"recorded_call_id", call.recorded_call_id},
              {"recorded_exchange_id", call.recorded_exchange_id},
              {"eval_conversation_id", call.eval_conversation_id},
              {"match", call.match()},
              {"text_normalised", call.comparison.text_normalised},
              {"differences", call.comparison.differences},
              {"violations", call.comparison.violations}};
    auto& context = contexts[call.conversation_id];
    if (context.is_null()) {
      context = Json{{"conversation_id", call.conversation_id},
                     {"context_id", call.context_id},
                     {"eval_conversation_id", call.eval_conversation_id},
                     {"calls", 0},
                     {"matched", 0},
                     {"first_divergent_message", nullptr},
                     {"first_difference", nullptr}};
    }
    context["calls"] = context["calls"].get<std::int64_t>() + 1;
    if (call.match()) {
      context["matched"] = context["matched"].get<std::int64_t>() + 1;
      ++matched;
    } else if (context["first_divergent_message"].is_null()) {
      context["first_divergent_message"] = call.message_number;
      context["first_difference"] = firstProblem(json);
    }
    normalised += call.comparison.text_normalised ? 1 : 0;
    violations += call.comparison.violations.empty() ? 0 : 1;
    if (call.live_ms) {
      live_ms.push_back(*call.live_ms);
    }
    if (call.recorded_ms) {
      recorded_ms.push_back(*call.recorded_ms);
    }
    calls.push_back(std::move(json));
  }
  Json context_list = Json::array();
  for (auto& [id, context] : contexts) {
    context_list.push_back(std::move(context));
  }
  const auto total = static_cast<std::int64_t>(a2a_calls.size());
  Json overall{
      {"calls", total},
      {"matched", matched},
      {"text_normalised", normalised},
      {"match_rate", total == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(total)},
      {"contract_violations", violations},
      {"latency_ms", {{"live", latencyJson(live_ms)}, {"recorded", latencyJson(recorded_ms)}}}};
  return Json{{"overall", std::move(overall)},
              {"contexts", std::move(context_list)},
              {"calls", std::move(calls)}};
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
  return Json{{"eval_session_id", run.eval_session_id},
              {"agent", agent},
              {"recorded_sessions", run.recorded_sessions},
              {"overall", std::move(overall)},
              {"conversations", std::move(conversation_list)},
              {"steps", std::move(steps)},
              {"a2a", a2aReportJson(run.a2a_calls)}};
}

namespace {

void printMagmaSummary(const Json& report, std::ostream& out) {
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
      << "\n";
}

void printA2aSummary(const Json& a2a, std::ostream& out) {
  out << " A2A context  evaluated as  calls  matched  first divergence\n";
  for (const auto& context : a2a["contexts"]) {
    char line[80];
    std::snprintf(line, sizeof line, "%12lld  %12lld  %5lld  %7lld  ",
                  static_cast<long long>(context["conversation_id"].get<std::int64_t>()),
                  static_cast<long long>(context["eval_conversation_id"].get<std::int64_t>()),
                  static_cast<long long>(context["calls"].get<std::int64_t>()),
                  static_cast<long long>(context["matched"].get<std::int64_t>()));
    out << line;
    if (context["first_divergent_message"].is_null()) {
      out << "-\n";
    } else {
      out << "message " << context["first_divergent_message"].get<std::int64_t>() << ": "
          << context["first_difference"].get<std::string>() << "\n";
    }
  }
  const Json& overall = a2a["overall"];
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f%%", overall["match_rate"].get<double>() * 100);
  out << "A2A overall: " << overall["matched"].get<std::int64_t>() << "/"
      << overall["calls"].get<std::int64_t>() << " calls match (" << rate << ", "
      << overall["text_normalised"].get<std::int64_t>() << " only once text is normalised), "
      << overall["contract_violations"].get<std::int64_t>() << " contract violations\n";
}

bool hasA2a(const Json& report) {
  return report.contains("a2a") && report["a2a"]["overall"]["calls"].get<std::int64_t>() > 0;
}

}  // namespace

void printEvalSummary(const Json& report, std::ostream& out) {
  // An evaluation of A2A contexts alone has no MAGMA table to show.
  if (!hasA2a(report) || report["overall"]["steps"].get<std::int64_t>() > 0) {
    printMagmaSummary(report, out);
  }
  if (hasA2a(report)) {
    printA2aSummary(report["a2a"], out);
  }
  out << "stored as session " << report["eval_session_id"].get<std::int64_t>() << "\n";
}

replay::AgentAnswers answersOf(const services::EvalRun& run) {
  replay::AgentAnswers answers;
  for (const auto& step : run.steps) {
    answers[step.recorded_step_id] = {step.match(), step.violations.empty(), step.live_outputs};
  }
  return answers;
}

replay::AgentAnswers a2aAnswersOf(const services::EvalRun& run) {
  replay::AgentAnswers answers;
  for (const auto& call : run.a2a_calls) {
    answers[call.recorded_call_id] = {call.match(), call.comparison.violations.empty(),
                                      call.live_reply};
  }
  return answers;
}

namespace {

/// Per conversation, each agent's first divergence (`field` of each item of the report's
/// `list`; null where it has none or was not evaluated), by conversation id.
Json firstDivergences(const std::vector<ComparedAgent>& agents, const char* section,
                      const char* list, const char* field) {
  std::map<std::int64_t, Json> by_conversation;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const Json& report = agents[i].report;
    if (report.is_null() || (section[0] != '\0' && !report.contains(section))) {
      continue;
    }
    const Json& items = section[0] == '\0' ? report[list] : report[section][list];
    for (const auto& item : items) {
      Json& firsts = by_conversation[item["conversation_id"].get<std::int64_t>()];
      if (firsts.is_null()) {
        firsts = Json::array();
        for (std::size_t k = 0; k < agents.size(); ++k) {
          firsts.push_back(nullptr);
        }
      }
      firsts[i] = item[field];
    }
  }
  Json conversations = Json::array();
  for (auto& [id, firsts] : by_conversation) {
    conversations.push_back(Json{{"conversation_id", id}, {field, std::move(firsts)}});
  }
  return conversations;
}

/// Each pair of evaluated agents' agreement where they leave the recording, the pairs named by
/// their index in `agents`.
Json agreementJson(const std::vector<ComparedAgent>& agents,
                   replay::AgentAnswers ComparedAgent::*answers, replay::SameAnswers same) {
  std::vector<replay::AgentAnswers> evaluated_answers;
  std::vector<std::size_t> evaluated_index;  // index in `agents` of each evaluated agent
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (!agents[i].report.is_null()) {
      evaluated_answers.push_back(agents[i].*answers);
      evaluated_index.push_back(i);
    }
  }
  Json agreement = Json::array();
  for (const replay::PairAgreement& pair : replay::pairwiseAgreement(evaluated_answers, same)) {
    const auto rate = pair.rate();
    agreement.push_back(
        Json{{"agents", {evaluated_index[pair.first], evaluated_index[pair.second]}},
             {"differing_steps", pair.differing_steps},
             {"agreeing_steps", pair.agreeing_steps},
             {"rate", rate ? Json(*rate) : Json()}});
  }
  return agreement;
}

}  // namespace

Json comparisonReportJson(const std::vector<ComparedAgent>& agents) {
  Json agent_list = Json::array();
  for (const ComparedAgent& agent : agents) {
    agent_list.push_back(agent.report.is_null()
                             ? Json{{"agent", agent.url}, {"refused", agent.refusal}}
                             : Json{{"agent", agent.url}, {"report", agent.report}});
  }
  return Json{
      {"agents", std::move(agent_list)},
      {"conversations", firstDivergences(agents, "", "conversations", "first_divergent_step")},
      {"agreement", agreementJson(agents, &ComparedAgent::answers, replay::sameDecisions)},
      {"a2a_contexts", firstDivergences(agents, "a2a", "contexts", "first_divergent_message")},
      {"a2a_agreement",
       agreementJson(agents, &ComparedAgent::a2a_answers, replay::sameA2aReplies)}};
}

namespace {

/// The first divergence per conversation and agent ("step 3", "message 2"), under `title`.
void printFirstDivergences(const Json& conversations, const char* field, const char* unit,
                           const char* title, std::size_t agent_count, std::ostream& out) {
  out << title << "\nconversation";
  for (std::size_t i = 0; i < agent_count; ++i) {
    out << "  agent " << i + 1;
  }
  out << "\n";
  for (const auto& conversation : conversations) {
    char cell[48];
    std::snprintf(cell, sizeof cell, "%12lld",
                  static_cast<long long>(conversation["conversation_id"].get<std::int64_t>()));
    out << cell;
    for (const auto& first : conversation[field]) {
      const std::string text =
          first.is_null() ? "-" : unit + (" " + std::to_string(first.get<std::int64_t>()));
      std::snprintf(cell, sizeof cell, "  %7s", text.c_str());
      out << cell;
    }
    out << "\n";
  }
}

/// Each pair's agreement where either leaves the recording: the same `what` ("decisions") at
/// so many of the `unit`s ("step") where either differs.
void printAgreement(const Json& agreement, const char* what, const char* unit, const char* title,
                    std::ostream& out) {
  out << title << "\n";
  for (const auto& pair : agreement) {
    out << "agents " << pair["agents"][0].get<std::size_t>() + 1 << " and "
        << pair["agents"][1].get<std::size_t>() + 1 << ": ";
    const auto differing = pair["differing_steps"].get<std::int64_t>();
    if (differing == 0) {
      out << "both match the recording at every " << unit << "\n";
      continue;
    }
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f%%", pair["rate"].get<double>() * 100);
    out << "the same " << what << " at " << pair["agreeing_steps"].get<std::int64_t>() << " of "
        << differing << " " << unit << "s where either differs (" << rate << ")\n";
  }
}

}  // namespace

void printComparison(const Json& comparison, std::ostream& out) {
  const Json& agents = comparison["agents"];
  out << "agent  steps  matched    rate  violations  errors  first byte p50      p95  session  "
         "url\n";
  bool any_a2a = false;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const Json& agent = agents[i];
    char line[160];
    if (!agent.contains("report")) {
      std::snprintf(line, sizeof line, "%5zu  not evaluated: ", i + 1);
      out << line << agent["refused"].get<std::string>() << "  "
          << agent["agent"].get<std::string>() << "\n";
      continue;
    }
    any_a2a = any_a2a || hasA2a(agent["report"]);
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
  printFirstDivergences(comparison["conversations"], "first_divergent_step", "step",
                        "first divergent step", agents.size(), out);
  printAgreement(comparison["agreement"], "decisions", "step",
                 "agreement where they leave the recording", out);
  if (!any_a2a) {
    return;
  }
  out << "A2A agent  calls  matched    rate  violations  first byte p50      p95\n";
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (!agents[i].contains("report")) {
      continue;
    }
    const Json& overall = agents[i]["report"]["a2a"]["overall"];
    const Json& live = overall["latency_ms"]["live"];
    char line[160];
    std::snprintf(line, sizeof line, "%9zu  %5lld  %7lld  %5.1f%%  %10lld  %14s  %7s\n", i + 1,
                  static_cast<long long>(overall["calls"].get<std::int64_t>()),
                  static_cast<long long>(overall["matched"].get<std::int64_t>()),
                  overall["match_rate"].get<double>() * 100,
                  static_cast<long long>(overall["contract_violations"].get<std::int64_t>()),
                  formatMs(live, "p50").c_str(), formatMs(live, "p95").c_str());
    out << line;
  }
  printFirstDivergences(comparison["a2a_contexts"], "first_divergent_message", "message",
                        "first divergent A2A message", agents.size(), out);
  printAgreement(comparison["a2a_agreement"], "answers", "call",
                 "A2A agreement where they leave the recording", out);
}

}  // namespace agentvcr::cli
