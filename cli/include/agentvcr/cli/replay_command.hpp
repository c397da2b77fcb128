#pragma once

#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/services/replay_service.hpp"

namespace agentvcr::cli {

struct ReplayCommand {
  services::ReplayServiceConfig config;
  std::string ready_file;      ///< written with "http://host:port" once listening
  std::string metrics_listen;  ///< --metrics-listen HOST:PORT; empty: no metrics
};

int runReplay(const ReplayCommand& command, std::ostream& out);

Registration<ReplayCommand> registerReplay(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
