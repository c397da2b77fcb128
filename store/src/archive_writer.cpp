#include "archive_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include "agentvcr/protocol/magma.hpp"
#include "archive_writer_a2a.hpp"
#include "decode.hpp"
#include "schema_internal.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

const std::string kUser = "user";
const std::string kEnv = "env";
const std::string kCompleted = "completed";
const std::string kError = "error";
const std::optional<std::string> kZstd{std::string(kZstdCodec)};
const std::optional<std::string> kVerbatim;

std::optional<std::string> nonEmpty(const std::string& s) {
  if (s.empty()) {
    return std::nullopt;
  }
  return s;
}

std::optional<std::int64_t> nonZero(std::int64_t v) {
  if (v == 0) {
    return std::nullopt;
  }
  return v;
}

/// What one exchange changes in one conversation row.
struct ConversationDelta {
  std::optional<std::int64_t> root_step_id;
  std::optional<std::string> title;
  std::int64_t steps = 0;
  std::int64_t candidates = 0;
  std::int64_t error_candidates = 0;
  std::int64_t env_failures = 0;
  std::int64_t max_depth = 0;
  std::int64_t last_ns = 0;
  std::optional<std::string> ended_in;
};

/// SQLite rolled the whole batch transaction back: nothing more can be written in it.
class TransactionLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string describe(const protocol::Exchange& ex) {
  return ex.method + " " + ex.target;
}

}  // namespace

void logLine(const std::string& line) noexcept {
  std::string text = line;
  for (char& c : text) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  text.push_back('\n');
  std::fputs(text.c_str(), stderr);
}

struct ArchiveWriter::Statements {
  explicit Statements(SQLite::Database& db)
      : savepoint(db, "SAVEPOINT exchange"),
        release(db, "RELEASE exchange"),
        blob(db, "INSERT OR IGNORE INTO blobs (hash, text) VALUES (?1, ?2)"),
        exchange(db, R"sql(
          INSERT INTO exchanges (session_id, seq, client_address, method, target, http_version,
            status, request_headers, request_body, request_body_redacted, response_headers,
            response_body, response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns,
            outcome, error, protocol, route, magma_request_id, request_valid, response_valid,
            findings, decoder_version, request_body_codec, response_body_codec, request_body_size,
            response_body_size)
          VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                  ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29))sql"),
        conversation(db, R"sql(
          INSERT INTO conversations (session_id, first_ns, last_ns) VALUES (?1, ?2, ?2))sql"),
        step(db, R"sql(
          INSERT INTO steps (exchange_id, session_id, position, source_id, replay_key,
            instruction_type, instruction_content, env_feedback, env_failure, memory_hash,
            tools_hash, attributes_hash, extra_keys_hash, num_outputs, conversation_id,
            parent_candidate_id, parent_ambiguity, depth)
          VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                  ?18))sql"),
        candidate(db, R"sql(
          INSERT INTO candidates (step_id, candidate_index, status, say, tool_calls,
            decision_kind, error_code, error_message, error_component, memory_hash,
            internal_step_count)
          VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11))sql"),
        internal_step(db, R"sql(
          INSERT INTO internal_steps (candidate_id, position, step_key, component, origin,
            full_prompt, output_raw, rest)
          VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql"),
        conversation_update(db, R"sql(
          UPDATE conversations SET
            root_step_id = coalesce(root_step_id, ?1),
            title = coalesce(title, ?2),
            step_count = step_count + ?3,
            candidate_count = candidate_count + ?4,
            error_candidates = error_candidates + ?5,
            env_failures = env_failures + ?6,
            max_depth = max(max_depth, ?7),
            last_ns = max(coalesce(last_ns, ?8), ?8),
            ended_in = coalesce(?9, ended_in)
          WHERE id = ?10)sql"),
        session_counters(db, R"sql(
          UPDATE sessions SET
            exchange_count = exchange_count + ?1,
            step_count = step_count + ?2,
            candidate_count = candidate_count + ?3,
            internal_step_count = internal_step_count + ?4,
            conversation_count = conversation_count + ?5,
            error_candidate_count = error_candidate_count + ?6,
            failed_exchange_count = failed_exchange_count + ?7,
            invalid_exchange_count = invalid_exchange_count + ?8
          WHERE id = ?9)sql"),
        identity(db, R"sql(
          UPDATE sessions SET agent_health = ?1, agent_info = ?2, agent_id = ?3,
            agent_version = ?4 WHERE id = ?5)sql"),
        replay_miss(db, R"sql(
          INSERT INTO replay_misses (session_id, at_ns, route, request_id, position, source_id,
            replay_key, input, closest_step_id, differences, policy)
          VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11))sql"),
        search_savepoint(db, "SAVEPOINT search"),
        search_release(db, "RELEASE search"),
        search_steps(db, "INSERT INTO search_steps (rowid, instruction_content) VALUES (?1, ?2)"),
        search_candidates(
            db, "INSERT INTO search_candidates (rowid, say, error_message) VALUES (?1, ?2, ?3)"),
        search_internal_steps(db, R"sql(
          INSERT INTO search_internal_steps (rowid, full_prompt, output_raw)
          VALUES (?1, ?2, ?3))sql") {}

  SQLite::Statement savepoint;
  SQLite::Statement release;
  SQLite::Statement blob;
  SQLite::Statement exchange;
  SQLite::Statement conversation;
  SQLite::Statement step;
  SQLite::Statement candidate;
  SQLite::Statement internal_step;
  SQLite::Statement conversation_update;
  SQLite::Statement session_counters;
  SQLite::Statement identity;
  SQLite::Statement replay_miss;
  SQLite::Statement search_savepoint;
  SQLite::Statement search_release;
  SQLite::Statement search_steps;
  SQLite::Statement search_candidates;
  SQLite::Statement search_internal_steps;
};

