// `agentvcr noise`: the JSON paths that vary between recordings of the same episodes while the
// agent decides the same, written as an ignore file for `replay --ignore-file` and
// `eval --ignore-file` (docs/replay.md, "Finding noise").

#include "agentvcr/cli/noise_command.hpp"

#include <fstream>
#include <ostream>
#include <stdexcept>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/replay/noise.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::cli {

int runNoise(const NoiseCommand& command, std::ostream& out) {
  store::ArchiveReader reader(command.db_path);
  replay::NoiseSessions sessions;
  try {
    sessions = replay::resolveNoiseSessions(reader, command.sessions);
  } catch (const std::invalid_argument& problem) {
    out << "agentvcr noise: " << problem.what() << std::endl;
    return kExitUsage;
  }
  const replay::NoiseReport report = replay::findNoise(replay::episodePairs(reader, sessions));
  const std::string text = replay::formatNoise(report, sessions);
  if (command.out_path.empty()) {
    out << text;
    return kExitOk;
  }
  std::ofstream file(command.out_path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    out << "agentvcr noise: cannot write " << command.out_path << std::endl;
    return kExitUsage;
  }
  out << "agentvcr noise: " << report.input.size() << " input and " << report.output.size()
      << " output paths from " << report.aligned_steps << " aligned steps written to "
      << command.out_path << std::endl;
  return kExitOk;
}

Registration<NoiseCommand> registerNoise(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<NoiseCommand>();
  auto* noise = app.add_subcommand(
      "noise", "List the JSON paths that vary between recordings of the same episodes");
  noise->add_option("--db", command->db_path, "SQLite archive")->capture_default_str();
  noise->add_option("--session", command->sessions,
                    "Compare this session (repeatable; one: with its evaluations; default: the "
                    "latest recording and its evaluations)");
  noise->add_option("--out", command->out_path,
                    "Write the ignore file here instead of printing it");
  runWhenParsed<NoiseCommand>(noise, invocation, "noise", command, nullptr, runNoise);
  return {noise, command};
}

}  // namespace agentvcr::cli
