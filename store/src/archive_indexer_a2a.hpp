#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "archive_indexer.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

/// The indexer's prepared statements for A2A calls, their conversations and stream events.
struct ArchiveIndexer::A2aStatements {
  explicit A2aStatements(SQLite::Database& db);

  ReusedStatement call;
  ReusedStatement conversation_by_context;
  ReusedStatement conversation_by_task;
  ReusedStatement new_conversation;
  ReusedStatement conversation_update;
  ReusedStatement stream_event;
};

}  // namespace agentvcr::store::detail
