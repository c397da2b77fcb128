#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr merge`: every session of the inputs copied into `out_path`.
struct MergeCommand {
  std::string out_path;
  std::vector<std::string> in_paths;
  bool as_new = false;  ///< as ImportCommand::as_new
};

int runMerge(const MergeCommand& command, std::ostream& out);

Registration<MergeCommand> registerMerge(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
