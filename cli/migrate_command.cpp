// `agentvcr migrate`: brings an archive written by an older agentvcr to this build's schema,
// so that the read-only commands (replay, ls, show, export, the viewer) can open it, and
// indexes what a killed recorder captured but did not index.

#include "agentvcr/cli/migrate_command.hpp"

#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/store/schema.hpp"

namespace agentvcr::cli {

int runMigrate(const std::string& db_path, std::ostream& out) {
  // migrateArchive() creates a missing file; a typo must not become an empty archive.
  if (!std::filesystem::is_regular_file(db_path)) {
    throw std::runtime_error("[store.open] no archive at " + db_path);
  }
  const int before = store::migrateArchive(db_path);
  if (before == store::kSchemaVersion) {
    out << db_path << ": already at archive schema version " << store::kSchemaVersion << "\n";
  } else {
    out << db_path << ": archive schema version " << before << " -> " << store::kSchemaVersion
        << "\n";
  }
  if (const std::uint64_t indexed = store::indexPendingExchanges(db_path); indexed > 0) {
    out << db_path << ": indexed " << indexed << " exchanges a recorder left unindexed\n";
  }
  return kExitOk;
}

namespace {

int runMigrateCommand(const MigrateCommand& command, std::ostream& out) {
  return runMigrate(command.db_path, out);
}

}  // namespace

Registration<MigrateCommand> registerMigrate(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<MigrateCommand>();
  auto* migrate =
      app.add_subcommand("migrate", "Bring an archive from an older agentvcr to this schema");
  migrate->add_option("--db", command->db_path, "Archive")->capture_default_str();
  runWhenParsed<MigrateCommand>(migrate, invocation, "migrate", command, {}, runMigrateCommand);
  return {migrate, command};
}

}  // namespace agentvcr::cli
