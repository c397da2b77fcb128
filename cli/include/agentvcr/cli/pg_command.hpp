#pragma once

#include <iosfwd>
#include <string>
#include <vector>

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

/// `agentvcr pg unprune --db URI --session UUID... [--all-matching]`: the sessions' tombstones
/// removed, so that the next shipper of an archive that holds them ships them again.
struct PgUnpruneCommand {
  std::string uri;
  std::vector<std::string> sessions;  ///< uuids, or their first 8 characters or more
  bool all_matching = false;          ///< a prefix may name several sessions
};

/// kExitFailure when no tombstone matched.
int runPgUnprune(const PgUnpruneCommand& command, std::ostream& out);

/// `pg` only groups the fleet archive's administration: `pg migrate`, `pg prune`, `pg unprune`.
CLI::App* registerPg(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
