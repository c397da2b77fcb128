#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/protocol/chaos.hpp"
#include "agentvcr/proxy/url.hpp"
#include "agentvcr/store/transfer.hpp"

/// The `agentvcr` command line: each command registers its subcommand, options and help on a
/// CLI11 app, next to its run function. Parsing only fills option structs and an Invocation;
/// nothing runs until execute(), so tests parse argument vectors without starting servers.
namespace agentvcr::cli {

/// What parsing chose. The callback of the parsed subcommand fills it once CLI11 has checked
/// that subcommand's arguments: either a usage error CLI11 cannot see (arguments that
/// contradict each other) or the command to run.
struct Invocation {
  std::string command;      ///< "record", "mock a2a": names the command in messages
  std::string usage_error;  ///< set: execute() prints it and returns kExitUsage
  std::function<int(std::ostream&)> run;
};

/// Runs what parsing chose and returns the process exit status: kExitUsage for a usage error
/// or when no command was parsed, kExitFailure when the command throws.
int execute(const Invocation& invocation, std::ostream& out, std::ostream& err);

/// A registered command: its subcommand, and the options parsing fills in.
template <class Command>
struct Registration {
  CLI::App* subcommand = nullptr;
  std::shared_ptr<Command> command;
};

Registration<RecordCommand> registerRecord(CLI::App& app, Invocation& invocation);
Registration<ReplayCommand> registerReplay(CLI::App& app, Invocation& invocation);
/// `mock` only groups the synthetic agents below; one of them must follow it.
CLI::App* registerMock(CLI::App& app);
Registration<MockMagmaCommand> registerMockMagma(CLI::App& mock, Invocation& invocation);
Registration<MockA2aCommand> registerMockA2a(CLI::App& mock, Invocation& invocation);
/// `program` is how the user ran agentvcr, for the hints the demo prints.
Registration<DemoCommand> registerDemo(CLI::App& app, Invocation& invocation,
                                       const std::string& program);
Registration<LsCommand> registerLs(CLI::App& app, Invocation& invocation);
Registration<ShowCommand> registerShow(CLI::App& app, Invocation& invocation);
Registration<MigrateCommand> registerMigrate(CLI::App& app, Invocation& invocation);
Registration<ReindexCommand> registerReindex(CLI::App& app, Invocation& invocation);
Registration<ExportCommand> registerExport(CLI::App& app, Invocation& invocation);
Registration<ImportCommand> registerImport(CLI::App& app, Invocation& invocation);
Registration<MergeCommand> registerMerge(CLI::App& app, Invocation& invocation);
Registration<EvalCommand> registerEval(CLI::App& app, Invocation& invocation);
Registration<NoiseCommand> registerNoise(CLI::App& app, Invocation& invocation);
Registration<LintCommand> registerLint(CLI::App& app, Invocation& invocation);
Registration<StatsCommand> registerStats(CLI::App& app, Invocation& invocation);
Registration<ShipCommand> registerShip(CLI::App& app, Invocation& invocation);
Registration<PullCommand> registerPull(CLI::App& app, Invocation& invocation);
/// `pg` only groups the fleet archive's administration: `pg migrate`.
CLI::App* registerPg(CLI::App& app, Invocation& invocation);

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

/// HOST:PORT of a --listen option; throws CLI::ValidationError naming --listen otherwise.
proxy::HostPort parseListen(const std::string& text);

/// Worker threads the servers default to: one per core.
unsigned defaultThreads();

/// The bundled fixtures folder (holding demo/ and a2a/) when --fixtures is not given:
/// `environment` ($AGENTVCR_FIXTURES) when set, else ../share/agentvcr/fixtures next to
/// `executable` (an installed agentvcr), else fixtures/ of the nearest folder above
/// `executable` that has fixtures/demo/ (a build tree inside the source tree).
std::optional<std::filesystem::path> findFixturesDir(const char* environment,
                                                     const std::filesystem::path& executable);

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
