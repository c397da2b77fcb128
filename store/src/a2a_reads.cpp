#include "a2a_reads.hpp"

#include <string>

#include <SQLiteCpp/Statement.h>

#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

constexpr const char* kCallColumns = R"sql(
  SELECT c.id, c.exchange_id, c.session_id, c.position, c.wire_version, c.method, c.rpc_id,
         c.task_id, c.context_id, c.skill_id, c.message_id, c.task_state, c.task_state_norm,
         c.result_kind,
         c.artifacts, c.history, c.request_text, c.response_text, c.error_code,
         c.error_message, c.error_data, c.retry_after, c.replay_key, c.conversation_id,
         e.status, e.fault, e.started_ns, e.ended_ns,
         (SELECT count(*) FROM stream_events v WHERE v.exchange_id = c.exchange_id)
           AS stream_event_count
  FROM a2a_calls c JOIN exchanges e ON e.id = c.exchange_id)sql";

A2aCallRow readCall(const NamedColumns& c) {
  A2aCallRow r;
  r.id = c.get("id").getInt64();
  r.exchange_id = c.get("exchange_id").getInt64();
  r.session_id = c.get("session_id").getInt64();
  r.position = c.get("position").getInt64();
  r.wire_version = c.get("wire_version").getString();
  r.method = c.optText("method");
  r.rpc_id = c.optText("rpc_id");
  r.task_id = c.optText("task_id");
  r.context_id = c.optText("context_id");
  r.skill_id = c.optText("skill_id");
  r.message_id = c.optText("message_id");
  r.task_state = c.optText("task_state");
  r.task_state_norm = c.optText("task_state_norm");
  r.result_kind = c.optText("result_kind");
  r.artifacts = c.optText("artifacts");
  r.history = c.optText("history");
  r.request_text = c.optText("request_text");
  r.response_text = c.optText("response_text");
  r.error_code = c.optInt("error_code");
  r.error_message = c.optText("error_message");
  r.error_data = c.optText("error_data");
  if (!c.get("retry_after").isNull()) {
    r.retry_after = c.get("retry_after").getDouble();
  }
  r.replay_key = fromDb(c.get("replay_key").getInt64());
  r.conversation_id = c.optInt("conversation_id");
  r.status = c.get("status").getInt();
  r.fault = c.optText("fault");
  r.started_ns = c.get("started_ns").getInt64();
  r.ended_ns = c.optInt("ended_ns");
  r.stream_event_count = c.get("stream_event_count").getInt64();
  return r;
}

std::vector<A2aCallRow> readCalls(SQLite::Statement& q) {
  const NamedColumns columns(q);
  std::vector<A2aCallRow> rows;
  while (q.executeStep()) {
    rows.push_back(readCall(columns));
  }
  return rows;
}

}  // namespace

std::vector<A2aCallRow> a2aCallsOfConversation(SQLite::Database& db, std::int64_t conversation_id) {
  SQLite::Statement q(
      db, std::string(kCallColumns) + " WHERE c.conversation_id = :conversation_id ORDER BY c.id");
  bindInt(q, ":conversation_id", conversation_id);
  return readCalls(q);
}

std::optional<A2aCallRow> a2aCallById(SQLite::Database& db, std::int64_t call_id) {
  SQLite::Statement q(db, std::string(kCallColumns) + " WHERE c.id = :call_id");
  bindInt(q, ":call_id", call_id);
  std::vector<A2aCallRow> rows = readCalls(q);
  if (rows.empty()) {
    return std::nullopt;
  }
  return std::move(rows.front());
}

std::vector<A2aCallRow> a2aCallsOfExchange(SQLite::Database& db, std::int64_t exchange_id) {
  SQLite::Statement q(
      db, std::string(kCallColumns) + " WHERE c.exchange_id = :exchange_id ORDER BY c.position");
  bindInt(q, ":exchange_id", exchange_id);
  return readCalls(q);
}

void forEachA2aCall(SQLite::Database& db, const ReplaySelection& selection,
                    const std::function<void(const A2aCallRow&)>& visit) {
  std::string sql = kCallColumns + (" WHERE " + servableExchange("e"));
  if (!selection.all()) {
    sql += R"sql(
  AND (c.session_id IN (SELECT value FROM json_each(:session_ids))
       OR c.conversation_id IN (SELECT value FROM json_each(:conversation_ids))))sql";
  }
  SQLite::Statement q(db, sql + " ORDER BY c.id");
  if (!selection.all()) {
    q.bind(":session_ids", idList(selection.sessions));
    q.bind(":conversation_ids", idList(selection.conversations));
  }
  const NamedColumns columns(q);
  while (q.executeStep()) {
    visit(readCall(columns));
  }
}

std::vector<StreamEventRow> streamEventsOf(SQLite::Database& db, std::int64_t exchange_id) {
  SQLite::Statement q(db, R"sql(
    SELECT id, exchange_id, position, at_ns, event, event_id, data
    FROM stream_events WHERE exchange_id = :exchange_id ORDER BY position)sql");
  bindInt(q, ":exchange_id", exchange_id);
  const NamedColumns c(q);
  std::vector<StreamEventRow> rows;
  while (q.executeStep()) {
    StreamEventRow r;
    r.id = c.get("id").getInt64();
    r.exchange_id = c.get("exchange_id").getInt64();
    r.position = c.get("position").getInt64();
    r.at_ns = c.get("at_ns").getInt64();
    r.event = c.optText("event");
    r.event_id = c.optText("event_id");
    r.data = c.get("data").getString();
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace agentvcr::store::detail
