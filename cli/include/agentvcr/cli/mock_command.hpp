#pragma once

#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::cli {

struct MockMagmaCommand {
  std::string script_path;
  proxy::ServerOptions server;
  std::string ready_file;
  std::string metrics_listen;  ///< --metrics-listen HOST:PORT; empty: no metrics
};

int runMockMagma(const MockMagmaCommand& command, std::ostream& out);

Registration<MockMagmaCommand> registerMockMagma(CLI::App& mock, Invocation& invocation);

}  // namespace agentvcr::cli
