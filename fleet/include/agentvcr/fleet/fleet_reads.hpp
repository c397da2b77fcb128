#pragma once

#include <string>
#include <vector>

#include "agentvcr/store/rows.hpp"
#include "agentvcr/store/stats.hpp"

/// What `agentvcr ls` and `agentvcr stats` read from the fleet archive directly. Everything else
/// works on a slice pulled into a SQLite archive (pull.hpp).
namespace agentvcr::fleet {

/// Every session of the fleet archive, oldest first, with its node and totals (`id` is 0: the
/// uuid names a session there). Throws PgError "[fleet.*]".
std::vector<store::SessionRow> fleetSessions(const std::string& uri);

/// The same aggregates as store::collectStats(), for every session of the fleet archive.
/// Throws PgError "[fleet.*]".
store::ArchiveStats collectFleetStats(const std::string& uri);

}  // namespace agentvcr::fleet
