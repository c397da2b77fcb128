#include "archive_indexer.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "agentvcr/store/schema.hpp"
#include "archive_indexer_a2a.hpp"
#include "archive_writer.hpp"
#include "body_compression.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

const std::string kUser = "user";
const std::string kEnv = "env";
const std::string kCompleted = "completed";
const std::string kError = "error";
const std::optional<std::string> kZstdCodecName{std::string(kZstdCodec)};
const std::optional<std::string> kNoCodec;

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

/// The findings of a row whose index could not be written or whose bodies could not be read.
std::string indexErrorFindings(const std::string& type, const std::string& message) {
  protocol::Json finding = {
      {"side", "exchange"}, {"type", type}, {"loc", protocol::Json::array()}, {"msg", message}};
  return protocol::dumpCompact(protocol::Json::array({finding}));
}

}  // namespace

std::vector<DecodedRow> decodeRows(std::vector<PendingExchange>&& rows,
                                   const DecodeOptions& options) {
  std::vector<DecodedRow> decoded;
  decoded.reserve(rows.size());
  for (PendingExchange& row : rows) {
    DecodedRow out{row.id, row.session_id, std::nullopt, std::move(row.load_error)};
    if (!out.load_error) {
      out.decoded = decodeExchange(std::move(row.redacted), options);
    }
    decoded.push_back(std::move(out));
  }
  rows.clear();
  return decoded;
}

void ArchiveIndexer::packNewMemories(std::vector<DecodedRow>& rows) {
  if (!options_.compress_bodies) {
    return;
  }
  for (DecodedRow& row : rows) {
    if (row.decoded) {
      packNewMemories(*row.decoded);
    }
  }
}

void ArchiveIndexer::packNewMemories(DecodedExchange& d) {
  for (BlobText& blob : d.blobs) {
    // A blob already on disk is not written again; compressing it would be wasted.
    if (blob.is_memory && blob_cache_.count(blob.hash) == 0) {
      blob.packed = memory_compressor_.pack(blob.text);
    }
  }
}

struct ArchiveIndexer::Statements {
  explicit Statements(SQLite::Database& db)
      : pending(db, R"sql(
          SELECT id, session_id, client_address, method, target, http_version, status,
            request_headers, request_body, request_body_codec, request_body_redacted,
            response_headers, response_body, response_body_codec, response_from_upstream,
            started_ns, upstream_first_byte_ns, ended_ns, outcome, error, protocol, route,
            findings, response_arrivals, request_body_dictionary, response_body_dictionary
          FROM exchanges
          WHERE indexed = 0 AND id > ?1 AND (session_id = ?3 OR id <= ?4)
          ORDER BY id LIMIT ?2)sql"),
        claim(db, "UPDATE exchanges SET indexed = 1 WHERE id = ?1 AND indexed = 0"),
        savepoint(db, "SAVEPOINT exchange"),
        release(db, "RELEASE exchange"),
        blob(db, "INSERT OR IGNORE INTO blobs (hash, text, codec) VALUES (?1, ?2, ?3)"),
        mark_indexed(db, R"sql(
          UPDATE exchanges SET protocol = coalesce(?1, protocol), route = coalesce(?2, route),
            magma_request_id = ?3, request_valid = ?4, response_valid = ?5, findings = ?6,
            decoder_version = ?7, response_arrivals = NULL, indexed = 1
          WHERE id = ?8)sql"),
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
            step_count = step_count + ?1,
            candidate_count = candidate_count + ?2,
            internal_step_count = internal_step_count + ?3,
            conversation_count = conversation_count + ?4,
            error_candidate_count = error_candidate_count + ?5,
            invalid_exchange_count = invalid_exchange_count + ?6
          WHERE id = ?7)sql"),
        search_savepoint(db, "SAVEPOINT search"),
        search_release(db, "RELEASE search"),
        search_steps(db, "INSERT INTO search_steps (rowid, instruction_content) VALUES (?1, ?2)"),
        search_candidates(
            db, "INSERT INTO search_candidates (rowid, say, error_message) VALUES (?1, ?2, ?3)"),
        search_internal_steps(db, R"sql(
          INSERT INTO search_internal_steps (rowid, full_prompt, output_raw)
          VALUES (?1, ?2, ?3))sql"),
        search_a2a_calls(db, R"sql(
          INSERT INTO search_a2a_calls (rowid, request_text, response_text, error_message)
          VALUES (?1, ?2, ?3, ?4))sql") {}

  SQLite::Statement pending;
  SQLite::Statement claim;
  SQLite::Statement savepoint;
  SQLite::Statement release;
  SQLite::Statement blob;
  SQLite::Statement mark_indexed;
  SQLite::Statement conversation;
  SQLite::Statement step;
  SQLite::Statement candidate;
  SQLite::Statement internal_step;
  SQLite::Statement conversation_update;
  SQLite::Statement session_counters;
  SQLite::Statement search_savepoint;
  SQLite::Statement search_release;
  SQLite::Statement search_steps;
  SQLite::Statement search_candidates;
  SQLite::Statement search_internal_steps;
  SQLite::Statement search_a2a_calls;

  /// The insert into the full-text table of `table`'s rows.
  SQLite::Statement& searchInto(SearchRow::Table table) {
    switch (table) {
      case SearchRow::Table::Steps:
        return search_steps;
      case SearchRow::Table::Candidates:
        return search_candidates;
      case SearchRow::Table::InternalSteps:
        return search_internal_steps;
      case SearchRow::Table::A2aCalls:
        break;
    }
    return search_a2a_calls;
  }
};

