#pragma once

// Reads of the A2A tables of schema version 5 (ArchiveReader's A2A queries). Private to the
// store; each throws SQLite::Exception.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::store::detail {

std::vector<A2aCallRow> a2aCallsOfConversation(SQLite::Database& db, std::int64_t conversation_id);
std::vector<A2aCallRow> a2aCallsOfExchange(SQLite::Database& db, std::int64_t exchange_id);
std::optional<A2aCallRow> a2aCallById(SQLite::Database& db, std::int64_t call_id);
void forEachA2aCall(SQLite::Database& db, const ReplaySelection& selection,
                    const std::function<void(const A2aCallRow&)>& visit);
std::vector<StreamEventRow> streamEventsOf(SQLite::Database& db, std::int64_t exchange_id);

}  // namespace agentvcr::store::detail
