// The A2A half of the indexer: a2a_calls rows, conversations by contextId, stream events.

#include "archive_indexer_a2a.hpp"

#include "decode.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

/// What a call tells its conversation about how things stand: the task state, or "error".
std::optional<std::string> endedIn(const protocol::a2a::Call& call) {
  if (call.error_code) {
    return std::string("error");
  }
  return call.task_state;
}

}  // namespace

ArchiveIndexer::A2aStatements::A2aStatements(SQLite::Database& db)
    : call(db, R"sql(
        INSERT INTO a2a_calls (exchange_id, session_id, position, wire_version, method, rpc_id,
          task_id, context_id, skill_id, message_id, task_state, result_kind, artifacts,
          history, request_text, response_text, error_code, error_message, error_data,
          retry_after, replay_key, conversation_id)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                ?19, ?20, ?21, ?22))sql"),
      conversation_by_context(db, R"sql(
        SELECT id FROM conversations
        WHERE session_id = ?1 AND context_id = ?2 ORDER BY id LIMIT 1)sql"),
      conversation_by_task(db, R"sql(
        SELECT conversation_id FROM a2a_calls
        WHERE session_id = ?1 AND task_id = ?2 AND conversation_id IS NOT NULL
        ORDER BY id DESC LIMIT 1)sql"),
      new_conversation(db, R"sql(
        INSERT INTO conversations (session_id, first_ns, last_ns, protocol, context_id)
        VALUES (?1, ?2, ?2, 'a2a', ?3))sql"),
      conversation_update(db, R"sql(
        UPDATE conversations SET
          title = coalesce(title, ?1),
          step_count = step_count + 1,
          error_candidates = error_candidates + ?2,
          last_ns = max(coalesce(last_ns, ?3), ?3),
          ended_in = coalesce(?4, ended_in)
        WHERE id = ?5)sql"),
      stream_event(db, R"sql(
        INSERT INTO stream_events (exchange_id, position, at_ns, event, event_id, data)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6))sql") {}

void ArchiveIndexer::writeA2aAndStream(const DecodedExchange& d, std::int64_t exchange_id,
                                       std::int64_t session_id, SessionDelta& delta,
                                       std::vector<SearchRow>& search_rows) {
  A2aStatements& st = *a2a_st_;
  const protocol::Exchange& ex = d.exchange;
  const std::int64_t end_ns = ex.ended_ns != 0 ? ex.ended_ns : ex.started_ns;

  for (const protocol::a2a::Call& call : d.a2a_calls) {
    std::optional<std::int64_t> conversation_id;
    if (call.context_id) {
      bindInt(st.conversation_by_context, 1, session_id);
      bindText(st.conversation_by_context, 2, *call.context_id);
      conversation_id = queryOptInt(st.conversation_by_context);
      if (!conversation_id) {
        bindInt(st.new_conversation, 1, session_id);
        bindInt(st.new_conversation, 2, ex.started_ns);
        bindText(st.new_conversation, 3, *call.context_id);
        execOnce(st.new_conversation);
        conversation_id = db_.getLastInsertRowid();
        ++delta.conversations;
      }
    } else if (call.task_id) {
      bindInt(st.conversation_by_task, 1, session_id);
      bindText(st.conversation_by_task, 2, *call.task_id);
      conversation_id = queryOptInt(st.conversation_by_task);
    }

    const std::string wire_version = protocol::a2a::wireVersionName(call.wire_version);
    SQLite::Statement& s = st.call;
    bindInt(s, 1, exchange_id);
    bindInt(s, 2, session_id);
    bindInt(s, 3, static_cast<std::int64_t>(call.position));
    bindText(s, 4, wire_version);
    bindOptText(s, 5, call.method);
    bindOptText(s, 6, call.rpc_id);
    bindOptText(s, 7, call.task_id);
    bindOptText(s, 8, call.context_id);
    bindOptText(s, 9, call.skill_id);
    bindOptText(s, 10, call.message_id);
    bindOptText(s, 11, call.task_state);
    bindOptText(s, 12, call.result_kind);
    bindOptText(s, 13, call.artifacts);
    bindOptText(s, 14, call.history);
    bindOptText(s, 15, call.request_text);
    bindOptText(s, 16, call.response_text);
    bindOptInt(s, 17, call.error_code);
    bindOptText(s, 18, call.error_message);
    bindOptText(s, 19, call.error_data);
    bindOptDouble(s, 20, call.retry_after);
    bindInt(s, 21, toDb(call.replay_key));
    bindOptInt(s, 22, conversation_id);
    execOnce(s);
    if (call.request_text || call.response_text || call.error_message) {
      search_rows.push_back(SearchRow{SearchRow::Table::A2aCalls, db_.getLastInsertRowid(),
                                      call.request_text, call.response_text, call.error_message});
    }

    if (conversation_id) {
      std::optional<std::string> title;
      if (call.request_text) {
        title = conversationTitle(*call.request_text);
      }
      const std::optional<std::string> ended = endedIn(call);
      SQLite::Statement& u = st.conversation_update;
      bindOptText(u, 1, title);
      bindInt(u, 2, call.error_code ? 1 : 0);
      bindInt(u, 3, end_ns);
      bindOptText(u, 4, ended);
      bindInt(u, 5, *conversation_id);
      execOnce(u);
    }
  }

  std::int64_t position = 0;
  for (const DecodedStreamEvent& event : d.stream_events) {
    SQLite::Statement& s = st.stream_event;
    bindInt(s, 1, exchange_id);
    bindInt(s, 2, position++);
    bindInt(s, 3, event.at_ns);
    bindOptText(s, 4, event.event);
    bindOptText(s, 5, event.event_id);
    bindText(s, 6, event.data);
    execOnce(s);
  }
}

}  // namespace agentvcr::store::detail
