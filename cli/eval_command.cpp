#include <fstream>
#include <mutex>
#include <ostream>

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

}  // namespace agentvcr::cli
