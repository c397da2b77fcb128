#include "agentvcr/cli/eval_command.hpp"

#include <exception>
#include <fstream>
#include <mutex>
#include <ostream>

#include <unistd.h>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/eval_report.hpp"
#include "agentvcr/replay/ignore_file.hpp"

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
    return kExitNotEvaluated;
  } catch (const std::exception& error) {  // the archive, or an ignored path that is no pointer
    out << "agentvcr eval: cannot evaluate: " << error.what() << std::endl;
    return kExitNotEvaluated;
  }
  const protocol::Json report = evalReportJson(run, config.agent.toString());
  printEvalSummary(report, out);
  if (!command.report_path.empty()) {
    std::ofstream file(command.report_path, std::ios::binary | std::ios::trunc);
    file << report.dump(2) << "\n";
    if (!file) {
      out << "agentvcr eval: cannot write " << command.report_path << std::endl;
      return kExitNotEvaluated;
    }
  }
  const auto& overall = report["overall"];
  if (overall["contract_violations"].get<std::int64_t>() > 0) {
    out << "agentvcr eval: FAILED: the agent broke the contract" << std::endl;
    return kExitFailure;
  }
  // Every step must match unless --fail-under accepts a lower rate.
  const double lowest_rate = command.fail_under.value_or(1.0);
  if (overall["match_rate"].get<double>() < lowest_rate) {
    if (command.fail_under) {
      out << "agentvcr eval: FAILED: match rate under " << *command.fail_under << std::endl;
    } else {
      const auto steps = overall["steps"].get<std::int64_t>();
      out << "agentvcr eval: FAILED: " << steps - overall["matched"].get<std::int64_t>() << " of "
          << steps << " steps differ (--fail-under RATE accepts a lower match rate)" << std::endl;
    }
    return kExitFailure;
  }
  return kExitOk;
}

Registration<EvalCommand> registerEval(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<EvalCommand>();
  auto agent = std::make_shared<std::string>();
  auto ignore_file = std::make_shared<std::string>();
  command->config.db_path = kDefaultArchive;
  command->progress = isatty(STDOUT_FILENO) != 0;

  auto* eval = app.add_subcommand("eval", "Re-ask recorded inputs of a live agent and compare");
  eval->footer(
      "Exit status: 0 every step matched (or the match rate reached --fail-under) and the agent "
      "kept the contract; 1 a step differed or the contract was broken; 2 nothing could be "
      "evaluated (bad arguments, unreadable archive or ignore file, agent down or not contract "
      "2.0).");
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
                   "Pass when the match rate is at least this (0..1; default: every step must "
                   "match)")
      ->check(CLI::Range(0.0, 1.0));
  eval->add_option("--ignore-file", *ignore_file,
                   "Ignore file (agentvcr noise): its [output] paths are left out of the "
                   "comparison");
  runWhenParsed<EvalCommand>(
      eval, invocation, "eval", command,
      [agent, ignore_file](EvalCommand& parsed) {
        auto url = net::parseUrl(*agent);
        if (!url || url->tls) {
          return "--agent must be http://host[:port][/path], got '" + *agent + "'";
        }
        parsed.config.agent = *url;
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