ArchiveIndexer::ArchiveIndexer(SQLite::Database& db, const RecorderOptions& options,
                               std::int64_t own_session_id)
    : db_(db),
      options_(options),
      st_(std::make_unique<Statements>(db)),
      bodies_(db),
      a2a_st_(std::make_unique<A2aStatements>(db)),
      own_session_id_(own_session_id),
      others_through_(db.execAndGet("SELECT coalesce(max(id), 0) FROM exchanges").getInt64()) {}

ArchiveIndexer::~ArchiveIndexer() = default;

std::vector<PendingExchange> ArchiveIndexer::loadPending(std::size_t limit) {
  std::vector<PendingExchange> rows;
  SQLite::Statement& q = st_->pending;
  q.reset();
  bindInt(q, 1, loaded_through_);
  bindInt(q, 2, static_cast<std::int64_t>(limit));
  bindInt(q, 3, own_session_id_);
  bindInt(q, 4, others_through_);
  while (q.executeStep()) {
    PendingExchange row;
    row.id = q.getColumn(0).getInt64();
    row.session_id = q.getColumn(1).getInt64();
    protocol::Exchange& ex = row.redacted.exchange;
    ex.client_address = q.getColumn(2).getString();
    ex.method = q.getColumn(3).getString();
    ex.target = q.getColumn(4).getString();
    ex.http_version = static_cast<unsigned>(q.getColumn(5).getInt());
    ex.status = q.getColumn(6).getInt();
    ex.request_headers = headersFromJson(q.getColumn(7).getString());
    ex.response_headers = headersFromJson(q.getColumn(11).getString());
    try {
      ex.request_body = bodies_.unpackColumns(q, 8, 9, 24);
      ex.response_body = bodies_.unpackColumns(q, 12, 13, 25);
    } catch (const std::exception& e) {
      row.load_error = e.what();
    }
    row.redacted.request_body_redacted = q.getColumn(10).getInt() != 0;
    ex.response_from_upstream = q.getColumn(14).getInt() != 0;
    ex.started_ns = q.getColumn(15).getInt64();
    ex.upstream_first_byte_ns = optInt(q, 16).value_or(0);
    ex.ended_ns = optInt(q, 17).value_or(0);
    const std::string outcome = q.getColumn(18).getString();
    if (std::optional<protocol::ExchangeOutcome> known = protocol::outcomeFromName(outcome)) {
      ex.outcome = *known;
    } else {
      row.load_error = "unknown outcome '" + outcome + "'";
    }
    ex.error = optText(q, 19).value_or("");
    row.redacted.protocol = q.getColumn(20).getString();
    row.redacted.route = q.getColumn(21).getString();
    row.redacted.findings = optText(q, 22);
    ex.response_arrivals = arrivalsFromJson(optText(q, 23));
    loaded_through_ = row.id;
    rows.push_back(std::move(row));
  }
  return rows;
}