ArchiveWriter::ArchiveWriter(const std::string& path, const SessionInfo& session,
                             const RecorderOptions& options)
    : path_(path),
      options_(options),
      db_(openDatabase(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, options.busy_timeout)),
      index_(options.threading_index_limit) {
  try {
    prepareArchive(db_, path);
    db_.exec(options.durability == Durability::Full ? "PRAGMA synchronous = FULL"
                                                    : "PRAGMA synchronous = NORMAL");
    // The per-exchange savepoints journal into memory, and a whole batch fits in the page
    // cache: otherwise SQLite writes pages several times per batch.
    db_.exec("PRAGMA temp_store = MEMORY");
    db_.exec("PRAGMA cache_size = -65536");
    SQLite::Statement insert(db_, R"sql(
      INSERT INTO sessions (name, mode, upstream, listen, started_ns)
      VALUES (?1, ?2, ?3, ?4, ?5))sql");
    insert.bind(1, session.name);
    insert.bind(2, session.mode);
    insert.bind(3, session.upstream);
    insert.bind(4, session.listen);
    bindInt(insert, 5, session.started_ns.value_or(nowNs()));
    insert.exec();
    session_id_ = db_.getLastInsertRowid();
    ended_ns_ = session.ended_ns;
    st_ = std::make_unique<Statements>(db_);
    a2a_st_ = std::make_unique<A2aStatements>(db_);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("[store.open] cannot prepare archive " + path + ": " + e.what());
  }
}

ArchiveWriter::~ArchiveWriter() = default;

