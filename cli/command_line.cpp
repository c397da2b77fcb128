#include "agentvcr/cli/command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <ostream>
#include <sstream>
#include <system_error>
#include <thread>

#include "agentvcr/cli/demo_command.hpp"
#include "agentvcr/cli/eval_command.hpp"
#include "agentvcr/cli/export_command.hpp"
#include "agentvcr/cli/import_command.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/cli/lint_command.hpp"
#include "agentvcr/cli/merge_command.hpp"
#include "agentvcr/cli/migrate_command.hpp"
#include "agentvcr/cli/mock_a2a_command.hpp"
#include "agentvcr/cli/mock_command.hpp"
#include "agentvcr/cli/noise_command.hpp"
#include "agentvcr/cli/pg_command.hpp"
#include "agentvcr/cli/pull_command.hpp"
#include "agentvcr/cli/record_command.hpp"
#include "agentvcr/cli/reindex_command.hpp"
#include "agentvcr/cli/replay_command.hpp"
#include "agentvcr/cli/search_command.hpp"
#include "agentvcr/cli/ship_command.hpp"
#include "agentvcr/cli/stats_command.hpp"
#include "agentvcr/fleet/uri_secrets.hpp"
#include "agentvcr/store/identity.hpp"

namespace agentvcr::cli {
namespace {

/// A folder that holds the bundled fixtures, told apart by the demo's script and episodes.
bool isFixturesDir(const std::filesystem::path& dir) {
  std::error_code error;
  return std::filesystem::is_directory(dir / "demo", error);
}

}  // namespace

void writeReadyFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << text << "\n";
    if (!file) {
      throw std::runtime_error("cannot write ready file " + temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename ready file to " + path);
  }
}

int execute(const Invocation& invocation, std::ostream& out, std::ostream& err) {
  if (!invocation.usage_error.empty()) {
    err << "agentvcr " << invocation.command << ": "
        << fleet::withoutPasswords(invocation.usage_error, invocation.arguments) << "\n";
    return kExitUsage;
  }
  if (!invocation.run) {
    return kExitUsage;
  }
  try {
    return invocation.run(out);
  } catch (const std::exception& error) {
    // What a command throws stopped it before it could check anything: an archive it cannot
    // read, an address it cannot listen on, a file it cannot write. A connection string can
    // reach any message (a file name that was one): never its password.
    err << "agentvcr: " << fleet::withoutPasswords(error.what(), invocation.arguments) << "\n";
    return kExitUsage;
  }
}

int parseAndExecute(CLI::App& app, Invocation& invocation, int argc, const char* const* argv,
                    std::ostream& out, std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 quotes an argument it cannot place, a connection string too: never its password.
    std::ostringstream message;
    const int status = app.exit(error, out, message);
    err << fleet::withoutPasswords(message.str(), invocation.arguments);
    // --help and --version are CLI11's "errors" of status 0; every other status of its own
    // (105 for a bad value, 106 for a missing option, ...) is a usage error like ours.
    return status == static_cast<int>(CLI::ExitCodes::Success) ? kExitOk : kExitUsage;
  }
  return execute(invocation, out, err);
}

std::string exitStatusHelp() {
  std::ostringstream text;
  text << "Exit status:\n";
  for (const ExitStatusRow& row : kExitStatuses) {
    text << "  " << row.status << "  " << (*row.command ? std::string(row.command) + ": " : "")
         << row.meaning << "\n";
  }
  return text.str();
}

void registerAll(CLI::App& app, Invocation& invocation, const std::string& program) {
  app.footer(exitStatusHelp());
  app.set_version_flag("--version", std::string("agentvcr ") + store::agentvcrVersion(),
                       "Print the version (the one sessions.recorder_version stores)");
  registerRecord(app, invocation);
  registerReplay(app, invocation);
  auto* mock = registerMock(app);
  registerMockMagma(*mock, invocation);
  registerMockA2a(*mock, invocation);
  registerDemo(app, invocation, program);
  registerLs(app, invocation);
  registerShow(app, invocation);
  registerSearch(app, invocation);
  registerMigrate(app, invocation);
  registerReindex(app, invocation);
  registerExport(app, invocation);
  registerImport(app, invocation);
  registerMerge(app, invocation);
  registerEval(app, invocation);
  registerNoise(app, invocation);
  registerLint(app, invocation);
  registerStats(app, invocation);
  registerShip(app, invocation);
  registerPull(app, invocation);
  registerPg(app, invocation);
}

CLI::App* registerMock(CLI::App& app) {
  auto* mock = app.add_subcommand("mock", "Run a synthetic agent");
  mock->require_subcommand(1);
  return mock;
}

std::string notHostPort(const std::string& text) {
  std::string problem = "expected HOST:PORT, got '" + text + "'";
  // A port alone is the usual slip: spell out the address it most likely meant.
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    problem += " (a port alone: 127.0.0.1:" + text + " listens on it)";
  }
  return problem;
}

