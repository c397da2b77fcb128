#include "agentvcr/store/change_feed.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/protocol/json_spans.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/schema.hpp"
#include "body_compression.hpp"
#include "body_segments.hpp"
#include "schema_internal.hpp"
#include "session_lock.hpp"
#include "sqlite_support.hpp"
#include "stored_bodies.hpp"

namespace agentvcr::store {
namespace {

// Columns named `local_*` are this file's own ids: the feed reads them to find related rows and
// never hands them on.
constexpr std::string_view kLocalPrefix = "local_";
// A local column that adds to a row's weight against FeedLimits::bytes: what the row will hold
// once it is ready to ship (a segmented body travels as a frame of its own).
constexpr std::string_view kExtraBytes = "local_extra_bytes";

constexpr const char* kExchanges = R"sql(
  SELECT id AS local_id, indexed AS local_indexed, seq, client_address, method, target,
         http_version, status, request_headers, request_body, request_body_codec,
         request_body_size, request_body_dictionary AS local_request_dictionary,
         request_body_redacted, response_headers, response_body, response_body_codec,
         response_body_size, response_body_dictionary AS local_response_dictionary,
         response_from_upstream, started_ns, request_ended_ns, upstream_sent_ns,
         upstream_first_byte_ns, upstream_last_byte_ns, ended_ns, outcome, error, fault,
         card_rewrite, protocol, route,
         magma_request_id, request_valid, response_valid, findings, decoder_version,
         CASE WHEN body_segment_id IS NULL THEN 0
              ELSE request_body_size + response_body_size END AS local_extra_bytes,
         body_segment_id AS local_body_segment
  FROM exchanges WHERE session_id = :session AND seq >= :next ORDER BY seq LIMIT :limit)sql";

constexpr const char* kSteps = R"sql(
  SELECT e.seq, s.position, s.source_id, s.replay_key, s.instruction_type,
         s.instruction_content, s.env_feedback, s.env_failure, s.memory_hash, s.tools_hash,
         s.attributes_hash, s.extra_keys_hash, s.num_outputs, s.conversation_id AS conversation,
         pe.seq AS parent_seq, ps.position AS parent_position,
         pc.candidate_index AS parent_candidate_index, s.parent_ambiguity, s.depth
  FROM steps s
  JOIN exchanges e ON e.id = s.exchange_id
  LEFT JOIN candidates pc ON pc.id = s.parent_candidate_id
  LEFT JOIN steps ps ON ps.id = pc.step_id
  LEFT JOIN exchanges pe ON pe.id = ps.exchange_id
  WHERE s.exchange_id BETWEEN :first AND :last AND e.session_id = :session
  ORDER BY e.seq, s.position)sql";

constexpr const char* kCandidates = R"sql(
  SELECT e.seq, s.position, c.candidate_index, c.status, c.say, c.tool_calls, c.decision_kind,
         c.error_code, c.error_message, c.error_component, c.memory_hash,
         c.internal_step_count
  FROM candidates c
  JOIN steps s ON s.id = c.step_id
  JOIN exchanges e ON e.id = s.exchange_id
  WHERE s.exchange_id BETWEEN :first AND :last AND e.session_id = :session
  ORDER BY e.seq, s.position, c.candidate_index)sql";

constexpr const char* kInternalSteps = R"sql(
  SELECT e.seq, s.position AS input_position, c.candidate_index, i.position, i.step_key,
         i.component, i.origin, i.full_prompt, i.full_prompt_at, i.prompt_new, i.output_raw,
         i.rest, e.id AS local_exchange
  FROM internal_steps i
  JOIN candidates c ON c.id = i.candidate_id
  JOIN steps s ON s.id = c.step_id
  JOIN exchanges e ON e.id = s.exchange_id
  WHERE s.exchange_id BETWEEN :first AND :last AND e.session_id = :session
  ORDER BY e.seq, s.position, c.candidate_index, i.position)sql";

constexpr const char* kA2aCalls = R"sql(
  SELECT e.seq, a.position, a.wire_version, a.method, a.rpc_id, a.task_id, a.context_id,
         a.skill_id, a.message_id, a.task_state, a.task_state_norm, a.result_kind, a.artifacts,
         a.history, a.request_text, a.response_text, a.error_code, a.error_message,
         a.error_data, a.retry_after, a.replay_key, a.conversation_id AS conversation
  FROM a2a_calls a
  JOIN exchanges e ON e.id = a.exchange_id
  WHERE a.exchange_id BETWEEN :first AND :last AND e.session_id = :session
  ORDER BY e.seq, a.position)sql";

