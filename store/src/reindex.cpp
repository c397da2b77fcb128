#include "agentvcr/store/reindex.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "agentvcr/store/recorder.hpp"
#include "archive_writer.hpp"
#include "decode.hpp"
#include "session_lock.hpp"
#include "sqlite_support.hpp"
#include "threading.hpp"

namespace agentvcr::store {
namespace {

/// A step as threading sees it, with the times and connection of its exchange.
struct StoredStep {
  std::int64_t id = 0;
  std::int64_t exchange_id = 0;
  std::int64_t source_id = 0;
  bool is_env = false;
  std::string content;
  bool env_failure = false;
  std::uint64_t memory_hash = 0;
  std::uint64_t client = 0;
  std::int64_t started_ns = 0;
  std::int64_t answered_ns = 0;
  std::int64_t end_ns = 0;
};

struct StoredCandidate {
  std::int64_t id = 0;
  std::size_t step = 0;  ///< index into the session's steps
  bool is_error = false;
  std::string ended_in;
  std::uint64_t memory_hash = 0;
};

/// Where threading put a step.
struct Placement {
  std::int64_t conversation_id = 0;
  std::optional<std::int64_t> parent_candidate_id;
  std::int64_t ambiguity = 0;
  std::int64_t depth = 0;
};

struct Conversation {
  std::int64_t root_step_id = 0;
  bool rooted = false;  ///< root_step_id has no parent
  std::optional<std::string> title;
  std::int64_t steps = 0;
  std::int64_t candidates = 0;
  std::int64_t error_candidates = 0;
  std::int64_t env_failures = 0;
  std::int64_t max_depth = 0;
  std::int64_t first_ns = 0;
  std::int64_t last_ns = 0;
  std::optional<std::string> ended_in;
};

std::int64_t intOr(const SQLite::Column& c, std::int64_t fallback) {
  return c.isNull() ? fallback : c.getInt64();
}

/// The session's steps in the order their requests began, each exchange's together, as a live
/// capture numbers them (RecorderOptions::live_order): an older archive, or one whose
/// capture gave up waiting for a slow request, is threaded as if it had waited.
std::vector<StoredStep> loadSteps(SQLite::Database& db, std::int64_t session_id) {
  SQLite::Statement q(db, R"sql(
    SELECT s.id AS id, s.exchange_id AS exchange_id, s.source_id AS source_id,
      s.instruction_type AS instruction_type, s.instruction_content AS content,
      s.env_failure AS env_failure, s.memory_hash AS memory_hash,
      e.client_address AS client_address, e.started_ns AS started_ns,
      e.upstream_first_byte_ns AS first_byte_ns, e.ended_ns AS ended_ns
    FROM steps s JOIN exchanges e ON e.id = s.exchange_id
    WHERE s.session_id = :session
    ORDER BY e.started_ns, s.exchange_id, s.id)sql");
  q.bind(":session", static_cast<std::int64_t>(session_id));
  std::vector<StoredStep> steps;
  while (q.executeStep()) {
    StoredStep s;
    s.id = q.getColumn("id").getInt64();
    s.exchange_id = q.getColumn("exchange_id").getInt64();
    s.source_id = q.getColumn("source_id").getInt64();
    s.is_env = q.getColumn("instruction_type").getString() == "env";
    s.content = q.getColumn("content").getString();
    s.env_failure = intOr(q.getColumn("env_failure"), 0) != 0;
    s.memory_hash = detail::fromDb(q.getColumn("memory_hash").getInt64());
    s.client = detail::clientIdentity(q.getColumn("client_address").getString());
    s.started_ns = q.getColumn("started_ns").getInt64();
    const std::int64_t ended_ns = intOr(q.getColumn("ended_ns"), 0);
    s.answered_ns = intOr(q.getColumn("first_byte_ns"), ended_ns);
    s.end_ns = ended_ns != 0 ? ended_ns : s.started_ns;
    steps.push_back(std::move(s));
  }
  return steps;
}

std::vector<StoredCandidate> loadCandidates(SQLite::Database& db, std::int64_t session_id,
                                            const std::map<std::int64_t, std::size_t>& step_at) {
  SQLite::Statement q(db, R"sql(
    SELECT c.id AS id, c.step_id AS step_id, c.status AS status,
      c.decision_kind AS decision_kind, c.memory_hash AS memory_hash
    FROM candidates c JOIN steps s ON s.id = c.step_id
    WHERE s.session_id = :session
    ORDER BY c.id)sql");
  q.bind(":session", static_cast<std::int64_t>(session_id));
  std::vector<StoredCandidate> candidates;
  while (q.executeStep()) {
    StoredCandidate c;
    c.id = q.getColumn("id").getInt64();
    c.step = step_at.at(q.getColumn("step_id").getInt64());
    c.is_error = q.getColumn("status").getString() == "error";
    const SQLite::Column kind = q.getColumn("decision_kind");
    // As DecodedCandidate::endedIn() says it.
    c.ended_in = c.is_error || kind.isNull() ? "error" : kind.getString();
    c.memory_hash = detail::fromDb(q.getColumn("memory_hash").getInt64());
    candidates.push_back(std::move(c));
  }
  // In the order of their steps, which is not the order of their ids (loadSteps).
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const StoredCandidate& a, const StoredCandidate& b) { return a.step < b.step; });
  return candidates;
}