BatchOutcome ArchiveWriter::writeBatch(std::vector<QueueItem>& items) noexcept {
  BatchOutcome out;
  std::uint64_t exchange_items = 0;
  for (const QueueItem& item : items) {
    exchange_items += std::holds_alternative<protocol::Exchange>(item) ? 1U : 0U;
  }
  const std::int64_t seq_at_start = next_seq_;
  search_rows_.clear();
  try {
    SessionDelta delta;
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    DecodeOptions decode_options;
    decode_options.max_decode_bytes = options_.max_decode_bytes;
    for (QueueItem& item : items) {
      if (auto* ex = std::get_if<protocol::Exchange>(&item)) {
        bool written = false;
        try {
          DecodedExchange d = decodeExchange(std::move(*ex), decode_options);
          written = writeExchange(d, delta);
        } catch (const TransactionLost&) {
          throw;
        } catch (const std::exception& e) {
          logLine(std::string("[store.write] exchange not decoded: ") + e.what());
        }
        if (written) {
          ++out.written;
        } else {
          ++out.errors;
        }
      } else if (auto* identity = std::get_if<AgentIdentity>(&item)) {
        writeIdentity(*identity);
      } else {
        writeReplayMiss(std::get<ReplayMissRow>(item));
      }
    }
    writeSearchRows();
    SQLite::Statement& s = st_->session_counters;
    bindInt(s, 1, delta.exchanges);
    bindInt(s, 2, delta.steps);
    bindInt(s, 3, delta.candidates);
    bindInt(s, 4, delta.internal_steps);
    bindInt(s, 5, delta.conversations);
    bindInt(s, 6, delta.error_candidates);
    bindInt(s, 7, delta.failed_exchanges);
    bindInt(s, 8, delta.invalid_exchanges);
    bindInt(s, 9, session_id_);
    execOnce(s);
    tx.commit();
    out.committed = true;
  } catch (const std::exception& e) {
    // BEGIN, the counters or COMMIT failed: nothing of this batch is on disk. Forget what the
    // in-memory state learnt from it.
    logLine("[store.write] batch of " + std::to_string(exchange_items) +
            " exchanges not committed: " + e.what());
    out.errors = exchange_items;
    out.written = 0;
    next_seq_ = seq_at_start;
    index_.clear();
    blob_cache_.clear();
    search_rows_.clear();
  } catch (...) {
    logLine("[store.write] batch of " + std::to_string(exchange_items) +
            " exchanges not committed: unknown exception");
    out.errors = exchange_items;
    out.written = 0;
    next_seq_ = seq_at_start;
    index_.clear();
    blob_cache_.clear();
    search_rows_.clear();
  }
  items.clear();
  search_rows_.clear();
  return out;
}