constexpr const char* kStreamEvents = R"sql(
  SELECT e.seq, v.position, v.at_ns, v.event, v.event_id, v.data
  FROM stream_events v
  JOIN exchanges e ON e.id = v.exchange_id
  WHERE v.exchange_id BETWEEN :first AND :last AND e.session_id = :session
  ORDER BY e.seq, v.position)sql";

// Step links and A2A call links in one table, told apart by `kind` (the fleet's step_links,
// docs/fleet.md): both are named by an exchange's seq and a position in it.
constexpr const char* kLinks = R"sql(
  SELECT e.seq, s.position, rx.uuid AS recorded_session_uuid, re.seq AS recorded_seq,
         rs.position AS recorded_position, 'step' AS kind
  FROM step_links l
  JOIN steps s ON s.id = l.step_id
  JOIN exchanges e ON e.id = s.exchange_id
  JOIN steps rs ON rs.id = l.recorded_step_id
  JOIN exchanges re ON re.id = rs.exchange_id
  JOIN sessions rx ON rx.id = re.session_id
  WHERE e.session_id = :session
  UNION ALL
  SELECT e.seq, c.position, rx.uuid, re.seq, rc.position, 'call'
  FROM call_links l
  JOIN a2a_calls c ON c.id = l.call_id
  JOIN exchanges e ON e.id = c.exchange_id
  JOIN a2a_calls rc ON rc.id = l.recorded_call_id
  JOIN exchanges re ON re.id = rc.exchange_id
  JOIN sessions rx ON rx.id = re.session_id
  WHERE e.session_id = :session
  ORDER BY 1, 2)sql";

// The conversations that steps or calls of the batch belong to, as they stand now. Here and in
// the blobs' query the `+` keeps SQLite on the exchange_id index: the session's index would
// read every row of the session for each batch.
constexpr const char* kConversations = R"sql(
  SELECT c.id AS number, re.seq AS root_seq, rs.position AS root_position, c.title,
         c.step_count, c.candidate_count, c.error_candidates, c.env_failures, c.max_depth,
         c.first_ns, c.last_ns, c.ended_in, c.protocol, c.context_id
  FROM conversations c
  LEFT JOIN steps rs ON rs.id = c.root_step_id
  LEFT JOIN exchanges re ON re.id = rs.exchange_id
  WHERE c.id IN (SELECT conversation_id FROM steps
                 WHERE exchange_id BETWEEN :first AND :last AND +session_id = :session
                 UNION
                 SELECT conversation_id FROM a2a_calls
                 WHERE exchange_id BETWEEN :first AND :last AND +session_id = :session)
  ORDER BY c.id)sql";

constexpr const char* kBlobs = R"sql(
  WITH batch_steps AS (
    SELECT id, memory_hash, tools_hash, attributes_hash, extra_keys_hash FROM steps
    WHERE exchange_id BETWEEN :first AND :last AND +session_id = :session)
  SELECT b.hash, b.codec AS local_codec, b.text, b.body_exchange_id AS local_exchange,
         b.body_side AS local_side, b.body_at AS local_at, b.body_end AS local_end,
         (SELECT body_segment_id FROM exchanges WHERE id = b.body_exchange_id) AS local_segment
  FROM blobs b
  WHERE b.hash IN (
    SELECT memory_hash FROM batch_steps
    UNION SELECT tools_hash FROM batch_steps
    UNION SELECT attributes_hash FROM batch_steps
    UNION SELECT extra_keys_hash FROM batch_steps
    UNION SELECT c.memory_hash FROM candidates c JOIN batch_steps s ON s.id = c.step_id))sql";

// The session's conversations in the order they began: a conversation's number in the fleet
// archive is its rank here. The queries above give conversations by their ids in this file,
// which numberConversations() turns into numbers.
constexpr const char* kConversationIds =
    "SELECT id FROM conversations WHERE session_id = :session ORDER BY id";

constexpr const char* kReplayMisses = R"sql(
  SELECT * FROM (
    SELECT row_number() OVER (ORDER BY m.id) AS number, m.at_ns, m.route, m.request_id,
           m.position, m.source_id, m.replay_key, m.input, cx.uuid AS closest_session_uuid,
           ce.seq AS closest_seq, cs.position AS closest_position, m.differences, m.policy
    FROM replay_misses m
    LEFT JOIN steps cs ON cs.id = m.closest_step_id
    LEFT JOIN exchanges ce ON ce.id = cs.exchange_id
    LEFT JOIN sessions cx ON cx.id = ce.session_id
    WHERE m.session_id = :session)
  WHERE number > :after ORDER BY number LIMIT :limit)sql";

