// `agentvcr import`: the JSONL of `agentvcr export` back into an archive.

#include <fstream>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/store/transfer.hpp"

namespace agentvcr::cli {

int runImport(const ImportCommand& command, std::ostream& out) {
  if (command.format != "jsonl") {
    std::cerr << "agentvcr import: only --format jsonl can be imported\n";
    return kExitUsage;
  }
  std::ifstream in(command.in_path, std::ios::binary);
  if (!in) {
    std::cerr << "agentvcr import: cannot read " << command.in_path << "\n";
    return kExitFailure;
  }
  store::ImportOptions options;
  options.session_name = command.session_name;
  const store::CopyResult result = store::importJsonl(in, command.db_path, options);
  out << "imported " << result.exchanges << " exchange(s) into " << result.session_ids.size()
      << " session(s):";
  for (std::int64_t id : result.session_ids) {
    out << ' ' << id;
  }
  out << "\n";
  return kExitOk;
}

}  // namespace agentvcr::cli
