#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/services/evaluator.hpp"

namespace agentvcr::cli {

/// `agentvcr eval`: re-asks recorded inputs of a live agent and compares (docs/eval.md).
struct EvalCommand {
  services::EvalConfig config;
  std::string report_path;           ///< --report: the JSON report is written here
  std::optional<double> fail_under;  ///< --fail-under: lowest accepted match rate (0..1)
  bool progress = false;             ///< print "done/total" as requests are answered
};

/// Eval's exit status when nothing could be judged (the archive unreadable, the agent down or
/// refused, the report unwritable): 2, as for bad arguments, so that a CI gate tells "the agent
/// regressed" (1) from "the check itself did not run".
inline constexpr int kExitNotEvaluated = kExitUsage;

/// Exit 0 when every step matched (at least fail_under of them, when set) and the contract was
/// kept, 1 otherwise, kExitNotEvaluated when nothing could be evaluated.
int runEval(const EvalCommand& command, std::ostream& out);

Registration<EvalCommand> registerEval(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