// The session row as the fleet archive keeps it.
constexpr const char* kFedSessionColumns =
    "uuid AS local_uuid, node, recorder_version, derived_from, name, mode, upstream, listen, "
    "started_ns, ended_ns, agent_health, agent_info, agent_id, agent_version, exchange_count, "
    "step_count, candidate_count, internal_step_count, conversation_count, "
    "error_candidate_count, failed_exchange_count, invalid_exchange_count";

const std::string kSession =
    std::string("SELECT ") + kFedSessionColumns + " FROM sessions WHERE id = :session";

// Sessions with what a follower needs to know of each, and their rows as kSession gives them
// (for their digests): those whose tick passed :tick, or the one with id :id.
const std::string kFedSessions =
    std::string(
        "SELECT id AS local_id, ended_ns IS NOT NULL AS local_ended, feed_tick AS local_tick, "
        "miss_count AS local_misses, link_count AS local_links, ") +
    kFedSessionColumns + " FROM sessions";
const std::string kChangedSessions = kFedSessions + " WHERE feed_tick > :tick ORDER BY id";
const std::string kSessionById = kFedSessions + " WHERE id = :id";

// The column of a fed session row that no SQL can give: whether its recorder died before its end
// (SessionState::Interrupted). The fleet archive shows such a session as the recording machine
// does, since only that machine can see the recorder's lock.
constexpr const char* kInterruptedColumn = "interrupted";

FeedValue valueOf(const SQLite::Column& c) {
  if (c.isInteger()) {
    return c.getInt64();
  }
  if (c.isFloat()) {
    return c.getDouble();
  }
  if (c.isText()) {
    return c.getString();
  }
  if (c.isBlob()) {
    return FeedBytes{c.getString()};
  }
  return std::monostate{};
}

/// Bytes of text and blobs in `row`.
std::size_t bytesIn(const std::vector<FeedValue>& row) {
  std::size_t n = 0;
  for (const FeedValue& value : row) {
    if (const auto* text = std::get_if<std::string>(&value)) {
      n += text->size();
    } else if (const auto* bytes = std::get_if<FeedBytes>(&value)) {
      n += bytes->data.size();
    }
  }
  return n;
}

/// The rows of `q` as a table keyed by `session_uuid`: every column except the local ones.
/// `local` receives the local columns of each row, in the same order. Stops after the row that
/// brings the table's text and blob bytes to `max_bytes`; `*bytes` receives them.
FeedTable readTable(SQLite::Statement& q, const std::string& table, const std::string& uuid,
                    std::vector<std::vector<FeedValue>>* local = nullptr,
                    std::size_t max_bytes = SIZE_MAX, std::size_t* bytes = nullptr) {
  std::size_t read_bytes = 0;
  FeedTable out;
  out.table = table;
  out.columns.push_back("session_uuid");
  std::vector<int> kept;
  std::vector<int> local_columns;
  for (int i = 0; i < q.getColumnCount(); ++i) {
    const std::string name = q.getColumnName(i);
    if (name.starts_with(kLocalPrefix)) {
      local_columns.push_back(i);
    } else {
      kept.push_back(i);
      out.columns.push_back(name);
    }
  }
  while (q.executeStep()) {
    std::vector<FeedValue> row;
    row.reserve(kept.size() + 1);
    row.emplace_back(uuid);
    for (int i : kept) {
      row.push_back(valueOf(q.getColumn(i)));
    }
    read_bytes += bytesIn(row);
    out.rows.push_back(std::move(row));
    std::vector<FeedValue> locals;
    for (int i : local_columns) {
      locals.push_back(valueOf(q.getColumn(i)));
      if (q.getColumnName(i) == kExtraBytes) {
        read_bytes += static_cast<std::size_t>(q.getColumn(i).getInt64());
      }
    }
    if (local != nullptr) {
      local->push_back(std::move(locals));
    }
    if (read_bytes >= max_bytes) {
      break;
    }
  }
  if (bytes != nullptr) {
    *bytes = read_bytes;
  }
  return out;
}

std::optional<std::int64_t> intOf(const FeedValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return *i;
  }
  return std::nullopt;
}

std::string bytesOf(const FeedValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    return *s;
  }
  if (const auto* b = std::get_if<FeedBytes>(&v)) {
    return b->data;
  }
  return {};
}

