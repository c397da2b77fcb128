#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace agentvcr::store {

/// The archive schema this build writes and reads (PRAGMA user_version; docs/schema.md).
inline constexpr int kSchemaVersion = 16;

/// Creates the archive at `path` if needed and applies every pending migration in one
/// transaction. Returns the version the file had before (0 for a new file). Throws
/// std::runtime_error with a stable id: "[store.schema.newer]" when the file was written by a
/// newer agentvcr, "[store.schema.foreign]" when it is a SQLite file that is not an archive,
/// "[store.open]" when it cannot be opened.
int migrateArchive(const std::string& path,
                   std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});

/// Indexes the exchanges a recorder captured but did not get to index (it was killed), as the
/// next recorder on the archive would: steps, calls, conversations and search rows. Migrates
/// the archive first. Returns how many exchanges it indexed. Throws like migrateArchive().
std::uint64_t indexPendingExchanges(
    const std::string& path,
    std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});

}  // namespace agentvcr::store