net::HostPort parseListen(const std::string& text) {
  auto parsed = net::parseHostPort(text);
  if (!parsed) {
    throw CLI::ValidationError("--listen", notHostPort(text));
  }
  return *parsed;
}

unsigned defaultThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

std::optional<std::filesystem::path> findFixturesDir(const char* environment,
                                                     const std::filesystem::path& executable,
                                                     std::string* looked) {
  if (environment != nullptr && *environment != '\0') {
    return std::filesystem::path(environment);
  }
  const auto bin_dir = executable.parent_path();
  const auto installed = bin_dir.parent_path() / "share" / "agentvcr" / "fixtures";
  if (looked != nullptr) {
    *looked = "$AGENTVCR_FIXTURES (not set), " + installed.lexically_normal().string() +
              ", and fixtures/ in " + (bin_dir.empty() ? std::string("?") : bin_dir.string()) +
              " and each folder above it";
  }
  if (isFixturesDir(installed)) {
    return installed;
  }
  for (auto dir = bin_dir; !dir.empty(); dir = dir.parent_path()) {
    if (isFixturesDir(dir / "fixtures")) {
      return dir / "fixtures";
    }
    if (dir == dir.root_path()) {
      break;
    }
  }
  return std::nullopt;
}

std::string viewerCommand(const std::filesystem::path& executable) {
  const auto bin_dir = executable.parent_path();
  for (const auto& candidate :
       {bin_dir / "agentvcr-viewer", bin_dir.parent_path() / "viewer" / "agentvcr-viewer"}) {
    std::error_code error;
    if (!executable.empty() && std::filesystem::is_regular_file(candidate, error)) {
      return candidate.string();
    }
  }
  return "agentvcr-viewer";
}

std::string defaultFixturesDir(std::string& dir) {
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  std::string looked;
  auto found = findFixturesDir(std::getenv("AGENTVCR_FIXTURES"),
                               error ? std::filesystem::path() : executable, &looked);
  if (!found) {
    return "no bundled fixtures found (looked in " + looked +
           "): pass --fixtures DIR or set AGENTVCR_FIXTURES to the fixtures folder of an "
           "agentvcr checkout or package (the one holding demo/ and a2a/)";
  }
  dir = found->string();
  return {};
}

void addNodeOption(CLI::App* subcommand, std::string& node) {
  subcommand->add_option("--node", node,
                         "Node the recorded session names as its origin (default: host name)");
}

void addDrainTimeoutOption(CLI::App* subcommand, proxy::ServerOptions& server) {
  subcommand
      ->add_option_function<int>(
          "--drain-timeout",
          [&server](int seconds) { server.drain_timeout = std::chrono::seconds(seconds); },
          "Once signalled, seconds to let exchanges in progress finish before cutting them "
          "(default 10; a second signal cuts at once)")
      ->check(CLI::Range(0, 86400));
}

void addChaosSpecOption(CLI::App* subcommand, std::string& spec_text) {
  const CLI::Validator spec(
      [](const std::string& text) {
        try {
          protocol::parseChaosSpec(text);
          return std::string();
        } catch (const std::invalid_argument& error) {
          return std::string(error.what());
        }
      },
      "KIND=RATE[,...][,seed=N][,stall_s=S][,latency_ms=MS]");
  subcommand
      ->add_option("--chaos", spec_text,
                   "Inject faults into this fraction of POST requests, e.g. error=0.1,seed=7 "
                   "(kinds: error, malformed, disconnect, stall, latency, truncate, magma_error, "
                   "a2a_error, rate_limit)")
      ->check(spec);
}

void addChaosOptions(CLI::App* subcommand, ChaosArguments& args) {
  addChaosSpecOption(subcommand, args.spec);
  subcommand->add_flag("--chaos-header", args.honour_header,
                       "Obey X-Agentvcr-Chaos: KIND on a request even without --chaos");
}

std::shared_ptr<protocol::Chaos> makeChaos(const ChaosArguments& args) {
  if (args.spec.empty() && !args.honour_header) {
    return nullptr;
  }
  std::optional<protocol::ChaosSpec> spec;
  if (!args.spec.empty()) {
    spec = protocol::parseChaosSpec(args.spec);
  }
  return std::make_shared<protocol::Chaos>(std::move(spec), args.honour_header);
}

void printAlreadyHeld(const store::CopyResult& result, const std::string& archive,
                      std::ostream& out) {
  for (const store::SkippedSession& session : result.already_held) {
    out << "already in " << archive << ", not copied again: session " << session.name << " ("
        << store::shortUuid(session.uuid) << "); --as-new copies it as a new session\n";
  }
}

}  // namespace agentvcr::cli