/// A digest of a fed row: its values with their kinds and lengths, hashed.
std::int64_t rowDigest(const std::vector<FeedValue>& row) {
  std::string bytes;
  for (const FeedValue& value : row) {
    bytes += static_cast<char>('0' + value.index());
    std::string text;
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      text = std::to_string(*i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      text = std::to_string(*d);
    } else if (const auto* t = std::get_if<std::string>(&value)) {
      text = *t;
    } else if (const auto* b = std::get_if<FeedBytes>(&value)) {
      text = b->data;
    }
    bytes += std::to_string(text.size()) + ':' + text;
  }
  return detail::toDb(protocol::stableHash(bytes));
}

/// Replaces the local conversation ids in `column` of `t` by their numbers: ranks in `ids`
/// (sorted), from 1.
void numberConversations(FeedTable& t, const std::string& column,
                         const std::vector<std::int64_t>& ids) {
  const std::size_t at = t.column(column);
  for (auto& row : t.rows) {
    if (const auto* id = std::get_if<std::int64_t>(&row[at])) {
      const auto rank = std::lower_bound(ids.begin(), ids.end(), *id);
      row[at] = rank != ids.end() && *rank == *id ? FeedValue(rank - ids.begin() + 1) : FeedValue();
    }
  }
}

}  // namespace

std::size_t FeedBatch::rowCount() const {
  std::size_t n = 0;
  for (const FeedTable& t : tables) {
    n += t.rows.size();
  }
  return n;
}

/// The fleet keeps each env step's decoded feedback, which an archive of version 16 decodes again
/// from the instruction whenever it is read.
void fillEnvFeedback(FeedTable& steps) {
  const std::size_t feedback = steps.column("env_feedback");
  const std::size_t type = steps.column("instruction_type");
  const std::size_t content = steps.column("instruction_content");
  for (auto& row : steps.rows) {
    const auto* kind = std::get_if<std::string>(&row[type]);
    if (std::holds_alternative<std::monostate>(row[feedback]) && kind != nullptr &&
        *kind == "env") {
      row[feedback] = protocol::dumpCompact(
          protocol::toJson(protocol::decodeEnvFeedback(bytesOf(row[content]))));
    }
  }
}

struct ChangeFeed::Impl {
  std::string path;
  detail::LeavesNoWal leaves_no_wal;  ///< before db: tidies after db has closed
  SQLite::Database db;
  detail::StoredBodies bodies{db};
  detail::BodyCompressor compressor;

  Impl(const std::string& archive_path, std::chrono::milliseconds busy_timeout)
      : path(archive_path),
        leaves_no_wal(archive_path),
        db(detail::openCurrentArchive(archive_path, busy_timeout)) {
    // The feed reads each page once, in order: mapped, SQLite reads it where it lies instead of
    // copying it through a system call first. Address space only; the kernel pages it in.
    db.exec("PRAGMA mmap_size = 1073741824");
  }

  /// Whether session `id`, read without an end, was interrupted. Outside any read transaction:
  /// it reads the session's end afresh.
  bool interrupted(std::int64_t id) {
    std::optional<std::int64_t> ended_ns;
    return detail::unendedSessionState(db, path, id, ended_ns) == SessionState::Interrupted;
  }

  /// The sessions `q` selects (kFedSessions), each told whether it was interrupted.
  std::vector<FeedSession> fedSessions(SQLite::Statement& q) {
    std::vector<std::vector<FeedValue>> locals;
    FeedTable rows;
    {
      SQLite::Transaction read(db, SQLite::TransactionBehavior::DEFERRED);
      rows = readTable(q, "sessions", "", &locals);
    }  // rolled back: it wrote nothing, and interrupted() reads afresh
    std::vector<FeedSession> out;
    for (std::size_t r = 0; r < rows.rows.size(); ++r) {
      // locals: id, ended, tick, misses, links, uuid
      const std::vector<FeedValue>& local = locals[r];
      FeedSession session;
      session.id = *intOf(local[0]);
      session.ended = intOf(local[1]).value_or(0) != 0;
      session.interrupted = !session.ended && interrupted(session.id);
      session.tick = *intOf(local[2]);
      session.misses = *intOf(local[3]);
      session.links = *intOf(local[4]);
      // The fleet archive and the live exporter key the session by it: one spelling, whatever
      // the archive's.
      session.uuid = canonicalUuid(bytesOf(local[5]));
      std::vector<FeedValue> row = rows.rows[r];
      row.front() = session.uuid;  // as next() feeds it: keyed by the session's uuid
      row.emplace_back(std::int64_t{session.interrupted});
      session.exchanges = intOf(row.at(rows.column("exchange_count"))).value_or(0);
      session.digest = rowDigest(row);
      out.push_back(std::move(session));
    }
    return out;
  }

