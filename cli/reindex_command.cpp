// `agentvcr reindex`: re-threads recorded sessions with the current threading rules, for
// archives recorded by an agentvcr that threaded differently.

#include "agentvcr/cli/reindex_command.hpp"

#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/store/reindex.hpp"

namespace agentvcr::cli {

int runReindex(const ReindexCommand& command, std::ostream& out) {
  // Opening a missing file would create it; a typo must not become an empty archive.
  if (!std::filesystem::is_regular_file(command.db_path)) {
    throw std::runtime_error("[store.open] no archive at " + command.db_path);
  }
  for (const store::ReindexedSession& s :
       store::reindexSessions(command.db_path, command.sessions)) {
    out << command.db_path << ": session " << s.session_id << ": " << s.steps << " steps, "
        << s.conversations_before << " -> " << s.conversations_after << " conversations\n";
  }
  return kExitOk;
}

Registration<ReindexCommand> registerReindex(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ReindexCommand>();
  auto* reindex = app.add_subcommand(
      "reindex", "Re-thread recorded sessions into conversations with the current rules");
  reindex->add_option("--db", command->db_path, "Archive")->capture_default_str();
  reindex->add_option("--session", command->sessions,
                      "Session id to re-thread (repeatable; default: every session)");
  runWhenParsed<ReindexCommand>(reindex, invocation, "reindex", command, {}, runReindex);
  return {reindex, command};
}

}  // namespace agentvcr::cli
