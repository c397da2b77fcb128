#include "a2a_reads.hpp"

#include <string>

#include <SQLiteCpp/Statement.h>

#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

constexpr const char* kCallColumns = R"sql(
  SELECT c.id, c.exchange_id, c.session_id, c.position, c.wire_version, c.method, c.rpc_id,
         c.task_id, c.context_id, c.skill_id, c.message_id, c.task_state, c.result_kind,
         c.artifacts, c.history, c.request_text, c.response_text, c.error_code,
         c.error_message, c.error_data, c.retry_after, c.replay_key, c.conversation_id,
         e.status, e.started_ns, e.ended_ns,
         (SELECT count(*) FROM stream_events v WHERE v.exchange_id = c.exchange_id)
  FROM a2a_calls c JOIN exchanges e ON e.id = c.exchange_id)sql";

A2aCallRow readCall(const SQLite::Statement& q) {
  A2aCallRow r;
  r.id = q.getColumn(0).getInt64();
  r.exchange_id = q.getColumn(1).getInt64();
  r.session_id = q.getColumn(2).getInt64();
  r.position = q.getColumn(3).getInt64();
  r.wire_version = q.getColumn(4).getString();
  r.method = optText(q, 5);
  r.rpc_id = optText(q, 6);
  r.task_id = optText(q, 7);
  r.context_id = optText(q, 8);
  r.skill_id = optText(q, 9);
  r.message_id = optText(q, 10);
  r.task_state = optText(q, 11);
  r.result_kind = optText(q, 12);
  r.artifacts = optText(q, 13);
  r.history = optText(q, 14);
  r.request_text = optText(q, 15);
  r.response_text = optText(q, 16);
  r.error_code = optInt(q, 17);
  r.error_message = optText(q, 18);
  r.error_data = optText(q, 19);
  if (!q.getColumn(20).isNull()) {
    r.retry_after = q.getColumn(20).getDouble();
  }
  r.replay_key = fromDb(q.getColumn(21).getInt64());
  r.conversation_id = optInt(q, 22);
  r.status = q.getColumn(23).getInt();
  r.started_ns = q.getColumn(24).getInt64();
  r.ended_ns = optInt(q, 25);
  r.stream_event_count = q.getColumn(26).getInt64();
  return r;
}

std::vector<A2aCallRow> readCalls(SQLite::Statement& q) {
  std::vector<A2aCallRow> rows;
  while (q.executeStep()) {
    rows.push_back(readCall(q));
  }
  return rows;
}

}  // namespace

std::vector<A2aCallRow> a2aCallsOfConversation(SQLite::Database& db, std::int64_t conversation_id) {
  SQLite::Statement q(db,
                      std::string(kCallColumns) + " WHERE c.conversation_id = ?1 ORDER BY c.id");
  bindInt(q, 1, conversation_id);
  return readCalls(q);
}

std::vector<A2aCallRow> a2aCallsOfExchange(SQLite::Database& db, std::int64_t exchange_id) {
  SQLite::Statement q(db,
                      std::string(kCallColumns) + " WHERE c.exchange_id = ?1 ORDER BY c.position");
  bindInt(q, 1, exchange_id);
  return readCalls(q);
}

void forEachA2aCall(SQLite::Database& db, const ReplaySelection& selection,
                    const std::function<void(const A2aCallRow&)>& visit) {
  std::string sql = kCallColumns;
  if (!selection.all()) {
    sql += R"sql(
  WHERE c.session_id IN (SELECT value FROM json_each(?1))
     OR c.conversation_id IN (SELECT value FROM json_each(?2)))sql";
  }
  SQLite::Statement q(db, sql + " ORDER BY c.id");
  if (!selection.all()) {
    q.bind(1, idList(selection.sessions));
    q.bind(2, idList(selection.conversations));
  }
  while (q.executeStep()) {
    visit(readCall(q));
  }
}

std::vector<StreamEventRow> streamEventsOf(SQLite::Database& db, std::int64_t exchange_id) {
  SQLite::Statement q(db, R"sql(
    SELECT id, exchange_id, position, at_ns, event, event_id, data
    FROM stream_events WHERE exchange_id = ?1 ORDER BY position)sql");
  bindInt(q, 1, exchange_id);
  std::vector<StreamEventRow> rows;
  while (q.executeStep()) {
    StreamEventRow r;
    r.id = q.getColumn(0).getInt64();
    r.exchange_id = q.getColumn(1).getInt64();
    r.position = q.getColumn(2).getInt64();
    r.at_ns = q.getColumn(3).getInt64();
    r.event = optText(q, 4);
    r.event_id = optText(q, 5);
    r.data = q.getColumn(6).getString();
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace agentvcr::store::detail