  /// The dictionaries with local ids `ids` as a `body_dictionaries` table keyed by the hash of
  /// their content (local ids differ from file to file); `hashes` receives id -> hash. Every
  /// batch carries all it refers to: a batch that failed is read again whole.
  FeedTable dictionaries(const std::set<std::int64_t>& ids,
                         std::unordered_map<std::int64_t, std::int64_t>& hashes) {
    FeedTable out{"body_dictionaries", {"hash", "content", "codec", "size", "dictionary"}, {}};
    SQLite::Statement q(db, "SELECT content, codec, size FROM body_dictionaries WHERE id = :id");
    for (std::int64_t id : ids) {
      detail::bindInt(q, ":id", id);
      if (q.executeStep()) {
        std::string content = q.getColumn(0).getString();
        const auto hash = detail::toDb(protocol::stableHash(content));
        hashes[id] = hash;
        out.rows.push_back({hash, FeedBytes{std::move(content)}, valueOf(q.getColumn(1)),
                            valueOf(q.getColumn(2)), FeedValue()});
      }
      q.reset();
    }
    return out;
  }
};

ChangeFeed::ChangeFeed(const std::string& db_path, std::chrono::milliseconds busy_timeout)
    : impl_(std::make_unique<Impl>(db_path, busy_timeout)) {}

ChangeFeed::~ChangeFeed() = default;

const std::vector<std::string>& ChangeFeed::tableNames() {
  static const std::vector<std::string> names = {
      "body_dictionaries", "blobs",         "sessions",   "conversations",
      "exchanges",         "steps",         "candidates", "internal_steps",
      "a2a_calls",         "stream_events", "step_links", "replay_misses"};
  return names;
}

std::vector<FeedSession> ChangeFeed::sessions() {
  return sessionsChangedSince(0);
}

std::vector<FeedSession> ChangeFeed::sessionsChangedSince(std::int64_t tick) {
  SQLite::Statement q(impl_->db, kChangedSessions);
  detail::bindInt(q, ":tick", tick);
  return impl_->fedSessions(q);
}

std::optional<FeedSession> ChangeFeed::session(std::int64_t id) {
  SQLite::Statement q(impl_->db, kSessionById);
  detail::bindInt(q, ":id", id);
  std::vector<FeedSession> found = impl_->fedSessions(q);
  if (found.empty()) {
    return std::nullopt;
  }
  return std::move(found.front());
}

bool ChangeFeed::recorderStopped(std::int64_t id) {
  return detail::sessionRecorded(impl_->path, id) == false;
}

std::int64_t ChangeFeed::dataVersion() {
  SQLite::Statement q(impl_->db, "PRAGMA data_version");
  q.executeStep();
  return q.getColumn(0).getInt64();
}

