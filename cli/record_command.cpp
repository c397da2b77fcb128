#include <cstdio>
#include <fstream>
#include <ostream>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/cli/signals.hpp"

namespace agentvcr::cli {

void writeReadyFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << text << "\n";
    if (!file) {
      throw std::runtime_error("cannot write ready file " + temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename ready file to " + path);
  }
}

int runRecord(const RecordCommand& command, std::ostream& out) {
  proxy::RecordingProxy recording(command.config);
  recording.start();
  const auto endpoint = recording.endpoint();
  const std::string address =
      "http://" + endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  out << "agentvcr record: listening on " << address << ", relaying to "
      << command.config.relay.upstream.toString() << ", recording session " << recording.sessionId()
      << " into " << command.config.db_path << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  int signal = waitForStopSignal();
  out << "agentvcr record: signal " << signal << ", draining" << std::endl;
  recording.stop();
  auto stats = recording.recorder().stats();
  out << "agentvcr record: " << stats.written << " exchanges written in " << stats.batches
      << " batches, " << stats.indexed << " indexed";
  if (stats.refused_full > 0) {
    out << ", queue full " << stats.refused_full << " times (callers waited)";
  }
  if (stats.write_errors > 0) {
    out << ", " << stats.write_errors << " write errors";
  }
  out << std::endl;
  return stats.write_errors == 0 ? kExitOk : kExitFailure;
}

}  // namespace agentvcr::cli
