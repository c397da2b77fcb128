#pragma once

#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

struct MigrateCommand {
  std::string db_path = kDefaultArchive;
};

/// `agentvcr migrate`: applies the pending schema migrations to the archive at `db_path` (which
/// must exist) and says from which version to which. Throws std::runtime_error on failure.
int runMigrate(const std::string& db_path, std::ostream& out);

Registration<MigrateCommand> registerMigrate(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
