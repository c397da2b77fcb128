#include "agentvcr/cli/eval_command.hpp"

#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/eval_report.hpp"
#include "agentvcr/replay/ignore_file.hpp"

namespace agentvcr::cli {
namespace {

/// Why `report` fails the gate: "the agent broke the contract", "match rate under 0.9", ...;
/// empty when it passes.
std::string failureOf(const protocol::Json& report, const std::optional<double>& fail_under) {
  const auto& overall = report["overall"];
  const auto& a2a = report["a2a"]["overall"];
  if (overall["contract_violations"].get<std::int64_t>() > 0 ||
      a2a["contract_violations"].get<std::int64_t>() > 0) {
    return "the agent broke the contract";
  }
  // The A2A calls are held to the same rate as the MAGMA steps.
  if (a2a["match_rate"].get<double>() < fail_under.value_or(1.0)) {
    if (fail_under) {
      std::ostringstream text;
      text << "A2A match rate under " << *fail_under;
      return text.str();
    }
    const auto calls = a2a["calls"].get<std::int64_t>();
    return std::to_string(calls - a2a["matched"].get<std::int64_t>()) + " of " +
           std::to_string(calls) +
           " A2A calls differ (--fail-under RATE accepts a lower match rate)";
  }
  // Every step must match unless --fail-under accepts a lower rate.
  if (overall["match_rate"].get<double>() >= fail_under.value_or(1.0)) {
    return "";
  }
  if (fail_under) {
    std::ostringstream text;
    text << "match rate under " << *fail_under;
    return text.str();
  }
  const auto steps = overall["steps"].get<std::int64_t>();
  return std::to_string(steps - overall["matched"].get<std::int64_t>()) + " of " +
         std::to_string(steps) + " steps differ (--fail-under RATE accepts a lower match rate)";
}

/// One overwritten progress line: the workers report concurrently.
std::function<void(std::size_t, std::size_t)> progressLine(std::ostream& out, std::mutex& mutex,
                                                           const std::string& what) {
  return [&out, &mutex, what](std::size_t done, std::size_t total) {
    std::lock_guard<std::mutex> lock(mutex);
    out << "\ragentvcr eval: " << what << done << "/" << total << " requests" << std::flush;
    if (done == total) {
      out << "\n";
    }
  };
}

bool writeReport(const std::string& path, const protocol::Json& report, std::ostream& out) {
  if (path.empty()) {
    return true;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << report.dump(2) << "\n";
  if (!file) {
    out << "agentvcr eval: cannot write " << path << std::endl;
    return false;
  }
  return true;
}

int evaluateOne(const EvalCommand& command, std::ostream& out) {
  services::EvalConfig config = command.config;
  config.agent = command.agents.front();
  std::mutex progress_mutex;
  if (command.progress) {
    config.progress = progressLine(out, progress_mutex, "");
  }
  services::EvalRun run;
  try {
    run = services::runEvaluation(config);
  } catch (const services::EvalRefused& refusal) {
    out << "agentvcr eval: refusing to evaluate: " << refusal.what() << std::endl;
    return kExitNotEvaluated;
  } catch (const std::exception& error) {  // the archive, or an ignored path that is no pointer
    out << "agentvcr eval: cannot evaluate: " << error.what() << std::endl;
    return kExitNotEvaluated;
  }
  const protocol::Json report = evalReportJson(run, config.agent.toString());
  printEvalSummary(report, out);
  if (!writeReport(command.report_path, report, out)) {
    return kExitNotEvaluated;
  }
  if (const std::string failure = failureOf(report, command.fail_under); !failure.empty()) {
    out << "agentvcr eval: FAILED: " << failure << std::endl;
    return kExitFailure;
  }
  return kExitOk;
}

/// Each agent in turn, the same recorded inputs, each run stored as its own evaluation session
/// labelled "agent K of N".
int compareAgents(const EvalCommand& command, std::ostream& out) {
  std::vector<ComparedAgent> agents;
  std::mutex progress_mutex;
  for (std::size_t i = 0; i < command.agents.size(); ++i) {
    services::EvalConfig config = command.config;
    config.agent = command.agents[i];
    config.label =
        "agent " + std::to_string(i + 1) + " of " + std::to_string(command.agents.size());
    if (command.progress) {
      config.progress = progressLine(out, progress_mutex, config.label + ": ");
    }
    ComparedAgent agent{config.agent.toString(), nullptr, "", {}, {}};
    try {
      const services::EvalRun run = services::runEvaluation(config);
      agent.report = evalReportJson(run, agent.url);
      agent.answers = answersOf(run);
      agent.a2a_answers = a2aAnswersOf(run);
    } catch (const services::EvalRefused& refusal) {
      agent.refusal = std::string("refused: ") + refusal.what();
    } catch (const std::exception& error) {
      agent.refusal = std::string("cannot evaluate: ") + error.what();
    }
    agents.push_back(std::move(agent));
  }
  const protocol::Json comparison = comparisonReportJson(agents);
  printComparison(comparison, out);
  if (!writeReport(command.report_path, comparison, out)) {
    return kExitNotEvaluated;
  }
  int status = kExitOk;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].report.is_null()) {
      out << "agentvcr eval: agent " << i + 1 << " (" << agents[i].url
          << ") was not evaluated: " << agents[i].refusal << std::endl;
      status = kExitNotEvaluated;
    } else if (const std::string failure = failureOf(agents[i].report, command.fail_under);
               !failure.empty()) {
      out << "agentvcr eval: FAILED: agent " << i + 1 << " (" << agents[i].url << "): " << failure
          << std::endl;
      status = status == kExitOk ? kExitFailure : status;
    }
  }
  return status;
}

}  // namespace

