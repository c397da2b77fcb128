#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr search`: the viewer's search in the terminal, over ArchiveReader::search
/// (docs/lint-and-stats.md, "agentvcr search").
struct SearchCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::string> words;  ///< joined by spaces: the search text
  std::optional<std::int64_t> session;
  std::optional<std::string> tool;
  std::optional<std::string> robot;
  std::optional<std::string> status;  ///< "completed" or "error"
  std::optional<std::string> error_code;
  std::optional<double> min_latency_ms;
  std::size_t limit = 200;
  bool json = false;
};

/// The usage error of a parsed command (nothing to search for, a status search cannot find, a
/// negative latency, a zero limit), or an empty string.
std::string searchUsageError(const SearchCommand& command);

/// Prints the hits, each named by its conversation and its number in the viewer's timeline;
/// kExitOk when something was found, kExitFailure when nothing was.
int runSearch(const SearchCommand& command, std::ostream& out);

Registration<SearchCommand> registerSearch(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