IndexOutcome ArchiveIndexer::writeIndex(std::vector<DecodedRow>& rows,
                                        const std::atomic<bool>& yield) noexcept {
  IndexOutcome out;
  search_rows_.clear();
  std::size_t taken = 0;
  try {
    std::map<std::int64_t, SessionDelta> deltas;
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    for (; taken < rows.size(); ++taken) {
      if (taken > 0 && yield.load(std::memory_order_relaxed)) {
        break;  // the capture waits for the connection: commit what is written
      }
      DecodedRow& row = rows[taken];
      if (!row.decoded) {
        markIndexed(row.id, nullptr, indexErrorFindings("decode_error", *row.load_error));
        ++out.indexed;
        continue;
      }
      DecodedExchange& d = *row.decoded;
      execOnce(st_->savepoint);
      try {
        const bool mine = indexExchange(d, row.id, row.session_id, deltas[row.session_id]);
        execOnce(st_->release);
        if (!mine) {
          continue;
        }
      } catch (const TransactionLost&) {
        throw;
      } catch (const std::exception& err) {
        db_.tryExec("ROLLBACK TO exchange");
        db_.tryExec("RELEASE exchange");
        logLine("[store.index] exchange " + std::to_string(row.id) + " (" + d.exchange.method +
                " " + d.exchange.target + ") not indexed: " + err.what());
        throwIfTransactionLost(db_);
        markIndexed(row.id, nullptr, indexErrorFindings("index_error", err.what()));
      }
      ++out.indexed;
    }
    writeSearchRows();
    for (const auto& [session_id, delta] : deltas) {
      SQLite::Statement& s = st_->session_counters;
      bindInt(s, 1, delta.steps);
      bindInt(s, 2, delta.candidates);
      bindInt(s, 3, delta.internal_steps);
      bindInt(s, 4, delta.conversations);
      bindInt(s, 5, delta.error_candidates);
      bindInt(s, 6, delta.invalid_exchanges);
      bindInt(s, 7, session_id);
      execOnce(s);
    }
    tx.commit();
    out.committed = true;
  } catch (const std::exception& e) {
    // Nothing of this batch is on disk: its rows stay unindexed until the next indexer.
    logLine("[store.index] batch of " + std::to_string(rows.size()) +
            " exchanges not indexed (they are indexed the next time the archive is opened for "
            "writing): " +
            e.what());
    out.indexed = 0;
    taken = rows.size();
    forgetAfterFailure();
  } catch (...) {
    logLine("[store.index] batch of " + std::to_string(rows.size()) +
            " exchanges not indexed: unknown exception");
    out.indexed = 0;
    taken = rows.size();
    forgetAfterFailure();
  }
  // A failed batch is not retried in this run: its rows stay unindexed on disk.
  rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(taken));
  search_rows_.clear();
  return out;
}

void ArchiveIndexer::forgetAfterFailure() {
  // The in-memory state learnt from rows that are not on disk.
  threading_.clear();
  blob_cache_.clear();
  search_rows_.clear();
}

ThreadingIndex& ArchiveIndexer::threadingOf(std::int64_t session_id) {
  auto it = threading_.find(session_id);
  if (it == threading_.end()) {
    it = threading_.emplace(session_id, ThreadingIndex(options_.threading_index_limit)).first;
  }
  return it->second;
}