int runEval(const EvalCommand& command, std::ostream& out) {
  return command.agents.size() == 1 ? evaluateOne(command, out) : compareAgents(command, out);
}

Registration<EvalCommand> registerEval(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<EvalCommand>();
  auto agents = std::make_shared<std::vector<std::string>>();
  auto ignore_file = std::make_shared<std::string>();
  command->config.db_path = kDefaultArchive;
  command->progress = isatty(STDOUT_FILENO) != 0;

  auto* eval = app.add_subcommand("eval", "Re-ask recorded inputs of a live agent and compare");
  eval->footer(
      "Exit status: 0 every step matched (or the match rate reached --fail-under) and the agent "
      "kept the contract; 1 a step differed or the contract was broken; 2 nothing could be "
      "evaluated (bad arguments, unreadable archive or ignore file, agent down or not contract "
      "2.0). With several --agent, each agent is held to this: 1 if any fails, 2 if any could "
      "not be evaluated.");
  auto& config = command->config;
  eval->add_option("--db", config.db_path, "SQLite archive")->capture_default_str();
  eval->add_option("--agent", *agents,
                   "Live agent base URL (http://); repeat it to compare several agents")
      ->required();
  addNodeOption(eval, config.node);
  eval->add_option("--session", config.selection.sessions,
                   "Re-ask this session (repeatable; default: all but evaluations)");
  eval->add_option("--conversation", config.selection.conversations,
                   "Re-ask this conversation (repeatable)");
  eval->add_option("--jobs", config.jobs, "Concurrent requests")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  eval->add_flag("--one-by-one", config.one_by_one,
                 "One request per recorded input instead of the recorded batches");
  eval->add_option("--report", command->report_path, "Write the JSON report here");
  eval->add_option("--fail-under", command->fail_under,
                   "Pass when the match rate is at least this (0..1; default: every step must "
                   "match)")
      ->check(CLI::Range(0.0, 1.0));
  eval->add_option("--ignore-file", *ignore_file,
                   "Ignore file (agentvcr noise): its [output] paths are left out of the "
                   "comparison");
  runWhenParsed<EvalCommand>(
      eval, invocation, "eval", command,
      [agents, ignore_file](EvalCommand& parsed) {
        for (const std::string& agent : *agents) {
          auto url = net::parseUrl(agent);
          if (!url || url->tls) {
            return "--agent must be http://host[:port][/path], got '" + agent + "'";
          }
          parsed.agents.push_back(*url);
        }
        if (!ignore_file->empty()) {
          // Only [output] applies: eval re-asks the recorded inputs as they are and keys none.
          try {
            parsed.config.ignored_output_paths = replay::readIgnoreFile(*ignore_file).output;
          } catch (const std::exception& error) {
            return std::string(error.what());
          }
        }
        return std::string();
      },
      runEval);
  return {eval, command};
}

}  // namespace agentvcr::cli
