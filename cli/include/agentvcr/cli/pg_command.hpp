#pragma once

#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr pg migrate --db URI`.
struct PgMigrateCommand {
  std::string uri;
};

int runPgMigrate(const PgMigrateCommand& command, std::ostream& out);

/// `agentvcr pg prune --db URI --before DATE [--dry-run]`.
struct PgPruneCommand {
  std::string uri;
  std::string before;
  bool dry_run = false;
};

int runPgPrune(const PgPruneCommand& command, std::ostream& out);

/// `pg` only groups the fleet archive's administration: `pg migrate`.
CLI::App* registerPg(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