void ArchiveIndexer::markIndexed(std::int64_t exchange_id, const DecodedExchange* d,
                                 const std::optional<std::string>& findings) {
  SQLite::Statement& s = st_->mark_indexed;
  // Named: the statement binds text without copying it, until it has run.
  const std::optional<std::string> none;
  const std::optional<std::string> protocol =
      d != nullptr ? std::optional<std::string>(d->protocol) : none;
  const std::optional<std::string> route =
      d != nullptr ? std::optional<std::string>(d->route) : none;
  bindOptText(s, 1, protocol);
  bindOptText(s, 2, route);
  bindOptText(s, 3, d != nullptr ? d->magma_request_id : none);
  bindOptBool(s, 4, d != nullptr ? d->request_valid : std::nullopt);
  bindOptBool(s, 5, d != nullptr ? d->response_valid : std::nullopt);
  bindOptText(s, 6, findings);
  bindInt(s, 7, kDecoderVersion);
  bindInt(s, 8, exchange_id);
  execOnce(s);
}

bool ArchiveIndexer::indexExchange(DecodedExchange& d, std::int64_t exchange_id,
                                   std::int64_t session_id, SessionDelta& delta) {
  Statements& st = *st_;
  bindInt(st.claim, 1, exchange_id);
  execOnce(st.claim);
  if (db_.getChanges() == 0) {
    return false;
  }
  const protocol::Exchange& ex = d.exchange;
  ThreadingIndex& threading = threadingOf(session_id);
  ThreadDecisions decisions(threading);  // undone unless every row of the exchange is in
  const std::uint64_t client = clientIdentity(ex.client_address);
  // The earliest the caller could have read an answer of this exchange.
  const std::int64_t answered_ns =
      ex.upstream_first_byte_ns != 0 ? ex.upstream_first_byte_ns : ex.ended_ns;
  // Blobs first: steps and candidates reference them.
  for (const BlobText& blob : d.blobs) {
    if (blob_cache_.count(blob.hash) != 0) {
      continue;
    }
    bindInt(st.blob, 1, toDb(blob.hash));
    if (blob.packed) {
      bindBlob(st.blob, 2, *blob.packed);
      bindOptText(st.blob, 3, kZstdCodecName);
    } else {
      bindText(st.blob, 2, blob.text);
      bindOptText(st.blob, 3, kNoCodec);
    }
    execOnce(st.blob);
  }

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
    const ThreadDecision decision = threading.decide(
        ThreadStep{step.memory_hash, step.source_id, step.is_env, ex.started_ns, client});
    std::int64_t conversation_id = 0;
    std::int64_t depth = 0;
    if (decision.parent) {
      conversation_id = decision.parent->conversation_id;
      depth = decision.parent->depth + 1;
    } else {
      bindInt(st.conversation, 1, session_id);
      bindInt(st.conversation, 2, ex.started_ns);
      execOnce(st.conversation);
      conversation_id = db_.getLastInsertRowid();
      new_roots.push_back(step.memory_hash);
      ++new_conversations;
    }
    SQLite::Statement& s = st.step;
    bindInt(s, 1, exchange_id);
    bindInt(s, 2, session_id);
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
    new_links.push_back(NewLink{cand.memory_hash, step.memory_hash,
                                ThreadLink{candidate_id, step.source_id, ws.conversation_id,
                                           ws.depth, answered_ns, client}});
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

  std::vector<SearchRow> a2a_search_rows;
  writeA2aAndStream(d, exchange_id, session_id, delta, a2a_search_rows);

  markIndexed(exchange_id, &d, d.findings);

  // Written: its text goes to the search indexes at the end of the batch. The strings are
  // not needed here any more (the statements rebind before each use).
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    search_rows_.push_back(SearchRow{SearchRow::Table::Steps, written_steps[k].step_id,
                                     std::move(d.steps[k].content), std::nullopt, std::nullopt});
  }
  std::size_t next_internal = 0;
  for (std::size_t k = 0; k < d.candidates.size(); ++k) {
    DecodedCandidate& cand = d.candidates[k];
    search_rows_.push_back(SearchRow{SearchRow::Table::Candidates, candidate_ids[k],
                                     std::move(cand.say), std::move(cand.error_message),
                                     std::nullopt});
    for (DecodedInternalStep& is : cand.internal_steps) {
      search_rows_.push_back(
          SearchRow{SearchRow::Table::InternalSteps, internal_step_ids[next_internal++],
                    std::move(is.full_prompt), std::move(is.output_raw), std::nullopt});
    }
  }
  std::move(a2a_search_rows.begin(), a2a_search_rows.end(), std::back_inserter(search_rows_));

  // Every row is in: now the in-memory state may learn from this exchange.
  if (blob_cache_.size() + d.blobs.size() > kBlobCacheLimit) {
    blob_cache_.clear();
  }
  for (const BlobText& blob : d.blobs) {
    blob_cache_.insert(blob.hash);
  }
  decisions.commit();
  for (std::uint64_t memory_hash : new_roots) {
    threading.addRoot(memory_hash);
  }
  for (const NewLink& l : new_links) {
    threading.addCandidate(l.memory_hash, l.input_memory_hash, l.link);
  }
  delta.steps += static_cast<std::int64_t>(d.steps.size());
  delta.candidates += static_cast<std::int64_t>(d.candidates.size());
  delta.internal_steps += internal_steps;
  delta.conversations += new_conversations;
  delta.error_candidates += error_candidates;
  delta.invalid_exchanges += d.invalid() ? 1 : 0;
  return true;
}

