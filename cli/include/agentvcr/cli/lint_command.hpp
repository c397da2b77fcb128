#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr lint`: contract violations in recorded traffic (docs/lint-and-stats.md).
struct LintCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< empty: every session
  std::string format = "text";         ///< "text" or "json"
};

/// kExitOk when no violation is found, kExitFailure otherwise (a CI gate).
int runLint(const LintCommand& command, std::ostream& out);

Registration<LintCommand> registerLint(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
