#include "agentvcr/cli/mock_command.hpp"

#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/metrics_serving.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/services/scripted_service.hpp"

namespace agentvcr::cli {

int runMockMagma(const MockMagmaCommand& command, std::ostream& out) {
  StopSignals stop_signals;
  auto agent = services::loadScriptedAgent(command.script_path);
  MetricsServing metrics(command.metrics_listen);
  proxy::Server server(command.server,
                       proxy::makeLocalServiceFactory(services::scriptedAgentRoutes(agent),
                                                      {.metrics = metrics.traffic()}));
  const auto metrics_endpoint = metrics.serve(out, "mock magma");
  server.start();
  const std::string address = server.endpoint().httpUrl();
  out << "agentvcr mock magma: " << agent->script().info.agent_id << " "
      << agent->script().info.agent_version << " listening on " << address << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  drainAfterSignal(
      stop_signals, stop_signals.wait(), out, "mock magma", command.server.drain_timeout,
      [&] { server.stop(); }, [&] { server.cutNow(); });
  return kExitOk;
}

Registration<MockMagmaCommand> registerMockMagma(CLI::App& mock, Invocation& invocation) {
  auto command = std::make_shared<MockMagmaCommand>();
  auto listen = std::make_shared<std::string>("127.0.0.1:8000");
  auto* magma = mock.add_subcommand("magma", "A scripted MAGMA 2.0 agent");
  magma->add_option("--script", command->script_path, "Script file (JSON)")->required();
  magma->add_option("--listen", *listen, "Address to listen on")->capture_default_str();
  magma->add_option("--ready-file", command->ready_file, "Write the URL here once ready");
  addDrainTimeoutOption(magma, command->server);
  addMetricsListenOption(magma, command->metrics_listen);
  runWhenParsed<MockMagmaCommand>(
      magma, invocation, "mock magma", command,
      [listen](MockMagmaCommand& parsed) {
        auto address = parseListen(*listen);
        parsed.server.host = address.host;
        parsed.server.port = address.port;
        return std::string();
      },
      runMockMagma);
  return {magma, command};
}

}  // namespace agentvcr::cli