/// Adds the session's new conversations, one prepared statement for them all.
class ConversationInserter {
 public:
  ConversationInserter(SQLite::Database& db, std::int64_t session_id)
      : db_(db),
        session_id_(session_id),
        insert_(db,
                "INSERT INTO conversations (session_id, first_ns, last_ns) "
                "VALUES (:session, :first_ns, :first_ns)") {}

  std::int64_t add(std::int64_t first_ns) {
    insert_.reset();
    insert_.bind(":session", static_cast<std::int64_t>(session_id_));
    insert_.bind(":first_ns", static_cast<std::int64_t>(first_ns));
    insert_.exec();
    return db_.getLastInsertRowid();
  }

 private:
  SQLite::Database& db_;
  std::int64_t session_id_;
  SQLite::Statement insert_;
};

/// Threading by memory (docs/schema.md, "Conversation threading"), exchange by exchange in the
/// order the indexer met them: steps first, then what the exchange's candidates teach.
std::vector<Placement> placeByMemory(ConversationInserter& conversations,
                                     const std::vector<StoredStep>& steps,
                                     const std::vector<StoredCandidate>& candidates,
                                     std::size_t threading_limit) {
  detail::ThreadingIndex threading(threading_limit);
  std::vector<Placement> placements(steps.size());
  std::size_t next_candidate = 0;
  for (std::size_t first = 0; first < steps.size();) {
    std::size_t end = first;
    while (end < steps.size() && steps[end].exchange_id == steps[first].exchange_id) {
      ++end;
    }
    std::vector<std::uint64_t> new_roots;
    for (std::size_t k = first; k < end; ++k) {
      const StoredStep& s = steps[k];
      const detail::ThreadDecision decision = threading.decide(
          detail::ThreadStep{s.memory_hash, s.source_id, s.is_env, s.started_ns, s.client});
      Placement& p = placements[k];
      p.ambiguity = decision.ambiguity;
      if (decision.parent) {
        p.conversation_id = decision.parent->conversation_id;
        p.parent_candidate_id = decision.parent->candidate_id;
        p.depth = decision.parent->depth + 1;
      } else {
        p.conversation_id = conversations.add(s.started_ns);
        new_roots.push_back(s.memory_hash);
      }
    }
    threading.commitDecisions();
    for (std::uint64_t memory_hash : new_roots) {
      threading.addRoot(memory_hash);
    }
    for (; next_candidate < candidates.size() && candidates[next_candidate].step < end;
         ++next_candidate) {
      const StoredCandidate& cand = candidates[next_candidate];
      const StoredStep& s = steps[cand.step];
      const Placement& p = placements[cand.step];
      threading.addCandidate(cand.memory_hash, s.memory_hash,
                             detail::ThreadLink{cand.id, s.id, s.source_id, p.conversation_id,
                                                p.depth, s.answered_ns, s.client});
    }
    first = end;
  }
  return placements;
}

