#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agentvcr/fleet/pg_connection.hpp"

/// `agentvcr pg prune`: old sessions out of the fleet archive (docs/fleet.md).
namespace agentvcr::fleet {

/// What a prune removed, or would remove.
struct PruneResult {
  std::int64_t sessions = 0;
  std::int64_t exchanges = 0;
  std::vector<std::string> months;  ///< months dropped whole, as 2026-10-01
  std::int64_t blobs = 0;           ///< blobs no remaining row refers to
  std::int64_t dictionaries = 0;    ///< body dictionaries no remaining row refers to
};

/// Removes every session that started before `before` (a date or a time; UTC unless it names a
/// zone) with all its rows: the months that end by then are dropped whole, the rest deleted row
/// by row; then the blobs and dictionaries nothing refers to any more, and the sessions' ship
/// positions and quarantined items. Each pruned session leaves a tombstone that every shipper
/// checks before it writes, so no copy of the session, however late, brings it back. One
/// transaction, under the lock shippers hold while they write a batch. With `dry_run` nothing
/// changes: the counts say what would go. Throws PgError, "[fleet.prune] ..." for a `before`
/// that is not a time.
PruneResult pruneFleet(PgConnection& conn, const std::string& before, bool dry_run);

/// `agentvcr pg unprune`: removes the tombstones of the sessions `sessions` name, so that the next
/// shipper of an archive that holds them ships them again. Each names sessions by uuid, whole or
/// its first 8 characters or more, in either case (store::uuidPrefix()); one that names several
/// is refused unless `all_matching`. Returns the uuids unpruned. Throws std::runtime_error
/// "[fleet.unprune] ..." for a name that is no uuid or its start, or that names several, before
/// anything is unpruned; PgError.
std::vector<std::string> unpruneFleet(PgConnection& conn, const std::vector<std::string>& sessions,
                                      bool all_matching);

}  // namespace agentvcr::fleet
