// `agentvcr merge`: fold archives into one, every session kept distinct.

#include "agentvcr/cli/merge_command.hpp"

#include <filesystem>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/command_line.hpp"
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
  store::MergeOptions options;
  options.as_new = command.as_new;
  for (const std::string& in_path : command.in_paths) {
    const store::CopyResult result = store::mergeArchive(command.out_path, in_path, options);
    out << in_path << ": " << result.session_ids.size() << " session(s), " << result.exchanges
        << " exchange(s), " << result.replay_misses << " replay miss(es), " << result.links
        << " evaluation link(s)\n";
    printAlreadyHeld(result, command.out_path, out);
  }
  return kExitOk;
}

Registration<MergeCommand> registerMerge(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<MergeCommand>();
  auto* merge = app.add_subcommand("merge", "Copy every session of the inputs into OUT, each once");
  merge->add_option("out", command->out_path, "Archive to write (created if missing)")->required();
  merge->add_flag("--as-new", command->as_new,
                  "Copy sessions OUT already holds again, each with a new uuid");
  merge->add_option("inputs", command->in_paths, "Archives to copy")
      ->required()
      ->check(CLI::ExistingFile);
  runWhenParsed<MergeCommand>(merge, invocation, "merge", command, {}, runMerge);
  return {merge, command};
}

}  // namespace agentvcr::cli
