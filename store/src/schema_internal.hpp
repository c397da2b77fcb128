#pragma once

#include <string>

#include <SQLiteCpp/Database.h>

namespace agentvcr::store::detail {

/// Configures a read-write connection (WAL, foreign keys) and applies every pending migration
/// in one IMMEDIATE transaction. Returns the version the file had before. Throws
/// std::runtime_error "[store.schema.newer]" / "[store.schema.foreign]".
int prepareArchive(SQLite::Database& db, const std::string& path);

/// PRAGMA user_version of an open connection.
int schemaVersionOf(SQLite::Database& db);

}  // namespace agentvcr::store::detail
