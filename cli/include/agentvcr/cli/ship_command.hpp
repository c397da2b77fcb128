#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr ship`: copies what an archive committed into the fleet archive (docs/fleet.md).
struct ShipCommand {
  std::string db_path = kDefaultArchive;
  std::string uri;      ///< --to
  bool follow = false;  ///< keep shipping until SIGINT/SIGTERM
  std::size_t batch = 2000;
  std::chrono::seconds drain{10};  ///< after the signal, ship for at most this long
};

/// kExitFailure when the fleet archive could not take the rows (the reason on stderr).
int runShip(const ShipCommand& command, std::ostream& out);

Registration<ShipCommand> registerShip(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
