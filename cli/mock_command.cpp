#include <ostream>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/services/scripted_service.hpp"

namespace agentvcr::cli {

int runMockMagma(const MockMagmaCommand& command, std::ostream& out) {
  auto agent = services::loadScriptedAgent(command.script_path);
  proxy::Server server(command.server,
                       proxy::makeLocalServiceFactory(services::scriptedAgentRoutes(agent)));
  server.start();
  const auto endpoint = server.endpoint();
  const std::string address =
      "http://" + endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  out << "agentvcr mock magma: " << agent->script().info.agent_id << " "
      << agent->script().info.agent_version << " listening on " << address << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  waitForStopSignal();
  server.stop();
  return kExitOk;
}

}  // namespace agentvcr::cli
