#pragma once

#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr import`: the JSONL of `agentvcr export` back into an archive as new sessions.
struct ImportCommand {
  std::string db_path = kDefaultArchive;
  std::string format = "jsonl";
  std::string in_path;
  std::string session_name;  ///< empty: the exported names
  bool as_new = false;       ///< --as-new: copy sessions the archive holds again, as new ones
};

int runImport(const ImportCommand& command, std::ostream& out);

Registration<ImportCommand> registerImport(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
