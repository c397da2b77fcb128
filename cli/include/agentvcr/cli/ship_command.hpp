#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/fleet/shipper.hpp"

namespace agentvcr::cli {

/// `agentvcr ship`: copies what an archive committed into the fleet archive (docs/fleet.md).
struct ShipCommand {
  std::string db_path = kDefaultArchive;
  std::string uri;      ///< --to
  bool follow = false;  ///< keep shipping until SIGINT/SIGTERM
  std::size_t batch = 2000;
  std::size_t batch_mib = 64;  ///< --batch-mib: bodies and headers per batch, at most
  bool retry_quarantined = false;
  std::chrono::seconds drain{10};  ///< after the signal, ship for at most this long
};

/// The exit status of a ship that ended as `end` with `stats`: kExitFailure when the fleet
/// archive could not take the rows, else kExitQuarantined, kExitNotIndexed or kExitOk, in that
/// order (docs/fleet.md, "Exit statuses").
int shipExitStatus(fleet::ShipEnd end, const fleet::ShipStats& stats);

/// The status of shipExitStatus(), with the reason on stderr.
int runShip(const ShipCommand& command, std::ostream& out);

Registration<ShipCommand> registerShip(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
