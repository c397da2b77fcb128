#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/services/evaluator.hpp"

namespace agentvcr::cli {

/// `agentvcr eval`: re-asks recorded inputs of a live agent and compares (docs/eval.md).
struct EvalCommand {
  /// Everything but the agent, which each run takes from `agents`.
  services::EvalConfig config;
  /// --agent, repeatable: one agent is evaluated, two or more are compared (each evaluated as
  /// one would be, in the order given, then reported side by side).
  std::vector<net::Url> agents;
  std::string report_path;           ///< --report: the JSON report is written here
  std::optional<double> fail_under;  ///< --fail-under: lowest accepted match rate (0..1)
  bool progress = false;             ///< print "done/total" as requests are answered
};

/// Eval's exit status when nothing could be judged (the archive unreadable, the agent down or
/// refused, the report unwritable): 2, as for bad arguments, so that a CI gate tells "the agent
/// regressed" (1) from "the check itself did not run".
inline constexpr int kExitNotEvaluated = kExitUsage;

/// Exit 0 when every step matched (at least fail_under of them, when set) and the contract was
/// kept, 1 otherwise, kExitNotEvaluated when nothing could be evaluated. With several agents,
/// each is held to that rule: 1 when any falls under it, kExitNotEvaluated when any could not be
/// evaluated (the others are still evaluated and reported).
int runEval(const EvalCommand& command, std::ostream& out);

Registration<EvalCommand> registerEval(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
