#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "archive_indexer.hpp"

namespace agentvcr::store::detail {

/// The indexer's prepared statements for A2A calls, their conversations and stream events.
struct ArchiveIndexer::A2aStatements {
  explicit A2aStatements(SQLite::Database& db);

  SQLite::Statement call;
  SQLite::Statement conversation_by_context;
  SQLite::Statement conversation_by_task;
  SQLite::Statement new_conversation;
  SQLite::Statement conversation_update;
  SQLite::Statement stream_event;
};

}  // namespace agentvcr::store::detail
