#include <fstream>
#include <mutex>
#include <ostream>

#include <unistd.h>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/commands.hpp"
#include "agentvcr/cli/eval_report.hpp"

namespace agentvcr::cli {

int runEval(const EvalCommand& command, std::ostream& out) {
  services::EvalConfig config = command.config;
  std::mutex progress_mutex;
  if (command.progress) {
    // One overwritten line: the workers report concurrently.
    config.progress = [&](std::size_t done, std::size_t total) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      out << "\ragentvcr eval: " << done << "/" << total << " requests" << std::flush;
      if (done == total) {
        out << "\n";
      }
    };
  }
  services::EvalRun run;
  try {
    run = services::runEvaluation(config);
  } catch (const services::EvalRefused& refusal) {
    out << "agentvcr eval: refusing to evaluate: " << refusal.what() << std::endl;
    return kExitFailure;
  }
  const protocol::Json report = evalReportJson(run, config.agent.toString());
  printEvalSummary(report, out);
  if (!command.report_path.empty()) {
    std::ofstream file(command.report_path, std::ios::binary | std::ios::trunc);
    file << report.dump(2) << "\n";
    if (!file) {
      out << "agentvcr eval: cannot write " << command.report_path << std::endl;
      return kExitFailure;
    }
  }
  const auto& overall = report["overall"];
  if (overall["contract_violations"].get<std::int64_t>() > 0) {
    out << "agentvcr eval: FAILED: the agent broke the contract" << std::endl;
    return kExitFailure;
  }
  if (command.fail_under && overall["match_rate"].get<double>() < *command.fail_under) {
    out << "agentvcr eval: FAILED: match rate under " << *command.fail_under << std::endl;
    return kExitFailure;
  }
  return kExitOk;
}

Registration<EvalCommand> registerEval(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<EvalCommand>();
  auto agent = std::make_shared<std::string>();
  command->config.db_path = kDefaultArchive;
  command->progress = isatty(STDOUT_FILENO) != 0;

  auto* eval = app.add_subcommand("eval", "Re-ask recorded inputs of a live agent and compare");
  auto& config = command->config;
  eval->add_option("--db", config.db_path, "SQLite archive")->capture_default_str();
  eval->add_option("--agent", *agent, "Live agent base URL (http://)")->required();
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
                   "Fail when the match rate is under this (0..1)")
      ->check(CLI::Range(0.0, 1.0));
  runWhenParsed<EvalCommand>(
      eval, invocation, "eval", command,
      [agent](EvalCommand& parsed) {
        auto url = proxy::parseUrl(*agent);
        if (!url || url->tls) {
          return "--agent must be http://host[:port][/path], got '" + *agent + "'";
        }
        parsed.config.agent = *url;
        return std::string();
      },
      runEval);
  return {eval, command};
}

}  // namespace agentvcr::cli