void ArchiveIndexer::writeSearchRows() {
  if (search_rows_.empty()) {
    return;
  }
  Statements& st = *st_;
  execOnce(st.search_savepoint);
  try {
    for (const SearchRow& row : search_rows_) {
      SQLite::Statement& s = st.searchInto(row.table);
      bindInt(s, 1, row.rowid);
      bindOptText(s, 2, row.first);
      if (row.table != SearchRow::Table::Steps) {
        bindOptText(s, 3, row.second);
      }
      if (row.table == SearchRow::Table::A2aCalls) {
        bindOptText(s, 4, row.third);
      }
      execOnce(s);
    }
    execOnce(st.search_release);
  } catch (const std::exception& e) {
    db_.tryExec("ROLLBACK TO search");
    db_.tryExec("RELEASE search");
    logLine("[store.write] search index not updated for " + std::to_string(search_rows_.size()) +
            " rows (they stay unsearchable): " + e.what());
    throwIfTransactionLost(db_);
  }
  search_rows_.clear();
}

}  // namespace agentvcr::store::detail

namespace agentvcr::store {

std::uint64_t indexPendingExchanges(const std::string& path,
                                    std::chrono::milliseconds busy_timeout) {
  RecorderOptions options;
  options.busy_timeout = busy_timeout;
  SQLite::Database db = detail::openWriterConnection(path, options);
  detail::ArchiveIndexer indexer(db, options, 0);
  detail::DecodeOptions decode_options;
  decode_options.max_decode_bytes = options.max_decode_bytes;
  std::uint64_t indexed = 0;
  for (;;) {
    std::vector<detail::PendingExchange> rows = indexer.loadPending(256);
    if (rows.empty()) {
      return indexed;
    }
    std::vector<detail::DecodedRow> decoded = detail::decodeRows(std::move(rows), decode_options);
    indexer.packNewMemories(decoded);
    const std::atomic<bool> never{false};
    while (!decoded.empty()) {
      indexed += indexer.writeIndex(decoded, never).indexed;
    }
  }
}

}  // namespace agentvcr::store