/// The recorded step a linked step re-asked, as threading needs it.
struct RecordedPlace {
  std::int64_t conversation_id = 0;
  std::int64_t depth = 0;
  std::optional<std::int64_t> parent_step_id;  ///< the recorded step its parent candidate answered
  std::int64_t parent_candidate_index = 0;
};

/// Threading by step_links (an evaluation session): each linked step is placed as the recorded
/// step it re-asked, one conversation per recorded conversation, its parent the candidate with
/// the recorded parent's candidate_index on the step that re-asked the recorded parent. The
/// recorded memories were sent, but a changed agent returns other memories: threading those
/// would split and reshape the conversations the report compares. A step without a link, or
/// whose parent's copy has no such candidate (the agent answered with fewer, or not at all),
/// keeps the recorded depth without a parent; a step without a link starts a conversation.
std::vector<Placement> placeByLinks(SQLite::Database& db, std::int64_t session_id,
                                    ConversationInserter& conversations,
                                    const std::vector<StoredStep>& steps) {
  std::map<std::int64_t, RecordedPlace> recorded_of;  // by linked step
  std::map<std::int64_t, std::int64_t> copy_of;       // recorded step -> linked step
  {
    SQLite::Statement q(db, R"sql(
      SELECT l.step_id AS step_id, l.recorded_step_id AS recorded_step_id,
        r.conversation_id AS conversation_id, r.depth AS depth, pc.step_id AS parent_step_id,
        pc.candidate_index AS parent_candidate_index
      FROM step_links l JOIN steps s ON s.id = l.step_id
      JOIN steps r ON r.id = l.recorded_step_id
      LEFT JOIN candidates pc ON pc.id = r.parent_candidate_id
      WHERE s.session_id = :session)sql");
    q.bind(":session", static_cast<std::int64_t>(session_id));
    while (q.executeStep()) {
      RecordedPlace place;
      place.conversation_id = intOr(q.getColumn("conversation_id"), 0);
      place.depth = q.getColumn("depth").getInt64();
      if (!q.getColumn("parent_step_id").isNull()) {
        place.parent_step_id = q.getColumn("parent_step_id").getInt64();
        place.parent_candidate_index = q.getColumn("parent_candidate_index").getInt64();
      }
      const std::int64_t step_id = q.getColumn("step_id").getInt64();
      recorded_of.emplace(step_id, place);
      copy_of.emplace(q.getColumn("recorded_step_id").getInt64(), step_id);
    }
  }
  // One conversation per recorded conversation, in the recorded conversations' order.
  std::map<std::int64_t, std::int64_t> first_ns_of;  // recorded conversation -> first start
  for (const StoredStep& s : steps) {
    if (auto it = recorded_of.find(s.id); it != recorded_of.end()) {
      first_ns_of.try_emplace(it->second.conversation_id, s.started_ns);
    }
  }
  std::map<std::int64_t, std::int64_t> conversation_of;  // recorded -> new
  for (const auto& [recorded, first_ns] : first_ns_of) {
    conversation_of[recorded] = conversations.add(first_ns);
  }
  SQLite::Statement candidate(db, R"sql(
    SELECT id FROM candidates WHERE step_id = :step AND candidate_index = :candidate_index)sql");
  std::vector<Placement> placements(steps.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    Placement& p = placements[k];
    const auto linked = recorded_of.find(steps[k].id);
    if (linked == recorded_of.end()) {
      p.conversation_id = conversations.add(steps[k].started_ns);
      continue;
    }
    const RecordedPlace& place = linked->second;
    p.conversation_id = conversation_of.at(place.conversation_id);
    p.depth = place.depth;
    if (!place.parent_step_id) {
      continue;
    }
    if (auto parent = copy_of.find(*place.parent_step_id); parent != copy_of.end()) {
      candidate.reset();
      candidate.bind(":step", static_cast<std::int64_t>(parent->second));
      candidate.bind(":candidate_index", static_cast<std::int64_t>(place.parent_candidate_index));
      if (candidate.executeStep()) {
        p.parent_candidate_id = candidate.getColumn(0).getInt64();
        p.ambiguity = 1;
      }
    }
  }
  return placements;
}

