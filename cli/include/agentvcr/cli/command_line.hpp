#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/chaos.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/store/transfer.hpp"

/// The `agentvcr` command line: each command registers its subcommand, options and help on a
/// CLI11 app, next to its run function (its own header: record_command.hpp, ...). Parsing only
/// fills option structs and an Invocation; nothing runs until execute(), so tests parse argument
/// vectors without starting servers. The commands' sources include this header; a caller that
/// only runs a command includes that command's header.
namespace agentvcr::cli {

/// Runs what parsing chose and returns the process exit status: kExitUsage for a usage error,
/// when no command was parsed, or when the command throws (it could not run as asked).
int execute(const Invocation& invocation, std::ostream& out, std::ostream& err);

/// `agentvcr argv...` on `app` (registerAll()'d): parses, then execute()s. Help and the version
/// go to `out` with status 0; any argument CLI11 refuses is kExitUsage, whatever CLI11's own
/// code for it (the table in command.hpp is the only one a caller sees).
int parseAndExecute(CLI::App& app, Invocation& invocation, int argc, const char* const* argv,
                    std::ostream& out, std::ostream& err);

/// The exit status table (kExitStatuses) as `agentvcr --help` ends with it.
std::string exitStatusHelp();

/// `mock` only groups the synthetic agents (mock_command.hpp, mock_a2a_command.hpp); one of
/// them must follow it.
CLI::App* registerMock(CLI::App& app);

/// Every command, in the order `agentvcr --help` lists them.
void registerAll(CLI::App& app, Invocation& invocation, const std::string& program);

/// Makes `invocation` run `run(*command)` once `subcommand` is parsed, unless
/// `configure(*command)` returns a usage error first (an empty string: none).
template <class Command>
void runWhenParsed(CLI::App* subcommand, Invocation& invocation, std::string name,
                   std::shared_ptr<Command> command, std::function<std::string(Command&)> configure,
                   int (*run)(const Command&, std::ostream&)) {
  subcommand->callback([&invocation, name = std::move(name), command = std::move(command),
                        configure = std::move(configure), run] {
    invocation.command = name;
    if (configure) {
      if (auto problem = configure(*command); !problem.empty()) {
        invocation.usage_error = std::move(problem);
        return;
      }
    }
    invocation.run = [command, run](std::ostream& out) { return run(*command, out); };
  });
}

/// `--node NAME`: where the sessions a command records say they were recorded (default: the
/// host name).
void addNodeOption(CLI::App* subcommand, std::string& node);

/// `--drain-timeout SECONDS`: how long a serving command, once signalled, lets the exchanges in
/// progress finish before it cuts them (default: `server`'s, 10 s).
void addDrainTimeoutOption(CLI::App* subcommand, proxy::ServerOptions& server);

/// `--chaos SPEC` and `--chaos-header`, as record and replay take them (docs/record.md, "Chaos").
struct ChaosArguments {
  std::string spec;
  bool honour_header = false;
};

void addChaosOptions(CLI::App* subcommand, ChaosArguments& args);
/// `--chaos SPEC` alone, for a command whose caller never sends the chaos header (`demo`).
void addChaosSpecOption(CLI::App* subcommand, std::string& spec);

/// The faults `args` ask for; null when they ask for none (then the chaos header is refused).
std::shared_ptr<protocol::Chaos> makeChaos(const ChaosArguments& args);

/// Why `text` is not HOST:PORT, for the options that take one; for a port alone, the address
/// it most likely meant.
std::string notHostPort(const std::string& text);

/// HOST:PORT of a --listen option; throws CLI::ValidationError naming --listen otherwise.
net::HostPort parseListen(const std::string& text);

/// Worker threads the servers default to: one per core.
unsigned defaultThreads();

/// The bundled fixtures folder (holding demo/ and a2a/) when --fixtures is not given:
/// `environment` ($AGENTVCR_FIXTURES) when set, else ../share/agentvcr/fixtures next to
/// `executable` (an installed agentvcr), else fixtures/ of the nearest folder above
/// `executable` that has fixtures/demo/ (a build tree inside the source tree). `looked`, when
/// given and the environment is not set, gets where it looked, for the message of a miss.
std::optional<std::filesystem::path> findFixturesDir(const char* environment,
                                                     const std::filesystem::path& executable,
                                                     std::string* looked = nullptr);

/// How to start the viewer that came with `executable`: agentvcr-viewer beside it (an installed
/// package's bin/), else ../viewer/agentvcr-viewer (a build tree's cli/agentvcr), else the
/// agentvcr-viewer on PATH.
std::string viewerCommand(const std::filesystem::path& executable);

/// findFixturesDir() for this process, or a usage error naming --fixtures and
/// AGENTVCR_FIXTURES when none is found (then `dir` is left alone).
std::string defaultFixturesDir(std::string& dir);

/// Names, for `import` and `merge`, the sessions a copy left out because `archive` held them.
void printAlreadyHeld(const store::CopyResult& result, const std::string& archive,
                      std::ostream& out);

}  // namespace agentvcr::cli
