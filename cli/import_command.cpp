// `agentvcr import`: the JSONL of `agentvcr export` back into an archive.

#include "agentvcr/cli/import_command.hpp"

#include <fstream>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/command_line.hpp"
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
    return kExitUsage;
  }
  store::ImportOptions options;
  options.session_name = command.session_name;
  options.as_new = command.as_new;
  const store::CopyResult result = store::importJsonl(in, command.db_path, options);
  out << "imported " << result.exchanges << " exchange(s) into " << result.session_ids.size()
      << " session(s):";
  for (std::int64_t id : result.session_ids) {
    out << ' ' << id;
  }
  out << "\n";
  printAlreadyHeld(result, command.db_path, out);
  return kExitOk;
}

Registration<ImportCommand> registerImport(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ImportCommand>();
  auto* importer =
      app.add_subcommand("import", "Add the sessions of an `agentvcr export` JSONL file");
  importer->add_option("--db", command->db_path, "Archive (created if missing)")
      ->capture_default_str();
  importer->add_option("--format", command->format, "jsonl")
      ->check(CLI::IsMember({"jsonl"}))
      ->capture_default_str();
  importer->add_option("--session-name", command->session_name,
                       "Name of the imported session(s) (default: the exported names)");
  importer->add_flag("--as-new", command->as_new,
                     "Import sessions the archive already holds again, each with a new uuid");
  importer->add_option("input", command->in_path, "JSONL file")
      ->required()
      ->check(CLI::ExistingFile);
  runWhenParsed<ImportCommand>(importer, invocation, "import", command, {}, runImport);
  return {importer, command};
}

}  // namespace agentvcr::cli
