#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/sim/a2a/config.hpp"
#include "agentvcr/sim/a2a/profile.hpp"

namespace agentvcr::cli {

/// `agentvcr mock a2a`: the synthetic A2A server (docs/a2a-mock.md).
struct MockA2aCommand {
  /// Everything but the fixtures and tokens, which runMockA2a() reads from the files below.
  sim::a2a::MockConfig config;
  std::string fixtures_dir;         ///< holds card.json and skills.json (a2a/PROFILE once parsed)
  std::vector<std::string> tokens;  ///< accepted as Pro users
  std::string tokens_file;          ///< more tokens, `TOKEN [PLAN]` per line
  proxy::ServerOptions server;
  std::string ready_file;  ///< written with "http://host:port" once listening
  /// `--clock fixed:TIME`: every reading of the mock's clock; the system clock when absent.
  std::optional<sim::a2a::TimePoint> fixed_clock;
  std::string metrics_listen;  ///< --metrics-listen HOST:PORT; empty: no metrics
};

/// Serves the mock until SIGINT or SIGTERM. Throws std::runtime_error for unreadable
/// fixtures or tokens.
int runMockA2a(const MockA2aCommand& command, std::ostream& out);

/// The banner's line about the quota when `profile` counts calls and `config` has it on (empty
/// otherwise): the limits, the expensive skills, and the options that turn it off or raise it.
std::string quotaBanner(const sim::a2a::MockConfig& config, const sim::a2a::Profile& profile);

Registration<MockA2aCommand> registerMockA2a(CLI::App& mock, Invocation& invocation);

}  // namespace agentvcr::cli
