// The A2A half of the indexer: a2a_calls rows, conversations by contextId, stream events.

#include "archive_indexer_a2a.hpp"

#include "agentvcr/protocol/a2a.hpp"
#include "decode.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

/// The call's task state in one vocabulary for both wire versions (normalTaskState()).
std::optional<std::string> normalState(const protocol::a2a::Call& call) {
  if (!call.task_state) {
    return std::nullopt;
  }
  return std::string(protocol::a2a::normalTaskState(*call.task_state));
}

/// What a call tells its conversation about how things stand: the normal task state, or
/// "error".
std::optional<std::string> endedIn(const protocol::a2a::Call& call) {
  if (call.error_code) {
    return std::string("error");
  }
  return normalState(call);
}

}  // namespace

ArchiveIndexer::A2aStatements::A2aStatements(SQLite::Database& db)
    : call(db, R"sql(
        INSERT INTO a2a_calls (exchange_id, session_id, position, wire_version, method, rpc_id,
          task_id, context_id, skill_id, message_id, task_state, task_state_norm, result_kind,
          artifacts, history, request_text, response_text, error_code, error_message, error_data,
          retry_after, replay_key, conversation_id)
        VALUES (:exchange_id, :session_id, :position, :wire_version, :method, :rpc_id,
          :task_id, :context_id, :skill_id, :message_id, :task_state, :task_state_norm,
          :result_kind, :artifacts, :history, :request_text, :response_text, :error_code, :error_message, :error_data,
          :retry_after, :replay_key, :conversation_id))sql"),
      conversation_by_context(db, R"sql(
        SELECT id FROM conversations
        WHERE session_id = :session_id AND context_id = :context_id ORDER BY id LIMIT 1)sql"),
      conversation_by_task(db, R"sql(
        SELECT conversation_id FROM a2a_calls
        WHERE session_id = :session_id AND task_id = :task_id AND conversation_id IS NOT NULL
        ORDER BY id DESC LIMIT 1)sql"),
      new_conversation(db, R"sql(
        INSERT INTO conversations (session_id, first_ns, last_ns, protocol, context_id)
        VALUES (:session_id, :first_ns, :first_ns, 'a2a', :context_id))sql"),
      conversation_update(db, R"sql(
        UPDATE conversations SET
          title = coalesce(title, :title),
          step_count = step_count + 1,
          error_candidates = error_candidates + :error_candidates,
          last_ns = max(coalesce(last_ns, :last_ns), :last_ns),
          ended_in = coalesce(:ended_in, ended_in)
        WHERE id = :id)sql"),
      stream_event(db, R"sql(
        INSERT INTO stream_events (exchange_id, position, at_ns, event, event_id, data)
        VALUES (:exchange_id, :position, :at_ns, :event, :event_id, :data))sql") {}

void ArchiveIndexer::writeA2aAndStream(const DecodedExchange& d, std::int64_t exchange_id,
                                       std::int64_t session_id, SessionDelta& delta,
                                       std::vector<SearchRow>& search_rows) {
  A2aStatements& st = *a2a_st_;
  const protocol::Exchange& ex = d.exchange;
  const std::int64_t end_ns = ex.ended_ns != 0 ? ex.ended_ns : ex.started_ns;

  for (const protocol::a2a::Call& call : d.a2a_calls) {
    std::optional<std::int64_t> conversation_id;
    if (call.context_id) {
      bindInt(st.conversation_by_context, ":session_id", session_id);
      bindText(st.conversation_by_context, ":context_id", *call.context_id);
      conversation_id = queryOptInt(st.conversation_by_context);
      if (!conversation_id) {
        bindInt(st.new_conversation, ":session_id", session_id);
        bindInt(st.new_conversation, ":first_ns", ex.started_ns);
        bindText(st.new_conversation, ":context_id", *call.context_id);
        execOnce(st.new_conversation);
        conversation_id = db_.getLastInsertRowid();
        ++delta.conversations;
      }
    } else if (call.task_id) {
      bindInt(st.conversation_by_task, ":session_id", session_id);
      bindText(st.conversation_by_task, ":task_id", *call.task_id);
      conversation_id = queryOptInt(st.conversation_by_task);
    }

    const std::string wire_version = protocol::a2a::wireVersionName(call.wire_version);
    ReusedStatement& s = st.call;
    bindInt(s, ":exchange_id", exchange_id);
    bindInt(s, ":session_id", session_id);
    bindInt(s, ":position", static_cast<std::int64_t>(call.position));
    bindText(s, ":wire_version", wire_version);
    bindOptText(s, ":method", call.method);
    bindOptText(s, ":rpc_id", call.rpc_id);
    bindOptText(s, ":task_id", call.task_id);
    bindOptText(s, ":context_id", call.context_id);
    bindOptText(s, ":skill_id", call.skill_id);
    bindOptText(s, ":message_id", call.message_id);
    bindOptText(s, ":task_state", call.task_state);
    const std::optional<std::string> state = normalState(call);
    bindOptText(s, ":task_state_norm", state);
    bindOptText(s, ":result_kind", call.result_kind);
    bindOptText(s, ":artifacts", call.artifacts);
    bindOptText(s, ":history", call.history);
    bindOptText(s, ":request_text", call.request_text);
    bindOptText(s, ":response_text", call.response_text);
    bindOptInt(s, ":error_code", call.error_code);
    bindOptText(s, ":error_message", call.error_message);
    bindOptText(s, ":error_data", call.error_data);
    bindOptDouble(s, ":retry_after", call.retry_after);
    bindInt(s, ":replay_key", toDb(call.replay_key));
    bindOptInt(s, ":conversation_id", conversation_id);
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
      ReusedStatement& u = st.conversation_update;
      bindOptText(u, ":title", title);
      bindInt(u, ":error_candidates", call.error_code ? 1 : 0);
      bindInt(u, ":last_ns", end_ns);
      bindOptText(u, ":ended_in", ended);
      bindInt(u, ":id", *conversation_id);
      execOnce(u);
    }
  }

  std::int64_t position = 0;
  for (const DecodedStreamEvent& event : d.stream_events) {
    ReusedStatement& s = st.stream_event;
    bindInt(s, ":exchange_id", exchange_id);
    bindInt(s, ":position", position++);
    bindInt(s, ":at_ns", event.at_ns);
    bindOptText(s, ":event", event.event);
    bindOptText(s, ":event_id", event.event_id);
    bindText(s, ":data", event.data);
    execOnce(s);
  }
}

}  // namespace agentvcr::store::detail
