#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr stats`: per-session aggregates of recorded traffic (docs/lint-and-stats.md).
struct StatsCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< empty: every session
  std::string format = "text";         ///< "text" or "json"
};

int runStats(const StatsCommand& command, std::ostream& out);

Registration<StatsCommand> registerStats(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