bool ArchiveWriter::writeExchange(DecodedExchange& d, SessionDelta& delta) {
  Statements& st = *st_;
  const protocol::Exchange& ex = d.exchange;
  execOnce(st.savepoint);
  try {
    // Blobs first: steps and candidates reference them.
    for (const BlobText& blob : d.blobs) {
      if (blob_cache_.count(blob.hash) != 0) {
        continue;
      }
      bindInt(st.blob, 1, toDb(blob.hash));
      bindText(st.blob, 2, blob.text);
      execOnce(st.blob);
    }

    const std::string request_headers = headersToJson(ex.request_headers);
    const std::string response_headers = headersToJson(ex.response_headers);
    const std::optional<std::string> error = nonEmpty(ex.error);
    const std::string outcome = protocol::outcomeName(ex.outcome);
    std::optional<std::string> request_frame;
    std::optional<std::string> response_frame;
    if (options_.compress_bodies) {
      request_frame = compressor_.pack(ex.request_body);
      response_frame = compressor_.pack(ex.response_body);
    }
    SQLite::Statement& e = st.exchange;
    bindInt(e, 1, session_id_);
    bindInt(e, 2, next_seq_);
    bindText(e, 3, ex.client_address);
    bindText(e, 4, ex.method);
    bindText(e, 5, ex.target);
    bindInt(e, 6, static_cast<std::int64_t>(ex.http_version));
    bindInt(e, 7, ex.status);
    bindText(e, 8, request_headers);
    bindBlob(e, 9, request_frame ? *request_frame : ex.request_body);
    bindInt(e, 10, d.request_body_redacted ? 1 : 0);
    bindText(e, 11, response_headers);
    bindBlob(e, 12, response_frame ? *response_frame : ex.response_body);
    bindInt(e, 13, ex.response_from_upstream ? 1 : 0);
    bindInt(e, 14, ex.started_ns);
    bindOptInt(e, 15, nonZero(ex.upstream_first_byte_ns));
    bindOptInt(e, 16, nonZero(ex.ended_ns));
    bindText(e, 17, outcome);
    bindOptText(e, 18, error);
    bindText(e, 19, d.protocol);
    bindText(e, 20, d.route);
    bindOptText(e, 21, d.magma_request_id);
    bindOptBool(e, 22, d.request_valid);
    bindOptBool(e, 23, d.response_valid);
    bindOptText(e, 24, d.findings);
    bindInt(e, 25, kDecoderVersion);
    bindOptText(e, 26, request_frame ? kZstd : kVerbatim);
    bindOptText(e, 27, response_frame ? kZstd : kVerbatim);
    bindInt(e, 28, static_cast<std::int64_t>(ex.request_body.size()));
    bindInt(e, 29, static_cast<std::int64_t>(ex.response_body.size()));
    execOnce(e);
    const std::int64_t exchange_id = db_.getLastInsertRowid();

    const std::int64_t end_ns = ex.ended_ns != 0 ? ex.ended_ns : ex.started_ns;
    std::map<std::int64_t, ConversationDelta> conversations;

    struct WrittenStep {
      std::int64_t step_id;
      std::int64_t conversation_id;
      std::int64_t depth;
    };

    std::vector<WrittenStep> written_steps;
    written_steps.reserve(d.steps.size());
    std::vector<std::int64_t> candidate_ids;
    candidate_ids.reserve(d.candidates.size());
    std::vector<std::int64_t> internal_step_ids;
    std::vector<std::uint64_t> new_roots;
    std::int64_t new_conversations = 0;

    for (const DecodedStep& step : d.steps) {
      const ThreadDecision decision = index_.decide(step.memory_hash, step.source_id, step.is_env);
      std::int64_t conversation_id = 0;
      std::int64_t depth = 0;
      if (decision.parent) {
        conversation_id = decision.parent->conversation_id;
        depth = decision.parent->depth + 1;
      } else {
        bindInt(st.conversation, 1, session_id_);
        bindInt(st.conversation, 2, ex.started_ns);
        execOnce(st.conversation);
        conversation_id = db_.getLastInsertRowid();
        new_roots.push_back(step.memory_hash);
        ++new_conversations;
      }
      SQLite::Statement& s = st.step;
      bindInt(s, 1, exchange_id);
      bindInt(s, 2, session_id_);
      bindInt(s, 3, step.position);
      bindInt(s, 4, step.source_id);
      bindInt(s, 5, toDb(step.replay_key));
      bindText(s, 6, step.is_env ? kEnv : kUser);
      bindText(s, 7, step.content);
      bindOptText(s, 8, step.env_feedback);
      bindOptBool(s, 9, step.env_failure);
      bindInt(s, 10, toDb(step.memory_hash));
      bindInt(s, 11, toDb(step.tools_hash));
      bindInt(s, 12, toDb(step.attributes_hash));
      bindInt(s, 13, toDb(step.extra_keys_hash));
      bindInt(s, 14, step.num_outputs);
      bindInt(s, 15, conversation_id);
      bindOptInt(s, 16,
                 decision.parent ? std::optional<std::int64_t>(decision.parent->candidate_id)
                                 : std::nullopt);
      bindInt(s, 17, decision.ambiguity);
      bindInt(s, 18, depth);
      execOnce(s);
      const std::int64_t step_id = db_.getLastInsertRowid();
      written_steps.push_back(WrittenStep{step_id, conversation_id, depth});

      ConversationDelta& c = conversations[conversation_id];
      if (!decision.parent) {
        c.root_step_id = step_id;
      }
      if (!step.is_env && !c.title) {
        c.title = conversationTitle(step.content);
      }
      ++c.steps;
      c.env_failures += step.env_failure.value_or(false) ? 1 : 0;
      c.max_depth = std::max(c.max_depth, depth);
      c.last_ns = end_ns;
    }

    struct NewLink {
      std::uint64_t memory_hash;
      std::uint64_t input_memory_hash;
      ThreadLink link;
    };

    std::vector<NewLink> new_links;
    new_links.reserve(d.candidates.size());
    std::int64_t internal_steps = 0;
    std::int64_t error_candidates = 0;
    for (const DecodedCandidate& cand : d.candidates) {
      const DecodedStep& step = d.steps[cand.step_index];
      const WrittenStep& ws = written_steps[cand.step_index];
      SQLite::Statement& s = st.candidate;
      bindInt(s, 1, ws.step_id);
      bindInt(s, 2, cand.candidate_index);
      bindText(s, 3, cand.is_error ? kError : kCompleted);
      bindOptText(s, 4, cand.say);
      bindOptText(s, 5, cand.tool_calls);
      bindOptText(s, 6, cand.decision_kind);
      bindOptText(s, 7, cand.error_code);
      bindOptText(s, 8, cand.error_message);
      bindOptText(s, 9, cand.error_component);
      bindInt(s, 10, toDb(cand.memory_hash));
      bindInt(s, 11, static_cast<std::int64_t>(cand.internal_steps.size()));
      execOnce(s);
      const std::int64_t candidate_id = db_.getLastInsertRowid();
      candidate_ids.push_back(candidate_id);

      std::int64_t position = 0;
      for (const DecodedInternalStep& is : cand.internal_steps) {
        SQLite::Statement& i = st.internal_step;
        bindInt(i, 1, candidate_id);
        bindInt(i, 2, position++);
        bindOptText(i, 3, is.step_key);
        bindOptText(i, 4, is.component);
        bindOptText(i, 5, is.origin);
        bindOptText(i, 6, is.full_prompt);
        bindOptText(i, 7, is.output_raw);
        bindText(i, 8, is.rest);
        execOnce(i);
        internal_step_ids.push_back(db_.getLastInsertRowid());
      }
      internal_steps += position;
      error_candidates += cand.is_error ? 1 : 0;

      ConversationDelta& c = conversations[ws.conversation_id];
      ++c.candidates;
      c.error_candidates += cand.is_error ? 1 : 0;
      c.ended_in = cand.endedIn();
      new_links.push_back(
          NewLink{cand.memory_hash, step.memory_hash,
                  ThreadLink{candidate_id, step.source_id, ws.conversation_id, ws.depth}});
    }

    for (const auto& [conversation_id, c] : conversations) {
      SQLite::Statement& u = st.conversation_update;
      bindOptInt(u, 1, c.root_step_id);
      bindOptText(u, 2, c.title);
      bindInt(u, 3, c.steps);
      bindInt(u, 4, c.candidates);
      bindInt(u, 5, c.error_candidates);
      bindInt(u, 6, c.env_failures);
      bindInt(u, 7, c.max_depth);
      bindInt(u, 8, c.last_ns != 0 ? c.last_ns : end_ns);
      bindOptText(u, 9, c.ended_in);
      bindInt(u, 10, conversation_id);
      execOnce(u);
    }

    writeA2aAndStream(d, exchange_id, delta);
    execOnce(st.release);

    // Written: its text goes to the search indexes at the end of the batch. The strings are
    // not needed here any more (the statements rebind before each use).
    for (std::size_t k = 0; k < d.steps.size(); ++k) {
      search_rows_.push_back(SearchRow{SearchRow::Table::Steps, written_steps[k].step_id,
                                       std::move(d.steps[k].content), std::nullopt});
    }
    std::size_t next_internal = 0;
    for (std::size_t k = 0; k < d.candidates.size(); ++k) {
      DecodedCandidate& cand = d.candidates[k];
      search_rows_.push_back(SearchRow{SearchRow::Table::Candidates, candidate_ids[k],
                                       std::move(cand.say), std::move(cand.error_message)});
      for (DecodedInternalStep& is : cand.internal_steps) {
        search_rows_.push_back(SearchRow{SearchRow::Table::InternalSteps,
                                         internal_step_ids[next_internal++],
                                         std::move(is.full_prompt), std::move(is.output_raw)});
      }
    }

    // Committed to the savepoint: now the in-memory state may learn from this exchange.
    if (blob_cache_.size() + d.blobs.size() > kBlobCacheLimit) {
      blob_cache_.clear();
    }
    for (const BlobText& blob : d.blobs) {
      blob_cache_.insert(blob.hash);
    }
    for (std::uint64_t memory_hash : new_roots) {
      index_.addRoot(memory_hash);
    }
    for (const NewLink& l : new_links) {
      index_.addCandidate(l.memory_hash, l.input_memory_hash, l.link);
    }
    ++next_seq_;
    ++delta.exchanges;
    delta.steps += static_cast<std::int64_t>(d.steps.size());
    delta.candidates += static_cast<std::int64_t>(d.candidates.size());
    delta.internal_steps += internal_steps;
    delta.conversations += new_conversations;
    delta.error_candidates += error_candidates;
    delta.failed_exchanges += d.failed() ? 1 : 0;
    delta.invalid_exchanges += d.invalid() ? 1 : 0;
    return true;
  } catch (const std::exception& err) {
    db_.tryExec("ROLLBACK TO exchange");
    db_.tryExec("RELEASE exchange");
    logLine("[store.write] exchange " + describe(ex) + " (seq " + std::to_string(next_seq_) +
            ") not written: " + err.what());
    if (sqlite3_get_autocommit(db_.getHandle()) != 0) {
      // SQLite rolled the whole transaction back (I/O error, disk full): the batch is lost.
      throw TransactionLost("the transaction was rolled back by SQLite");
    }
    return false;
  }
}

