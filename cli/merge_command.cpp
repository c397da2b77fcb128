// `agentvcr merge`: fold archives into one, every session kept distinct.

#include <filesystem>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/store/transfer.hpp"

namespace agentvcr::cli {

int runMerge(const MergeCommand& command, std::ostream& out) {
  std::error_code ignored;
  for (const std::string& in_path : command.in_paths) {
    // Copying an archive into itself would read the sessions it is writing.
    if (std::filesystem::equivalent(in_path, command.out_path, ignored)) {
      std::cerr << "agentvcr merge: " << in_path << " is the output archive\n";
      return kExitUsage;
    }
  }
  for (const std::string& in_path : command.in_paths) {
    const store::CopyResult result = store::mergeArchive(command.out_path, in_path);
    out << in_path << ": " << result.session_ids.size() << " session(s), " << result.exchanges
        << " exchange(s), " << result.replay_misses << " replay miss(es), " << result.step_links
        << " evaluation link(s)\n";
  }
  return kExitOk;
}

}  // namespace agentvcr::cli
