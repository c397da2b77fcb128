#pragma once

#include <string>

#include "agentvcr/fleet/pg_connection.hpp"

/// The fleet archive's tables in PostgreSQL (docs/fleet.md): the SQLite archive's tables and
/// meanings, each row keyed by its session's uuid and its natural position.
namespace agentvcr::fleet {

/// The fleet schema this build writes and reads (agentvcr_fleet_schema.version).
inline constexpr int kFleetSchemaVersion = 8;

/// The advisory lock shippers hold shared while they write a batch and `agentvcr pg prune` holds
/// alone, so that a prune never deletes a blob a batch in flight counts on. The fleet schema's
/// agentvcr_file_month() takes it too, by this number.
inline constexpr long long kMonthsLock = 7236712332;

/// The database holds no fleet archive, or one of another version: shipping cannot start
/// until someone migrates it (or upgrades agentvcr). Retrying does not help.
class FleetSchemaError : public PgError {
 public:
  explicit FleetSchemaError(const std::string& message) : PgError(message, "", false) {}
};

/// The version the database at `conn` holds; 0 when it holds no fleet archive yet.
int fleetSchemaVersion(PgConnection& conn);

/// Brings the database to `to_version` (never down) under a transaction-level advisory lock, so
/// that two migrations at once apply each step once. Returns the version it found. Throws
/// PgError "[fleet.schema.newer] ..." when the database is newer than this agentvcr.
int migrateFleet(PgConnection& conn, int to_version = kFleetSchemaVersion);

/// Throws PgError with what to do unless the database holds exactly kFleetSchemaVersion:
/// "[fleet.schema.missing]" and "[fleet.schema.older]" name `agentvcr pg migrate`,
/// "[fleet.schema.newer]" names both versions.
void requireFleetSchema(PgConnection& conn);

}  // namespace agentvcr::fleet