void ArchiveWriter::writeSearchRows() {
  if (search_rows_.empty()) {
    return;
  }
  Statements& st = *st_;
  execOnce(st.search_savepoint);
  try {
    for (const SearchRow& row : search_rows_) {
      SQLite::Statement& s = row.table == SearchRow::Table::Steps        ? st.search_steps
                             : row.table == SearchRow::Table::Candidates ? st.search_candidates
                                                                         : st.search_internal_steps;
      bindInt(s, 1, row.rowid);
      bindOptText(s, 2, row.first);
      if (row.table != SearchRow::Table::Steps) {
        bindOptText(s, 3, row.second);
      }
      execOnce(s);
    }
    execOnce(st.search_release);
  } catch (const std::exception& e) {
    db_.tryExec("ROLLBACK TO search");
    db_.tryExec("RELEASE search");
    logLine("[store.write] search index not updated for " + std::to_string(search_rows_.size()) +
            " rows (they stay unsearchable): " + e.what());
    if (sqlite3_get_autocommit(db_.getHandle()) != 0) {
      throw TransactionLost("the transaction was rolled back by SQLite");
    }
  }
  search_rows_.clear();
}

void ArchiveWriter::writeIdentity(const AgentIdentity& identity) {
  std::optional<std::string> agent_id;
  std::optional<std::string> agent_version;
  if (!identity.info_body.empty()) {
    protocol::JsonParseResult parsed = protocol::parseJson(identity.info_body);
    if (parsed.value) {
      auto info = protocol::magma::parseAgentInfo(*parsed.value);
      if (info.ok()) {
        agent_id = info.value->agent_id;
        agent_version = info.value->agent_version;
      }
    }
  }
  const std::optional<std::string> health = nonEmpty(identity.health_body);
  const std::optional<std::string> info = nonEmpty(identity.info_body);
  SQLite::Statement& s = st_->identity;
  bindOptText(s, 1, health);
  bindOptText(s, 2, info);
  bindOptText(s, 3, agent_id);
  bindOptText(s, 4, agent_version);
  bindInt(s, 5, session_id_);
  try {
    execOnce(s);
  } catch (const std::exception& e) {
    logLine(std::string("[store.write] agent identity not written: ") + e.what());
    if (sqlite3_get_autocommit(db_.getHandle()) != 0) {
      throw TransactionLost("the transaction was rolled back by SQLite");
    }
  }
}

