// `agentvcr export`: an archive's exchanges as JSONL, HAR or curl commands.

#include <fstream>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/commands.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/export.hpp"
#include "agentvcr/store/identity.hpp"

namespace agentvcr::cli {
namespace {

std::size_t writeFormat(const ExportCommand& command, const store::ArchiveReader& archive,
                        const std::vector<std::int64_t>& ids, std::ostream& sink) {
  if (command.format == "har") {
    return store::exportHar(archive, ids, store::agentvcrVersion(), sink);
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

Registration<ExportCommand> registerExport(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ExportCommand>();
  auto* exporter = app.add_subcommand("export", "Write exchanges as JSONL, HAR 1.2 or curl");
  exporter->add_option("--db", command->db_path, "Archive")->capture_default_str();
  exporter->add_option("--format", command->format, "jsonl, har or curl")
      ->check(CLI::IsMember({"jsonl", "har", "curl"}))
      ->capture_default_str();
  exporter->add_option("--session", command->sessions,
                       "Export this session (repeatable; default: all)");
  exporter->add_option("--conversation", command->conversations,
                       "Export this conversation's exchanges (repeatable)");
  exporter->add_option("--out", command->out_path, "File to write (default: stdout)");
  runWhenParsed<ExportCommand>(exporter, invocation, "export", command, {}, runExport);
  return {exporter, command};
}

}  // namespace agentvcr::cli
