#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr reindex`: re-threads the conversations of recorded sessions with the current
/// rules (docs/schema.md, "Conversation threading").
struct ReindexCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< every session when empty
};

/// Throws std::runtime_error when the archive is missing, a session does not exist or is
/// still being recorded.
int runReindex(const ReindexCommand& command, std::ostream& out);

Registration<ReindexCommand> registerReindex(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
