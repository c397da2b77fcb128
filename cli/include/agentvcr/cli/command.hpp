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

/// Exit statuses shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

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
