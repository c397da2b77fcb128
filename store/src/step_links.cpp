#include "agentvcr/store/step_links.hpp"

#include <set>
#include <stdexcept>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "agentvcr/store/schema.hpp"
#include "schema_internal.hpp"
#include "sqlite_support.hpp"
#include "step_link_reads.hpp"

namespace agentvcr::store {

void writeStepLinks(const std::string& db_path, const std::vector<StepLink>& links,
                    std::chrono::milliseconds busy_timeout) {
  migrateArchive(db_path, busy_timeout);
  SQLite::Database db = detail::openDatabase(db_path, SQLite::OPEN_READWRITE, busy_timeout);
  try {
    db.exec("PRAGMA foreign_keys = ON");
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement insert(db,
                             "INSERT OR REPLACE INTO step_links (step_id, recorded_step_id) VALUES "
                             "(:step_id, :recorded_step_id)");
    SQLite::Statement session_of(db, "SELECT session_id FROM steps WHERE id = :step_id");
    std::set<std::int64_t> sessions;
    for (const StepLink& link : links) {
      detail::bindInt(insert, ":step_id", link.step_id);
      detail::bindInt(insert, ":recorded_step_id", link.recorded_step_id);
      detail::execOnce(insert);
      detail::bindInt(session_of, ":step_id", link.step_id);
      if (session_of.executeStep()) {
        sessions.insert(session_of.getColumn(0).getInt64());
      }
      session_of.reset();
    }
    // Counted again rather than added to: a link may replace one the session had.
    SQLite::Statement count(db, R"sql(
      UPDATE sessions SET link_count = (SELECT count(*) FROM step_links l
                                        JOIN steps s ON s.id = l.step_id
                                        WHERE s.session_id = sessions.id)
      WHERE id = :session_id)sql");
    for (const std::int64_t session_id : sessions) {
      detail::bindInt(count, ":session_id", session_id);
      detail::execOnce(count);
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("[store.links] cannot link steps in " + db_path + ": " + e.what());
  }
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
