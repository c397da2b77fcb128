#include <memory>
#include <ostream>
#include <stdexcept>

#include "agentvcr/cli/commands.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/services/a2a_mock_service.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "agentvcr/sim/a2a/tokens.hpp"

namespace agentvcr::cli {
namespace {

/// The tokens of --tokens-file, then those of --token (as Pro users).
sim::a2a::TokenTable loadTokens(const MockA2aCommand& command) {
  sim::a2a::TokenTable tokens;
  if (!command.tokens_file.empty()) {
    auto load = sim::a2a::parseTokensFile(services::readTextFile(command.tokens_file));
    if (!load.table) {
      throw std::runtime_error(command.tokens_file + ": " + load.error);
    }
    tokens = std::move(*load.table);
  }
  for (const std::string& token : command.tokens) {
    tokens.add(token, sim::a2a::Plan::Pro);
  }
  return tokens;
}

}  // namespace

int runMockA2a(const MockA2aCommand& command, std::ostream& out) {
  sim::a2a::MockConfig config = command.config;
  auto fixtures = sim::a2a::loadFixturesDir(command.fixtures_dir);
  if (!fixtures.fixtures) {
    throw std::runtime_error(fixtures.error);
  }
  config.fixtures = std::move(*fixtures.fixtures);
  config.tokens = loadTokens(command);
  services::A2aMockService service(std::move(config), std::make_shared<sim::a2a::SystemClock>(),
                                   command.server);
  service.start();
  const std::string address = service.baseUrl();
  out << "agentvcr mock a2a: " << sim::a2a::profileName(service.profile().kind)
      << " profile listening on " << address << " (JSON-RPC at " << service.publicUrl()
      << ", card at " << address << service.profile().preferred_card_path << ")" << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  waitForStopSignal();
  service.stop();
  return kExitOk;
}

}  // namespace agentvcr::cli
