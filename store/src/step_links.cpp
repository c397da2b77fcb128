#include "agentvcr/store/step_links.hpp"

#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "agentvcr/store/schema.hpp"
#include "schema_internal.hpp"
#include "sqlite_support.hpp"
#include "step_link_reads.hpp"

namespace agentvcr::store {

namespace {

/// Writes links of one kind in one transaction: `insert` binds :id and :recorded_id, and
/// `session_of` finds the session of :id. Each session's link_count is counted again after,
/// steps and calls together, rather than added to: a link may replace one the session had.
template <class Link, class Ids>
void writeLinks(const std::string& db_path, const std::vector<Link>& links,
                std::chrono::milliseconds busy_timeout, const char* insert_sql,
                const char* session_sql, const char* what, Ids ids) {
  migrateArchive(db_path, busy_timeout);
  SQLite::Database db = detail::openDatabase(db_path, SQLite::OPEN_READWRITE, busy_timeout);
  try {
    db.exec("PRAGMA foreign_keys = ON");
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement insert(db, insert_sql);
    SQLite::Statement session_of(db, session_sql);
    std::set<std::int64_t> sessions;
    for (const Link& link : links) {
      const auto [id, recorded_id] = ids(link);
      detail::bindInt(insert, ":id", id);
      detail::bindInt(insert, ":recorded_id", recorded_id);
      detail::execOnce(insert);
      detail::bindInt(session_of, ":id", id);
      if (session_of.executeStep()) {
        sessions.insert(session_of.getColumn(0).getInt64());
      }
      session_of.reset();
    }
    SQLite::Statement count(db, R"sql(
      UPDATE sessions SET link_count =
        (SELECT count(*) FROM step_links l JOIN steps s ON s.id = l.step_id
         WHERE s.session_id = sessions.id) +
        (SELECT count(*) FROM call_links l JOIN a2a_calls c ON c.id = l.call_id
         WHERE c.session_id = sessions.id)
      WHERE id = :session_id)sql");
    for (const std::int64_t session_id : sessions) {
      detail::bindInt(count, ":session_id", session_id);
      detail::execOnce(count);
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(std::string("[store.links] cannot link ") + what + " in " + db_path +
                             ": " + e.what());
  }
}

}  // namespace

void writeStepLinks(const std::string& db_path, const std::vector<StepLink>& links,
                    std::chrono::milliseconds busy_timeout) {
  writeLinks(db_path, links, busy_timeout,
             "INSERT OR REPLACE INTO step_links (step_id, recorded_step_id) VALUES (:id, "
             ":recorded_id)",
             "SELECT session_id FROM steps WHERE id = :id", "steps",
             [](const StepLink& link) { return std::pair(link.step_id, link.recorded_step_id); });
}

void writeCallLinks(const std::string& db_path, const std::vector<CallLink>& links,
                    std::chrono::milliseconds busy_timeout) {
  writeLinks(db_path, links, busy_timeout,
             "INSERT OR REPLACE INTO call_links (call_id, recorded_call_id) VALUES (:id, "
             ":recorded_id)",
             "SELECT session_id FROM a2a_calls WHERE id = :id", "A2A calls",
             [](const CallLink& link) { return std::pair(link.call_id, link.recorded_call_id); });
}

namespace detail {

std::vector<StepLink> stepLinksOfSession(SQLite::Database& db, std::int64_t session_id) {
  SQLite::Statement q(db, R"sql(
    SELECT l.step_id, l.recorded_step_id
    FROM step_links l JOIN steps s ON s.id = l.step_id
    WHERE s.session_id = :session_id ORDER BY l.step_id)sql");
  bindInt(q, ":session_id", session_id);
  const NamedColumns c(q);
  std::vector<StepLink> links;
  while (q.executeStep()) {
    links.push_back({c.get("step_id").getInt64(), c.get("recorded_step_id").getInt64()});
  }
  return links;
}

std::vector<CallLink> callLinksOfSession(SQLite::Database& db, std::int64_t session_id) {
  SQLite::Statement q(db, R"sql(
    SELECT l.call_id, l.recorded_call_id
    FROM call_links l JOIN a2a_calls c ON c.id = l.call_id
    WHERE c.session_id = :session_id ORDER BY l.call_id)sql");
  bindInt(q, ":session_id", session_id);
  const NamedColumns c(q);
  std::vector<CallLink> links;
  while (q.executeStep()) {
    links.push_back({c.get("call_id").getInt64(), c.get("recorded_call_id").getInt64()});
  }
  return links;
}

std::vector<EvaluationPair> evaluationPairsOf(SQLite::Database& db, std::int64_t conversation_id) {
  SQLite::Statement q(db, R"sql(
    SELECT DISTINCT r.conversation_id AS recorded_conversation_id,
      e.conversation_id AS evaluated_conversation_id
    FROM step_links l
    JOIN steps e ON e.id = l.step_id
    JOIN steps r ON r.id = l.recorded_step_id
    WHERE (r.conversation_id = :conversation_id OR e.conversation_id = :conversation_id)
      AND r.conversation_id IS NOT NULL AND e.conversation_id IS NOT NULL
    ORDER BY e.conversation_id, r.conversation_id)sql");
  bindInt(q, ":conversation_id", conversation_id);
  const NamedColumns c(q);
  std::vector<EvaluationPair> pairs;
  while (q.executeStep()) {
    pairs.push_back({c.get("recorded_conversation_id").getInt64(),
                     c.get("evaluated_conversation_id").getInt64()});
  }
  return pairs;
}

}  // namespace detail
}  // namespace agentvcr::store
