#pragma once

#include <chrono>
#include <string>

#include <SQLiteCpp/Database.h>

namespace agentvcr::store::detail {

/// Configures a read-write connection (WAL, foreign keys) and applies every pending migration
/// in one IMMEDIATE transaction. Returns the version the file had before. Throws
/// std::runtime_error "[store.schema.newer]" / "[store.schema.foreign]".
int prepareArchive(SQLite::Database& db, const std::string& path);

/// The data step of migration 16 (schema_v16.cpp): MAGMA bodies into segments, prompts into
/// references to their bodies, each prompt's new part searchable.
void convertToVersion16(SQLite::Database& db);

/// PRAGMA user_version of an open connection.
int schemaVersionOf(SQLite::Database& db);

/// Opens the archive at `path` read-only, for a reader that never writes it (and so never
/// migrates it): throws std::runtime_error "[store.open] no archive at PATH" when there is no
/// such file, "[store.open]" when it cannot be read,
/// "[store.schema.foreign]" when it is not an archive, "[store.schema.newer]", and
/// "[store.schema.old]" naming `agentvcr migrate --db PATH` when it is older than this agentvcr.
SQLite::Database openCurrentArchive(const std::string& path,
                                    std::chrono::milliseconds busy_timeout);

}  // namespace agentvcr::store::detail
