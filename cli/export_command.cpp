// `agentvcr export`: an archive's exchanges as JSONL, HAR or curl commands.

#include <fstream>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/export.hpp"

namespace agentvcr::cli {
namespace {

std::size_t writeFormat(const ExportCommand& command, const store::ArchiveReader& archive,
                        const std::vector<std::int64_t>& ids, std::ostream& sink) {
  if (command.format == "har") {
    return store::exportHar(archive, ids, AGENTVCR_VERSION, sink);
  }
  if (command.format == "curl") {
    return store::exportCurl(archive, ids, sink);
  }
  return store::exportArchiveJsonl(archive, ids, sink);
}

}  // namespace

int runExport(const ExportCommand& command, std::ostream& out) {
  if (command.format != "jsonl" && command.format != "har" && command.format != "curl") {
    std::cerr << "agentvcr export: --format must be jsonl, har or curl\n";
    return kExitUsage;
  }
  const store::ArchiveReader archive(command.db_path);
  const std::vector<std::int64_t> ids =
      store::selectExchanges(archive, {command.sessions, command.conversations});
  if (command.out_path.empty()) {
    writeFormat(command, archive, ids, out);
    out.flush();
    return kExitOk;
  }
  std::ofstream file(command.out_path, std::ios::binary | std::ios::trunc);
  if (!file) {
    std::cerr << "agentvcr export: cannot write " << command.out_path << "\n";
    return kExitFailure;
  }
  const std::size_t written = writeFormat(command, archive, ids, file);
  file.close();
  if (!file) {
    std::cerr << "agentvcr export: writing " << command.out_path << " failed\n";
    return kExitFailure;
  }
  out << "exported " << written << " exchange(s) to " << command.out_path << "\n";
  return kExitOk;
}

}  // namespace agentvcr::cli