bool hasStepLinks(SQLite::Database& db, std::int64_t session_id) {
  // Not the session's link_count: it counts the links of A2A calls too, which thread nothing.
  SQLite::Statement q(db,
                      "SELECT EXISTS (SELECT 1 FROM step_links l JOIN steps s ON s.id = l.step_id "
                      "WHERE s.session_id = :session)");
  q.bind(":session", static_cast<std::int64_t>(session_id));
  return q.executeStep() && q.getColumn(0).getInt64() > 0;
}

ReindexedSession reindexSession(SQLite::Database& db, std::int64_t session_id,
                                std::size_t threading_limit) {
  ReindexedSession out;
  out.session_id = session_id;
  std::vector<StoredStep> steps = loadSteps(db, session_id);
  std::map<std::int64_t, std::size_t> step_at;
  std::set<std::int64_t> old_conversations;
  {
    SQLite::Statement q(db,
                        "SELECT DISTINCT conversation_id AS id FROM steps "
                        "WHERE session_id = :session");
    q.bind(":session", static_cast<std::int64_t>(session_id));
    while (q.executeStep()) {
      old_conversations.insert(q.getColumn("id").getInt64());
    }
  }
  for (std::size_t k = 0; k < steps.size(); ++k) {
    step_at.emplace(steps[k].id, k);
  }
  std::vector<StoredCandidate> candidates = loadCandidates(db, session_id, step_at);

  ConversationInserter inserter(db, session_id);
  const std::vector<Placement> placements =
      hasStepLinks(db, session_id) ? placeByLinks(db, session_id, inserter, steps)
                                   : placeByMemory(inserter, steps, candidates, threading_limit);
  std::map<std::int64_t, Conversation> conversations;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const StoredStep& s = steps[k];
    const Placement& p = placements[k];
    auto [found, added] = conversations.try_emplace(p.conversation_id);
    Conversation& c = found->second;
    if (added) {
      c.first_ns = s.started_ns;
      c.root_step_id = s.id;
    } else if (!c.rooted && !p.parent_candidate_id) {
      // Linked threading meets steps in the order they were asked, not always parent first.
      c.root_step_id = s.id;
    }
    c.rooted = c.rooted || !p.parent_candidate_id;
    if (!s.is_env && !c.title) {
      c.title = detail::conversationTitle(s.content);
    }
    ++c.steps;
    c.env_failures += s.env_failure ? 1 : 0;
    c.max_depth = std::max(c.max_depth, p.depth);
    c.last_ns = std::max(c.last_ns, s.end_ns);
  }
  for (const StoredCandidate& cand : candidates) {
    Conversation& c = conversations[placements[cand.step].conversation_id];
    ++c.candidates;
    c.error_candidates += cand.is_error ? 1 : 0;
    c.ended_in = cand.ended_in;
  }

  SQLite::Statement update_step(db, R"sql(
    UPDATE steps SET conversation_id = :conversation, parent_candidate_id = :parent,
      parent_ambiguity = :ambiguity, depth = :depth
    WHERE id = :id)sql");
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Placement& p = placements[k];
    update_step.reset();
    update_step.bind(":conversation", static_cast<std::int64_t>(p.conversation_id));
    if (p.parent_candidate_id) {
      update_step.bind(":parent", static_cast<std::int64_t>(*p.parent_candidate_id));
    } else {
      update_step.bind(":parent");
    }
    update_step.bind(":ambiguity", static_cast<std::int64_t>(p.ambiguity));
    update_step.bind(":depth", static_cast<std::int64_t>(p.depth));
    update_step.bind(":id", static_cast<std::int64_t>(steps[k].id));
    update_step.exec();
  }
  SQLite::Statement update_conversation(db, R"sql(
    UPDATE conversations SET root_step_id = :root, title = :title, step_count = :steps,
      candidate_count = :candidates, error_candidates = :error_candidates,
      env_failures = :env_failures, max_depth = :max_depth, first_ns = :first_ns,
      last_ns = :last_ns, ended_in = :ended_in
    WHERE id = :id)sql");
  for (const auto& [id, c] : conversations) {
    SQLite::Statement& u = update_conversation;
    u.reset();
    u.bind(":root", static_cast<std::int64_t>(c.root_step_id));
    if (c.title) {
      u.bind(":title", *c.title);
    } else {
      u.bind(":title");
    }
    u.bind(":steps", static_cast<std::int64_t>(c.steps));
    u.bind(":candidates", static_cast<std::int64_t>(c.candidates));
    u.bind(":error_candidates", static_cast<std::int64_t>(c.error_candidates));
    u.bind(":env_failures", static_cast<std::int64_t>(c.env_failures));
    u.bind(":max_depth", static_cast<std::int64_t>(c.max_depth));
    u.bind(":first_ns", static_cast<std::int64_t>(c.first_ns));
    u.bind(":last_ns", static_cast<std::int64_t>(c.last_ns));
    if (c.ended_in) {
      u.bind(":ended_in", *c.ended_in);
    } else {
      u.bind(":ended_in");
    }
    u.bind(":id", static_cast<std::int64_t>(id));
    u.exec();
  }
  SQLite::Statement drop(db, "DELETE FROM conversations WHERE id = :id");
  for (std::int64_t id : old_conversations) {
    drop.reset();
    drop.bind(":id", static_cast<std::int64_t>(id));
    drop.exec();
  }
  SQLite::Statement counters(db, R"sql(
    UPDATE sessions SET conversation_count = conversation_count - :before + :after
    WHERE id = :session)sql");
  out.steps = static_cast<std::int64_t>(steps.size());
  out.conversations_before = static_cast<std::int64_t>(old_conversations.size());
  out.conversations_after = static_cast<std::int64_t>(conversations.size());
  counters.bind(":before", static_cast<std::int64_t>(out.conversations_before));
  counters.bind(":after", static_cast<std::int64_t>(out.conversations_after));
  counters.bind(":session", static_cast<std::int64_t>(session_id));
  counters.exec();
  return out;
}

}  // namespace