FeedBatch ChangeFeed::next(const FeedSession& session, FeedPosition after, FeedLimits limits) {
  const std::size_t max_exchanges = std::max<std::size_t>(limits.exchanges, 1);
  SQLite::Database& db = impl_->db;
  // Before the read transaction, whose snapshot may predate an end (Impl::interrupted()).
  const bool interrupted = !session.ended && impl_->interrupted(session.id);
  SQLite::Transaction read(db, SQLite::TransactionBehavior::DEFERRED);
  FeedBatch batch;
  batch.end = after;

  SQLite::Statement exchanges_query(db, kExchanges);
  detail::bindInt(exchanges_query, ":session", session.id);
  detail::bindInt(exchanges_query, ":next", after.exchanges);
  detail::bindInt(exchanges_query, ":limit", static_cast<std::int64_t>(max_exchanges) + 1);
  std::vector<std::vector<FeedValue>> locals;
  FeedTable exchanges = readTable(exchanges_query, "exchanges", session.uuid, &locals, limits.bytes,
                                  &batch.exchange_bytes);
  // A full batch by bytes ends where its reading stopped: something may follow.
  const bool full_by_bytes = batch.exchange_bytes >= limits.bytes;
  const std::size_t max_kept = std::min(max_exchanges, exchanges.rows.size());

  // Keep the indexed prefix: the rows after an unindexed one have no steps or calls yet.
  std::size_t kept = 0;
  while (kept < max_kept && intOf(locals[kept][1]) != 0) {
    ++kept;
  }
  batch.waiting_for_index = kept < max_kept;
  const bool more_exchanges =
      exchanges.rows.size() > kept || (full_by_bytes && !batch.waiting_for_index);
  exchanges.rows.resize(kept);
  locals.resize(kept);
  batch.exchanges = kept;

  std::vector<FeedTable> derived;
  if (kept > 0) {
    const std::int64_t first = *intOf(locals.front()[0]);
    const std::int64_t last = *intOf(locals.back()[0]);
    batch.end.exchanges = *intOf(exchanges.rows.back()[1]) + 1;

    // A segmented body travels as a frame of its own, compressed against its segment's
    // keyframe, which travels as a body dictionary compressed against the keyframe before it:
    // the fleet keeps no segments, and each body and keyframe still costs about what it adds
    // (docs/fleet.md, Bodies).
    FeedTable keyframes{
        "body_dictionaries", {"hash", "content", "codec", "size", "dictionary"}, {}};
    std::map<std::int64_t, std::pair<std::int64_t, detail::SegmentShelf::Bytes>> keyframe_of;
    SQLite::Statement prefix_of(db, "SELECT prefix_segment_id FROM body_segments WHERE id = :id");
    std::function<const std::pair<std::int64_t, detail::SegmentShelf::Bytes>&(std::int64_t)>
        keyframe = [&](std::int64_t segment_id)
        -> const std::pair<std::int64_t, detail::SegmentShelf::Bytes>& {
      auto known = keyframe_of.find(segment_id);
      if (known != keyframe_of.end()) {
        return known->second;
      }
      detail::bindInt(prefix_of, ":id", segment_id);
      const std::optional<std::int64_t> prefix =
          prefix_of.executeStep() ? intOf(valueOf(prefix_of.getColumn(0))) : std::nullopt;
      prefix_of.reset();
      detail::SegmentShelf::Bytes bytes = impl_->bodies.keyframe(segment_id);
      const auto hash = detail::toDb(protocol::stableHash(*bytes));
      const bool listed =
          std::any_of(keyframe_of.begin(), keyframe_of.end(),
                      [&](const auto& entry) { return entry.second.first == hash; });
      if (!listed) {
        // Every batch carries the chain its keyframes need (at most the 15 of an anchor's run):
        // the fleet skips those it holds.
        std::optional<std::string> packed;
        FeedValue parent;
        if (prefix) {
          const auto& [parent_hash, parent_bytes] = keyframe(*prefix);
          packed = impl_->compressor.packAgainst(*bytes, *parent_bytes);
          if (packed) {
            parent = parent_hash;
          }
        }
        if (!packed) {
          packed = impl_->compressor.pack(*bytes);
        }
        keyframes.rows.push_back({hash, FeedBytes{packed ? std::move(*packed) : *bytes},
                                  packed ? FeedValue(std::string(detail::kZstdCodec)) : FeedValue(),
                                  FeedValue(static_cast<std::int64_t>(bytes->size())),
                                  std::move(parent)});
      }
      return keyframe_of.emplace(segment_id, std::pair{hash, std::move(bytes)}).first->second;
    };
    // The keyframe hash each segmented body was compressed against, by row and side.
    std::vector<std::array<std::optional<std::int64_t>, 2>> keyframe_hash(exchanges.rows.size());
    for (const auto side : {detail::BodySide::Request, detail::BodySide::Response}) {
      const bool request = side == detail::BodySide::Request;
      const std::size_t body = exchanges.column(request ? "request_body" : "response_body");
      const std::size_t codec =
          exchanges.column(request ? "request_body_codec" : "response_body_codec");
      for (std::size_t r = 0; r < exchanges.rows.size(); ++r) {
        auto& row = exchanges.rows[r];
        const auto* stored_codec = std::get_if<std::string>(&row[codec]);
        if (stored_codec == nullptr || *stored_codec != detail::kSegmentCodec) {
          continue;
        }
        std::string bytes = impl_->bodies.read(*intOf(locals[r][0]), side).value_or("");
        const auto& [hash, dictionary] = keyframe(*intOf(locals[r][5]));
        std::optional<std::string> frame = impl_->compressor.packAgainst(bytes, *dictionary);
        if (frame) {
          keyframe_hash[r][request ? 0 : 1] = hash;
        } else {
          frame = impl_->compressor.pack(bytes);
        }
        row[codec] = frame ? FeedValue(std::string(detail::kZstdCodec)) : FeedValue();
        row[body] = FeedBytes{frame ? std::move(*frame) : std::move(bytes)};
      }
    }

    // Dictionary ids become the hashes of their contents.
    std::set<std::int64_t> referenced;
    for (const auto& row : locals) {
      for (std::size_t i : {2u, 3u}) {
        if (auto id = intOf(row[i])) {
          referenced.insert(*id);
        }
      }
    }
    std::unordered_map<std::int64_t, std::int64_t> dictionary_hashes;
    derived.push_back(impl_->dictionaries(referenced, dictionary_hashes));
    std::size_t request_dictionary = 0;
    std::size_t response_dictionary = 0;
    for (std::size_t i = 0; i < exchanges.columns.size(); ++i) {
      if (exchanges.columns[i] == "request_body_codec") {
        request_dictionary = i;
      } else if (exchanges.columns[i] == "response_body_codec") {
        response_dictionary = i;
      }
    }
    exchanges.columns.insert(exchanges.columns.begin() + static_cast<long>(response_dictionary) + 1,
                             "response_body_dictionary");
    exchanges.columns.insert(exchanges.columns.begin() + static_cast<long>(request_dictionary) + 1,
                             "request_body_dictionary");
    for (std::size_t r = 0; r < exchanges.rows.size(); ++r) {
      auto hashOf = [&](const FeedValue& local) -> FeedValue {
        const auto id = intOf(local);
        const auto hash = id ? dictionary_hashes.find(*id) : dictionary_hashes.end();
        return hash != dictionary_hashes.end() ? FeedValue(hash->second) : FeedValue();
      };
      auto& row = exchanges.rows[r];
      const auto& [request_keyframe, response_keyframe] = keyframe_hash[r];
      row.insert(row.begin() + static_cast<long>(response_dictionary) + 1,
                 response_keyframe ? FeedValue(*response_keyframe) : hashOf(locals[r][3]));
      row.insert(row.begin() + static_cast<long>(request_dictionary) + 1,
                 request_keyframe ? FeedValue(*request_keyframe) : hashOf(locals[r][2]));
    }

    auto ranged = [&](const char* sql, const std::string& table) {
      SQLite::Statement q(db, sql);
      detail::bindInt(q, ":session", session.id);
      detail::bindInt(q, ":first", first);
      detail::bindInt(q, ":last", last);
      std::vector<std::vector<FeedValue>> blob_locals;
      const bool with_locals = table == "blobs" || table == "internal_steps";
      FeedTable t = readTable(q, table, session.uuid, with_locals ? &blob_locals : nullptr);
      if (table == "internal_steps") {
        // A prompt the archive reads from its response body comes with its text too, for
        // readers that want it (the fleet keeps the reference alone, the OTLP export the text).
        const std::size_t prompt = t.column("full_prompt");
        const std::size_t prompt_at = t.column("full_prompt_at");
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          const auto at = intOf(t.rows[r][prompt_at]);
          if (!at || !std::holds_alternative<std::monostate>(t.rows[r][prompt])) {
            continue;
          }
          const std::optional<std::string> body =
              impl_->bodies.read(*intOf(blob_locals[r][0]), detail::BodySide::Response);
          std::optional<std::string> text =
              body ? protocol::jsonStringAt(*body, static_cast<std::size_t>(*at)) : std::nullopt;
          if (!text) {
            throw std::runtime_error("[store.body.corrupt] a prompt of exchange seq " +
                                     std::to_string(intOf(t.rows[r][1]).value_or(-1)) +
                                     " is not where its response body should hold it");
          }
          t.rows[r][prompt] = std::move(*text);
        }
      }
      if (table == "blobs") {
        // Blobs are global, keyed by hash alone. The fleet keeps a blob's JSON text whole, so
        // that SQL can reach inside, but for a memory the archive keeps in a body: that one is
        // packed against the keyframe of the body's segment, as its body is (docs/fleet.md).
        t.columns.erase(t.columns.begin());
        t.columns.insert(t.columns.end(), {"packed", "codec", "dictionary"});
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          auto& row = t.rows[r];
          row.erase(row.begin());
          row.insert(row.end(), {FeedValue(), FeedValue(), FeedValue()});
          const auto& local = blob_locals[r];  // codec, exchange, side, at, end, segment
          const auto* codec = std::get_if<std::string>(&local[0]);
          if (codec != nullptr && *codec == detail::kBodyBlobCodec) {
            const std::string text = impl_->bodies.valueInBody(intOf(local[1]), intOf(local[2]),
                                                               intOf(local[3]), intOf(local[4]));
            std::optional<std::string> packed;
            if (const auto segment = intOf(local[5])) {
              const auto& [hash, dictionary] = keyframe(*segment);
              packed = impl_->compressor.packAgainst(text, *dictionary);
              if (packed) {
                row[4] = hash;
              }
            }
            if (!packed) {
              packed = impl_->compressor.pack(text);
            }
            if (packed) {
              row[1] = FeedValue();
              row[2] = FeedBytes{std::move(*packed)};
              row[3] = std::string(detail::kZstdCodec);
            } else {
              row[1] = text;
            }
          } else if (codec != nullptr) {
            row[1] = detail::unpackBody(bytesOf(row[1]), *codec);
          } else {
            row[1] = bytesOf(row[1]);
          }
        }
      }
      return t;
    };
    std::vector<std::int64_t> conversation_ids;
    SQLite::Statement ids_query(db, kConversationIds);
    detail::bindInt(ids_query, ":session", session.id);
    while (ids_query.executeStep()) {
      conversation_ids.push_back(ids_query.getColumn(0).getInt64());
    }
    auto numbered = [&](const char* sql, const std::string& table, const char* column) {
      FeedTable t = ranged(sql, table);
      numberConversations(t, column, conversation_ids);
      return t;
    };
    derived.push_back(ranged(kBlobs, "blobs"));
    derived.push_back(numbered(kConversations, "conversations", "number"));
    // The conversations' order of insertion matters to nothing: they are upserted by number.
    derived.push_back(std::move(exchanges));
    FeedTable steps = numbered(kSteps, "steps", "conversation");
    fillEnvFeedback(steps);
    derived.push_back(std::move(steps));
    derived.push_back(ranged(kCandidates, "candidates"));
    derived.push_back(ranged(kInternalSteps, "internal_steps"));
    derived.push_back(numbered(kA2aCalls, "a2a_calls", "conversation"));
    derived.push_back(ranged(kStreamEvents, "stream_events"));
    // The keyframes bodies and memories were packed against go with the other dictionaries.
    std::move(keyframes.rows.begin(), keyframes.rows.end(),
              std::back_inserter(derived.front().rows));
  }

  SQLite::Statement misses_query(db, kReplayMisses);
  detail::bindInt(misses_query, ":session", session.id);
  detail::bindInt(misses_query, ":after", after.misses);
  detail::bindInt(misses_query, ":limit", static_cast<std::int64_t>(max_exchanges));
  FeedTable misses = readTable(misses_query, "replay_misses", session.uuid);
  batch.misses = misses.rows.size();
  if (!misses.rows.empty()) {
    batch.end.misses = *intOf(misses.rows.back()[1]);
  }
  const bool more_misses = misses.rows.size() == max_exchanges;

  // An evaluation links its steps to the recorded ones when it ends, all at once: the links
  // are fed whole whenever their number grew (the fleet archive keeps each once).
  SQLite::Statement links_query(db, kLinks);
  detail::bindInt(links_query, ":session", session.id);
  FeedTable links = readTable(links_query, "step_links", session.uuid);
  if (static_cast<std::int64_t>(links.rows.size()) > after.links) {
    batch.end.links = static_cast<std::int64_t>(links.rows.size());
    batch.links = links.rows.size();
    derived.push_back(std::move(links));
  }

  SQLite::Statement session_query(db, kSession);
  detail::bindInt(session_query, ":session", session.id);
  FeedTable sessions = readTable(session_query, "sessions", session.uuid);
  sessions.columns[0] = "uuid";
  sessions.columns.emplace_back(kInterruptedColumn);
  for (std::vector<FeedValue>& row : sessions.rows) {
    row.emplace_back(std::int64_t{interrupted});
  }
  if (!sessions.rows.empty()) {
    batch.session_digest = rowDigest(sessions.rows.front());
  }

  // In tableNames() order: what others refer to comes first.
  std::vector<FeedTable> ordered;
  auto take = [&](const std::string& name) {
    for (FeedTable& t : derived) {
      if (t.table == name) {
        ordered.push_back(std::move(t));
      }
    }
  };
  take("body_dictionaries");
  take("blobs");
  ordered.push_back(std::move(sessions));
  for (const char* name : {"conversations", "exchanges", "steps", "candidates", "internal_steps",
                           "a2a_calls", "stream_events", "step_links"}) {
    take(name);
  }
  ordered.push_back(std::move(misses));
  batch.tables = std::move(ordered);
  batch.caught_up = !more_exchanges && !more_misses;
  return batch;
}

}  // namespace agentvcr::store
