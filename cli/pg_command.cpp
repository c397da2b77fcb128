// `agentvcr pg`: administration of the fleet archive on PostgreSQL (docs/fleet.md).

#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/commands.hpp"
#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"

namespace agentvcr::cli {

int runPgMigrate(const PgMigrateCommand& command, std::ostream& out) {
  fleet::PgConnection conn(command.uri);
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

CLI::App* registerPg(CLI::App& app, Invocation& invocation) {
  auto* pg = app.add_subcommand("pg", "Administer the fleet archive on PostgreSQL");
  pg->require_subcommand(1);
  auto command = std::make_shared<PgMigrateCommand>();
  auto* migrate = pg->add_subcommand(
      "migrate", "Create the fleet archive's tables, or bring them to this agentvcr's version");
  migrate->add_option("--db", command->uri, "Fleet archive (postgresql://...)")->required();
  runWhenParsed<PgMigrateCommand>(migrate, invocation, "pg migrate", command, {}, runPgMigrate);
  return pg;
}

}  // namespace agentvcr::cli
