#include <ostream>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/cli/signals.hpp"

namespace agentvcr::cli {

int runReplay(const ReplayCommand& command, std::ostream& out) {
  services::ReplayService service(command.config);
  service.start();
  const auto endpoint = service.endpoint();
  const std::string address =
      "http://" + endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  auto& replayer = service.replayer();
  out << "agentvcr replay: listening on " << address << " (" << replayer.recordedSteps()
      << " recorded steps, " << replayer.distinctKeys()
      << " distinct inputs, on miss: " << replay::missPolicyName(replayer.options().on_miss) << ")"
      << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  waitForStopSignal();
  service.stop();
  const replay::ReplayStats stats = replayer.stats();
  out << "agentvcr replay: " << stats.requests << " requests, " << stats.hits << " hits, "
      << stats.misses << " misses, " << stats.forwarded << " forwarded" << std::endl;
  return kExitOk;
}

}  // namespace agentvcr::cli
