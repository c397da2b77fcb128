// `agentvcr pull`: sessions out of the fleet archive into a SQLite archive (docs/fleet.md).

#include "agentvcr/cli/pull_command.hpp"

#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/pull.hpp"

namespace agentvcr::cli {

int runPull(const PullCommand& command, std::ostream& out) {
  const store::CopyResult result = fleet::pull(command.options);
  out << fleet::redactedUri(command.options.uri) << ": " << result.session_ids.size()
      << " session(s), " << result.exchanges << " exchange(s), " << result.replay_misses
      << " replay miss(es), " << result.links << " evaluation link(s) into "
      << command.options.db_path << "\n";
  printAlreadyHeld(result, command.options.db_path, out);
  return kExitOk;
}

Registration<PullCommand> registerPull(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<PullCommand>();
  fleet::PullOptions& options = command->options;
  options.db_path = kDefaultArchive;
  auto* pull = app.add_subcommand(
      "pull", "Copy sessions out of the fleet archive on PostgreSQL into a SQLite archive");
  pull->add_option("--from", options.uri, "Fleet archive (postgresql://...)")->required();
  pull->add_option("--db", options.db_path, "Archive to write (created if missing)")
      ->capture_default_str();
  pull->add_option("--session", options.sessions,
                   "A session's uuid, or its start as `ls` shows it (repeatable; default: all)");
  pull->add_option("--node", options.nodes, "Only sessions recorded on NODE (repeatable)");
  pull->add_option("--since", options.since,
                   "Only sessions started at or after TIME (2026-12-01, 2026-12-01T08:00:00Z)");
  pull->add_flag("--as-new", options.as_new,
                 "Copy sessions the archive holds again, each with a new uuid");
  runWhenParsed<PullCommand>(pull, invocation, "pull", command, {}, runPull);
  return {pull, command};
}

}  // namespace agentvcr::cli
