#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

/// What every `agentvcr` command shares. Each command has a header of its own
/// (record_command.hpp, ...) with its option struct, its run function, which returns the
/// process exit status and writes what a person reads to `out`, and its registration on the
/// CLI11 app (command_line.hpp).
namespace agentvcr::cli {

/// Exit statuses: one table for every command, printed by `agentvcr --help` (exitStatusHelp())
/// and its man page, and documented in docs/record.md, "Exit statuses". A script tells "it ran
/// and said no" (1) from "it could not run as asked" (2); 3 and up mean one thing each, for the
/// one command that returns them.
inline constexpr int kExitOk = 0;
/// A failed check: the command ran and what it checks or does failed (eval's steps differ,
/// lint's findings, a search that finds nothing, a destination that refused what was sent).
inline constexpr int kExitFailure = 1;
/// A usage or input error: the arguments, or what they name (an archive, a file, an address to
/// listen on, an agent to reach), cannot be used. Nothing was checked.
inline constexpr int kExitUsage = 2;
/// `ship`: shipped, but PostgreSQL refused some rows: they are quarantined (named on stderr),
/// the rest shipped.
inline constexpr int kExitQuarantined = 3;
/// `ship`: shipped what was indexed; some exchanges the archive committed are not indexed yet.
inline constexpr int kExitNotIndexed = 4;

/// One row of that table: the status, the command it belongs to (empty: every command) and
/// what it means.
struct ExitStatusRow {
  int status;
  const char* command;
  const char* meaning;
};

inline constexpr ExitStatusRow kExitStatuses[] = {
    {kExitOk, "", "done; every check passed"},
    {kExitFailure, "", "a check failed: the command ran and said no (eval, lint, search, ...)"},
    {kExitUsage, "",
     "usage or input error: bad arguments, or an archive, file, address or agent they name "
     "cannot be used"},
    {kExitQuarantined, "ship", "shipped, but PostgreSQL refused some rows (quarantined)"},
    {kExitNotIndexed, "ship", "shipped what was indexed; some exchanges are not indexed yet"},
};

/// The archive every command reads or writes when --db is not given.
inline constexpr const char* kDefaultArchive = "agentvcr.sqlite";
/// `agentvcr demo` writes its own archive so it never replaces recorded traffic.
inline constexpr const char* kDefaultDemoArchive = "agentvcr-demo.sqlite";

/// What parsing chose. The callback of the parsed subcommand fills it once CLI11 has checked
/// that subcommand's arguments: either a usage error CLI11 cannot see (arguments that
/// contradict each other) or the command to run.
struct Invocation {
  std::string command;      ///< "record", "mock a2a": names the command in messages
  std::string usage_error;  ///< set: execute() prints it and returns kExitUsage
  std::function<int(std::ostream&)> run;
  /// The command line: the errors execute() prints are scrubbed of any password it carries.
  std::vector<std::string> arguments;
};

/// A registered command: its subcommand, and the options parsing fills in.
template <class Command>
struct Registration {
  CLI::App* subcommand = nullptr;
  std::shared_ptr<Command> command;
};

/// Writes `text` to `path` atomically (temp file + rename) so a watcher never reads half.
void writeReadyFile(const std::string& path, const std::string& text);

}  // namespace agentvcr::cli
