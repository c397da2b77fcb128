#pragma once

#include <iosfwd>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/fleet/pull.hpp"

namespace agentvcr::cli {

/// `agentvcr pull`: sessions out of the fleet archive into a SQLite archive.
struct PullCommand {
  fleet::PullOptions options;
};

int runPull(const PullCommand& command, std::ostream& out);

Registration<PullCommand> registerPull(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