void ArchiveWriter::writeReplayMiss(const ReplayMissRow& miss) {
  SQLite::Statement& s = st_->replay_miss;
  bindInt(s, 1, session_id_);
  bindInt(s, 2, miss.at_ns);
  bindText(s, 3, miss.route);
  bindText(s, 4, miss.request_id);
  bindInt(s, 5, miss.position);
  bindOptInt(s, 6, miss.source_id);
  bindInt(s, 7, toDb(miss.replay_key));
  bindText(s, 8, miss.input);
  bindOptInt(s, 9, miss.closest_step_id);
  bindText(s, 10, miss.differences);
  bindText(s, 11, miss.policy);
  try {
    execOnce(s);
  } catch (const std::exception& e) {
    logLine("[store.write] replay miss (" + miss.route + ", request " + miss.request_id +
            ") not written: " + e.what());
    if (sqlite3_get_autocommit(db_.getHandle()) != 0) {
      throw TransactionLost("the transaction was rolled back by SQLite");
    }
  }
}

void ArchiveWriter::endSession() noexcept {
  try {
    SQLite::Statement s(db_, "UPDATE sessions SET ended_ns = ?1 WHERE id = ?2");
    bindInt(s, 1, ended_ns_.value_or(nowNs()));
    bindInt(s, 2, session_id_);
    s.exec();
  } catch (const std::exception& e) {
    logLine(std::string("[store.write] session end not written: ") + e.what());
  }
}

}  // namespace agentvcr::store::detail