std::vector<ReindexedSession> reindexSessions(const std::string& path,
                                              const std::vector<std::int64_t>& session_ids,
                                              std::chrono::milliseconds busy_timeout) {
  RecorderOptions options;
  options.busy_timeout = busy_timeout;
  SQLite::Database db = detail::openWriterConnection(path, options);
  std::vector<std::int64_t> ids = session_ids;
  if (ids.empty()) {
    SQLite::Statement q(db, "SELECT id FROM sessions ORDER BY id");
    while (q.executeStep()) {
      ids.push_back(q.getColumn("id").getInt64());
    }
  }
  std::vector<ReindexedSession> done;
  for (std::int64_t id : ids) {
    // Held for the whole transaction: a recorder of this session cannot be running.
    detail::SessionLock lock(path, id, detail::SessionLock::Kind::Rewriting);
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement exists(db, "SELECT count(*) AS n FROM sessions WHERE id = :id");
    exists.bind(":id", static_cast<std::int64_t>(id));
    exists.executeStep();
    if (exists.getColumn("n").getInt64() == 0) {
      throw std::runtime_error("[store.reindex] no session " + std::to_string(id) + " in " + path);
    }
    done.push_back(reindexSession(db, id, options.threading_index_limit));
    tx.commit();
  }
  return done;
}

}  // namespace agentvcr::store
