#include <memory>
#include <ostream>
#include <stdexcept>

#include "agentvcr/a2a_mock/fixtures.hpp"
#include "agentvcr/a2a_mock/tokens.hpp"
#include "agentvcr/cli/commands.hpp"
#include "agentvcr/cli/scripted_service.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/proxy/a2a_mock_service.hpp"

namespace agentvcr::cli {
namespace {

/// The tokens of --tokens-file, then those of --token (as Pro users).
a2a_mock::TokenTable loadTokens(const MockA2aCommand& command) {
  a2a_mock::TokenTable tokens;
  if (!command.tokens_file.empty()) {
    auto load = a2a_mock::parseTokensFile(readTextFile(command.tokens_file));
    if (!load.table) {
      throw std::runtime_error(command.tokens_file + ": " + load.error);
    }
    tokens = std::move(*load.table);
  }
  for (const std::string& token : command.tokens) {
    tokens.add(token, a2a_mock::Plan::Pro);
  }
  return tokens;
}

}  // namespace

int runMockA2a(const MockA2aCommand& command, std::ostream& out) {
  a2a_mock::MockConfig config = command.config;
  auto fixtures = a2a_mock::loadFixturesDir(command.fixtures_dir);
  if (!fixtures.fixtures) {
    throw std::runtime_error(fixtures.error);
  }
  config.fixtures = std::move(*fixtures.fixtures);
  config.tokens = loadTokens(command);
  proxy::A2aMockService service(std::move(config), std::make_shared<a2a_mock::SystemClock>(),
                                command.server);
  service.start();
  const std::string address = service.baseUrl();
  out << "agentvcr mock a2a: " << a2a_mock::profileName(service.profile().kind)
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
