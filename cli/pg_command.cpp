// `agentvcr pg`: administration of the fleet archive on PostgreSQL (docs/fleet.md).

#include "agentvcr/cli/pg_command.hpp"

#include <iostream>
#include <ostream>
#include <string>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/prune.hpp"
#include "agentvcr/fleet/uri_secrets.hpp"

namespace agentvcr::cli {
namespace {

/// Connects to the fleet archive `uri` names, warning first when it carries a password.
fleet::PgConnection connectWarning(const std::string& uri) {
  if (fleet::carriesPassword(uri)) {
    std::cerr << "agentvcr pg: warning: " << fleet::passwordWarning() << std::endl;
  }
  return fleet::PgConnection(uri);
}

}  // namespace

int runPgMigrate(const PgMigrateCommand& command, std::ostream& out) {
  fleet::PgConnection conn = connectWarning(command.uri);
  const int before = fleet::migrateFleet(conn);
  if (before == fleet::kFleetSchemaVersion) {
    out << conn.redactedUri() << ": already at fleet schema version " << fleet::kFleetSchemaVersion
        << "\n";
  } else {
    out << conn.redactedUri() << ": fleet schema version " << before << " -> "
        << fleet::kFleetSchemaVersion << "\n";
  }
  return kExitOk;
}

int runPgPrune(const PgPruneCommand& command, std::ostream& out) {
  fleet::PgConnection conn = connectWarning(command.uri);
  const fleet::PruneResult pruned = fleet::pruneFleet(conn, command.before, command.dry_run);
  out << conn.redactedUri() << (command.dry_run ? ": would prune " : ": pruned ") << pruned.sessions
      << " session(s) started before " << command.before << ", " << pruned.exchanges
      << " exchange(s)";
  if (!pruned.months.empty()) {
    out << "; month(s) dropped whole:";
    for (const std::string& month : pruned.months) {
      out << " " << month.substr(0, 7);
    }
  }
  out << "; " << pruned.blobs << " blob(s) and " << pruned.dictionaries
      << " body dictionary(ies) no longer used\n";
  return kExitOk;
}

int runPgUnprune(const PgUnpruneCommand& command, std::ostream& out) {
  fleet::PgConnection conn = connectWarning(command.uri);
  const std::vector<std::string> unpruned =
      fleet::unpruneFleet(conn, command.sessions, command.all_matching);
  for (const std::string& uuid : unpruned) {
    out << conn.redactedUri() << ": unpruned " << uuid
        << ": the next `agentvcr ship` of an archive that holds it ships it again\n";
  }
  if (unpruned.empty()) {
    out << conn.redactedUri() << ": no pruned session matches\n";
    return kExitFailure;
  }
  return kExitOk;
}

CLI::App* registerPg(CLI::App& app, Invocation& invocation) {
  auto* pg = app.add_subcommand("pg", "Administer the fleet archive on PostgreSQL");
  pg->require_subcommand(1);
  auto command = std::make_shared<PgMigrateCommand>();
  auto* migrate = pg->add_subcommand(
      "migrate", "Create the fleet archive's tables, or bring them to this agentvcr's version");
  migrate->add_option("--db", command->uri, "Fleet archive (postgresql://...)")->required();
  runWhenParsed<PgMigrateCommand>(migrate, invocation, "pg migrate", command, {}, runPgMigrate);

  auto prune_command = std::make_shared<PgPruneCommand>();
  auto* prune = pg->add_subcommand(
      "prune", "Remove the sessions that started before a date, dropping whole months");
  prune->add_option("--db", prune_command->uri, "Fleet archive (postgresql://...)")->required();
  prune
      ->add_option("--before", prune_command->before,
                   "Sessions started before DATE go (2026-11-01; UTC unless it names a zone)")
      ->required();
  prune->add_flag("--dry-run", prune_command->dry_run, "Count what would go, change nothing");
  runWhenParsed<PgPruneCommand>(prune, invocation, "pg prune", prune_command, {}, runPgPrune);

  auto unprune_command = std::make_shared<PgUnpruneCommand>();
  auto* unprune = pg->add_subcommand(
      "unprune", "Let shippers bring pruned sessions back: their tombstones are removed");
  unprune->add_option("--db", unprune_command->uri, "Fleet archive (postgresql://...)")->required();
  unprune
      ->add_option("--session", unprune_command->sessions,
                   "A pruned session's uuid, or its first 8 characters or more (repeatable)")
      ->required();
  unprune->add_flag("--all-matching", unprune_command->all_matching,
                    "Unprune every session a --session prefix matches, not only a single one");
  runWhenParsed<PgUnpruneCommand>(unprune, invocation, "pg unprune", unprune_command, {},
                                  runPgUnprune);
  return pg;
}

}  // namespace agentvcr::cli
