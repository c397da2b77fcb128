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
#include "yielding_vfs.hpp"

namespace agentvcr::store::detail {
namespace {

const std::string kUser = "user";
const std::string kEnv = "env";
const std::string kCompleted = "completed";
const std::string kError = "error";
const std::optional<std::string> kZstdCodecName{std::string(kZstdCodec)};
const std::optional<std::string> kNoCodec;
const std::optional<std::string> kBodyBlobCodecName{std::string(kBodyBlobCodec)};

/// When an exchange's conversations last saw activity: its end, else its start.
std::int64_t endNs(const protocol::Exchange& ex) {
  return ex.ended_ns != 0 ? ex.ended_ns : ex.started_ns;
}

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
    if (options.between_exchanges) {
      options.between_exchanges();
    }
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
  // A blob already on disk is not written again; finding or compressing it would be wasted.
  auto isNew = [this](std::uint64_t hash) { return blob_cache_.count(hash) == 0; };
  // A memory its body holds is kept as a reference there; any other compressed.
  referenceMemories(d, isNew);
  for (BlobText& blob : d.blobs) {
    if (blob.is_memory && !blob.in_body && isNew(blob.hash)) {
      blob.packed = memory_compressor_.pack(blob.text);
    }
  }
}

namespace {

/// Positions of the pending rows' columns, looked up by name once per prepared statement:
/// loadPending() reads every captured exchange through them.
struct PendingColumns {
  explicit PendingColumns(const SQLite::Statement& q)
      : id(columnIndex(q, "id")),
        session_id(columnIndex(q, "session_id")),
        client_address(columnIndex(q, "client_address")),
        method(columnIndex(q, "method")),
        target(columnIndex(q, "target")),
        http_version(columnIndex(q, "http_version")),
        status(columnIndex(q, "status")),
        request_headers(columnIndex(q, "request_headers")),
        request_body(BodyColumns::of(q, BodySide::Request)),
        request_body_redacted(columnIndex(q, "request_body_redacted")),
        response_headers(columnIndex(q, "response_headers")),
        response_body(BodyColumns::of(q, BodySide::Response)),
        response_from_upstream(columnIndex(q, "response_from_upstream")),
        started_ns(columnIndex(q, "started_ns")),
        upstream_first_byte_ns(columnIndex(q, "upstream_first_byte_ns")),
        ended_ns(columnIndex(q, "ended_ns")),
        outcome(columnIndex(q, "outcome")),
        error(columnIndex(q, "error")),
        protocol(columnIndex(q, "protocol")),
        route(columnIndex(q, "route")),
        findings(columnIndex(q, "findings")),
        response_arrivals(columnIndex(q, "response_arrivals")) {}

  int id;
  int session_id;
  int client_address;
  int method;
  int target;
  int http_version;
  int status;
  int request_headers;
  BodyColumns request_body;
  int request_body_redacted;
  int response_headers;
  BodyColumns response_body;
  int response_from_upstream;
  int started_ns;
  int upstream_first_byte_ns;
  int ended_ns;
  int outcome;
  int error;
  int protocol;
  int route;
  int findings;
  int response_arrivals;
};

}  // namespace

struct ArchiveIndexer::Statements {
  explicit Statements(SQLite::Database& db)
      : pending(db, R"sql(
          SELECT id, session_id, client_address, method, target, http_version, status,
            request_headers, request_body, request_body_codec, request_body_redacted,
            response_headers, response_body, response_body_codec, response_from_upstream,
            started_ns, upstream_first_byte_ns, ended_ns, outcome, error, protocol, route,
            findings, response_arrivals, request_body_dictionary, response_body_dictionary,
            body_segment_id
          FROM exchanges
          WHERE indexed = 0 AND id > :after_id AND id <= :through_id
            AND (session_id = :own_session_id OR id <= :others_through)
          ORDER BY id LIMIT :limit)sql"),
        pending_columns(pending),
        savepoint(db, "SAVEPOINT exchange"),
        rollback(db, "ROLLBACK TO exchange"),
        release(db, "RELEASE exchange"),
        blob(db, R"sql(
          INSERT OR IGNORE INTO blobs (hash, text, codec, body_exchange_id, body_side, body_at,
            body_end)
          VALUES (:hash, :text, :codec, :exchange_id, :side, :at, :end))sql"),
        mark_indexed(db, R"sql(
          UPDATE exchanges SET protocol = coalesce(:protocol, protocol),
            route = coalesce(:route, route), magma_request_id = :magma_request_id,
            request_valid = :request_valid, response_valid = :response_valid,
            findings = :findings, decoder_version = :decoder_version, response_arrivals = NULL,
            indexed = 1
          WHERE id = :id AND indexed = 0)sql"),
        conversation(db, R"sql(
          INSERT INTO conversations (session_id, first_ns, last_ns)
          VALUES (:session_id, :first_ns, :first_ns))sql"),
        step(db, R"sql(
          INSERT INTO steps (exchange_id, session_id, position, source_id, replay_key,
            instruction_type, instruction_content, env_failure, memory_hash,
            tools_hash, attributes_hash, extra_keys_hash, num_outputs, conversation_id,
            parent_candidate_id, parent_ambiguity, depth)
          VALUES (:exchange_id, :session_id, :position, :source_id, :replay_key,
            :instruction_type, :instruction_content, :env_failure, :memory_hash,
            :tools_hash, :attributes_hash, :extra_keys_hash, :num_outputs, :conversation_id,
            :parent_candidate_id, :parent_ambiguity, :depth))sql"),
        candidate(db, R"sql(
          INSERT INTO candidates (step_id, candidate_index, status, say, tool_calls,
            decision_kind, error_code, error_message, error_component, memory_hash,
            internal_step_count)
          VALUES (:step_id, :candidate_index, :status, :say, :tool_calls, :decision_kind,
            :error_code, :error_message, :error_component, :memory_hash,
            :internal_step_count))sql"),
        internal_step(db, R"sql(
          INSERT INTO internal_steps (candidate_id, position, step_key, component, origin,
            full_prompt, full_prompt_at, prompt_new, prompt_parent_id, output_raw, rest)
          VALUES (:candidate_id, :position, :step_key, :component, :origin, :full_prompt,
            :full_prompt_at, :prompt_new, :prompt_parent_id, :output_raw, :rest))sql"),
        conversation_update(db, R"sql(
          UPDATE conversations SET
            root_step_id = coalesce(root_step_id, :root_step_id),
            title = coalesce(title, :title),
            step_count = step_count + :steps,
            candidate_count = candidate_count + :candidates,
            error_candidates = error_candidates + :error_candidates,
            env_failures = env_failures + :env_failures,
            max_depth = max(max_depth, :max_depth),
            last_ns = max(coalesce(last_ns, :last_ns), :last_ns),
            ended_in = coalesce(:ended_in, ended_in)
          WHERE id = :id)sql"),
        session_counters(db, R"sql(
          UPDATE sessions SET
            step_count = step_count + :steps,
            candidate_count = candidate_count + :candidates,
            internal_step_count = internal_step_count + :internal_steps,
            conversation_count = conversation_count + :conversations,
            error_candidate_count = error_candidate_count + :error_candidates,
            invalid_exchange_count = invalid_exchange_count + :invalid_exchanges
          WHERE id = :id)sql"),
        search_savepoint(db, "SAVEPOINT search"),
        search_release(db, "RELEASE search"),
        // The search tables' columns by SearchRow's fields: first, second, third.
        search_steps(
            db, "INSERT INTO search_steps (rowid, instruction_content) VALUES (:rowid, :first)"),
        search_candidates(db, R"sql(
          INSERT INTO search_candidates (rowid, say, error_message)
          VALUES (:rowid, :first, :second))sql"),
        search_internal_steps(db, R"sql(
          INSERT INTO search_internal_steps (rowid, prompt_new, output_raw)
          VALUES (:rowid, :first, :second))sql"),
        search_a2a_calls(db, R"sql(
          INSERT INTO search_a2a_calls (rowid, request_text, response_text, error_message)
          VALUES (:rowid, :first, :second, :third))sql") {}

  ReusedStatement pending;
  PendingColumns pending_columns;
  ReusedStatement savepoint;
  ReusedStatement rollback;
  ReusedStatement release;
  ReusedStatement blob;
  ReusedStatement mark_indexed;
  ReusedStatement conversation;
  ReusedStatement step;
  ReusedStatement candidate;
  ReusedStatement internal_step;
  ReusedStatement conversation_update;
  ReusedStatement session_counters;
  ReusedStatement search_savepoint;
  ReusedStatement search_release;
  ReusedStatement search_steps;
  ReusedStatement search_candidates;
  ReusedStatement search_internal_steps;
  ReusedStatement search_a2a_calls;

  /// The insert into the full-text table of `table`'s rows.
  ReusedStatement& searchInto(SearchRow::Table table) {
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

std::vector<PendingExchange> ArchiveIndexer::loadPending(std::size_t limit, std::size_t byte_limit,
                                                         std::int64_t through_id) {
  std::vector<PendingExchange> rows;
  std::size_t bytes = 0;
  ReusedStatement& q = st_->pending;
  const PendingColumns& c = st_->pending_columns;
  q.reset();
  bindInt(q, ":after_id", loaded_through_);
  bindInt(q, ":through_id", through_id);
  bindInt(q, ":limit", static_cast<std::int64_t>(limit));
  bindInt(q, ":own_session_id", own_session_id_);
  bindInt(q, ":others_through", others_through_);
  while (q.executeStep()) {
    PendingExchange row;
    row.id = q.getColumn(c.id).getInt64();
    row.session_id = q.getColumn(c.session_id).getInt64();
    protocol::Exchange& ex = row.redacted.exchange;
    ex.client_address = q.getColumn(c.client_address).getString();
    ex.method = q.getColumn(c.method).getString();
    ex.target = q.getColumn(c.target).getString();
    ex.http_version = static_cast<unsigned>(q.getColumn(c.http_version).getInt());
    ex.status = q.getColumn(c.status).getInt();
    ex.request_headers = headersFromJson(q.getColumn(c.request_headers).getString());
    ex.response_headers = headersFromJson(q.getColumn(c.response_headers).getString());
    try {
      ex.request_body = bodies_.read(q, c.request_body);
      ex.response_body = bodies_.read(q, c.response_body);
    } catch (const std::exception& e) {
      row.load_error = e.what();
    }
    row.redacted.request_body_redacted = q.getColumn(c.request_body_redacted).getInt() != 0;
    ex.response_from_upstream = q.getColumn(c.response_from_upstream).getInt() != 0;
    ex.started_ns = q.getColumn(c.started_ns).getInt64();
    ex.upstream_first_byte_ns = optInt(q, c.upstream_first_byte_ns).value_or(0);
    ex.ended_ns = optInt(q, c.ended_ns).value_or(0);
    const std::string outcome = q.getColumn(c.outcome).getString();
    if (std::optional<protocol::ExchangeOutcome> known = protocol::outcomeFromName(outcome)) {
      ex.outcome = *known;
    } else {
      row.load_error = "unknown outcome '" + outcome + "'";
    }
    ex.error = optText(q, c.error).value_or("");
    row.redacted.protocol = q.getColumn(c.protocol).getString();
    row.redacted.route = q.getColumn(c.route).getString();
    row.redacted.findings = optText(q, c.findings);
    ex.response_arrivals = arrivalsFromJson(optText(q, c.response_arrivals));
    loaded_through_ = row.id;
    bytes += bodyBytes(ex);
    rows.push_back(std::move(row));
    if (bytes >= byte_limit) {
      break;  // the rest comes with the next chunk
    }
  }
  return rows;
}

void ArchiveIndexer::loadedElsewhere(std::int64_t through_id) {
  loaded_through_ = std::max(loaded_through_, through_id);
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
      // Every indexed row touches its session's counters, which moves its feed_tick: a reader
      // that follows the archive learns that the exchange can be read now.
      out.indexed += indexRow(row, deltas[row.session_id]) ? 1 : 0;
      giveWayUnlessAwaited(yield);
    }
    writeSearchRows(yield);
    for (const auto& [session_id, delta] : deltas) {
      addSessionCounters(session_id, delta);
    }
    std::optional<WritesKeepTheCore> keep_the_core;
    if (yield.load(std::memory_order_relaxed)) {
      keep_the_core.emplace();
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

bool ArchiveIndexer::indexRow(DecodedRow& row, SessionDelta& delta) {
  if (!row.decoded) {
    return markIndexed(row.id, nullptr, indexErrorFindings("decode_error", *row.load_error));
  }
  DecodedExchange& d = *row.decoded;
  const SessionDelta before = delta;  // what a rolled-back exchange must not add
  execOnce(st_->savepoint);
  try {
    if (indexExchange(d, row.id, row.session_id, delta)) {
      execOnce(st_->release);
      return true;
    }
    // Another recorder indexed it first: its rows stay, ours go.
    delta = before;
    execOnce(st_->rollback);
    execOnce(st_->release);
    return false;
  } catch (const TransactionLost&) {
    throw;
  } catch (const std::exception& err) {
    delta = before;
    db_.tryExec("ROLLBACK TO exchange");
    db_.tryExec("RELEASE exchange");
    logLine("[store.index] exchange " + std::to_string(row.id) + " (" + d.exchange.method + " " +
            d.exchange.target + ") not indexed: " + err.what());
    throwIfTransactionLost(db_);
    return markIndexed(row.id, nullptr, indexErrorFindings("index_error", err.what()));
  }
}

void ArchiveIndexer::forgetAfterFailure() {
  // The in-memory state learnt from rows that are not on disk.
  threading_.clear();
  blob_cache_.clear();
  prompts_.clear();
  search_rows_.clear();
}

ThreadingIndex& ArchiveIndexer::threadingOf(std::int64_t session_id) {
  auto it = threading_.find(session_id);
  if (it == threading_.end()) {
    it = threading_.emplace(session_id, ThreadingIndex(options_.threading_index_limit)).first;
  }
  return it->second;
}

void ArchiveIndexer::addSessionCounters(std::int64_t session_id, const SessionDelta& delta) {
  ReusedStatement& s = st_->session_counters;
  bindInt(s, ":steps", delta.steps);
  bindInt(s, ":candidates", delta.candidates);
  bindInt(s, ":internal_steps", delta.internal_steps);
  bindInt(s, ":conversations", delta.conversations);
  bindInt(s, ":error_candidates", delta.error_candidates);
  bindInt(s, ":invalid_exchanges", delta.invalid_exchanges);
  bindInt(s, ":id", session_id);
  execOnce(s);
}

// The row's claim too. It used to be an UPDATE of its own before the exchange's rows were
// written; now the one UPDATE that marks the row indexed claims it, after they are written.
// That is as safe: the index writes in BEGIN IMMEDIATE transactions, so no other connection
// commits between this UPDATE and the COMMIT that makes the rows visible, and `indexed = 0`
// is read in the newest snapshot. Another recorder holds the same row only if it started while
// the row was pending (it also indexes other sessions' rows captured before it started: a
// crash's leftovers, or a live recorder's backlog). That is rare, and then the loser's rows
// are rolled back with the exchange's savepoint: work done for nothing, never a row indexed
// twice.
bool ArchiveIndexer::markIndexed(std::int64_t exchange_id, const DecodedExchange* d,
                                 const std::optional<std::string>& findings) {
  ReusedStatement& s = st_->mark_indexed;
  // Named: the statement binds text without copying it, until it has run.
  const std::optional<std::string> none;
  const std::optional<std::string> protocol =
      d != nullptr ? std::optional<std::string>(d->protocol) : none;
  const std::optional<std::string> route =
      d != nullptr ? std::optional<std::string>(d->route) : none;
  bindOptText(s, ":protocol", protocol);
  bindOptText(s, ":route", route);
  bindOptText(s, ":magma_request_id", d != nullptr ? d->magma_request_id : none);
  bindOptBool(s, ":request_valid", d != nullptr ? d->request_valid : std::nullopt);
  bindOptBool(s, ":response_valid", d != nullptr ? d->response_valid : std::nullopt);
  bindOptText(s, ":findings", findings);
  bindInt(s, ":decoder_version", kDecoderVersion);
  bindInt(s, ":id", exchange_id);
  execOnce(s);
  return db_.getChanges() != 0;
}

/// The rows one exchange was written as, in the order of DecodedExchange's steps, candidates
/// and internal steps, and what they teach the in-memory state once the exchange is in.
struct ArchiveIndexer::WrittenExchange {
  struct Step {
    std::int64_t id;
    std::int64_t conversation_id;
    std::int64_t depth;
    std::optional<std::int64_t> parent_candidate_id;
  };

  /// A candidate's prompts, to be kept once every row of the exchange is in.
  struct CandidatePrompts {
    std::int64_t candidate_id;
    std::vector<std::pair<std::int64_t, std::optional<std::string>>> prompts;
  };

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

  /// A candidate for the threading index: its memory may be the input of a later step.
  struct NewLink {
    std::uint64_t memory_hash;
    std::uint64_t input_memory_hash;
    ThreadLink link;
  };

  std::vector<Step> steps;
  std::vector<std::int64_t> candidate_ids;
  std::vector<std::int64_t> internal_step_ids;
  std::vector<std::optional<std::string>> prompt_news;  ///< by internal_step_ids
  std::vector<CandidatePrompts> prompts;
  std::map<std::int64_t, ConversationDelta> conversations;
  std::vector<std::uint64_t> new_roots;  ///< memories of the steps that started a conversation
  std::vector<NewLink> new_links;
  std::int64_t error_candidates = 0;
};

bool ArchiveIndexer::indexExchange(DecodedExchange& d, std::int64_t exchange_id,
                                   std::int64_t session_id, SessionDelta& delta) {
  ThreadingIndex& threading = threadingOf(session_id);
  ThreadDecisions decisions(threading);  // undone unless every row of the exchange is in
  WrittenExchange written;
  writeBlobs(d, exchange_id);  // first: steps and candidates reference them
  writeSteps(d, exchange_id, session_id, threading, written);
  writeCandidates(d, written);
  updateConversations(written, endNs(d.exchange));
  std::vector<SearchRow> a2a_search_rows;
  writeA2aAndStream(d, exchange_id, session_id, delta, a2a_search_rows);
  if (!markIndexed(exchange_id, &d, d.findings)) {
    return false;  // the caller rolls back; `decisions` are undone
  }

  // Every row is in: now the in-memory state may learn from this exchange.
  queueSearchRows(d, written, a2a_search_rows);
  rememberBlobs(d);
  for (WrittenExchange::CandidatePrompts& kept : written.prompts) {
    prompts_.keep(kept.candidate_id, std::move(kept.prompts));
  }
  decisions.commit();
  learnThreads(threading, written);
  addToSessionDelta(d, written, delta);
  return true;
}

void ArchiveIndexer::writeBlobs(const DecodedExchange& d, std::int64_t exchange_id) {
  ReusedStatement& s = st_->blob;
  static const std::string kNoText;
  for (const BlobText& blob : d.blobs) {
    if (blob_cache_.count(blob.hash) != 0) {
      continue;
    }
    bindInt(s, ":hash", toDb(blob.hash));
    const std::optional<BodyReference>& ref = blob.in_body;
    if (ref) {
      bindText(s, ":text", kNoText);
      bindOptText(s, ":codec", kBodyBlobCodecName);
    } else if (blob.packed) {
      bindBlob(s, ":text", *blob.packed);
      bindOptText(s, ":codec", kZstdCodecName);
    } else {
      bindText(s, ":text", blob.text);
      bindOptText(s, ":codec", kNoCodec);
    }
    auto refInt = [&](std::int64_t value) {
      return ref ? std::optional<std::int64_t>(value) : std::nullopt;
    };
    bindOptInt(s, ":exchange_id", refInt(exchange_id));
    bindOptInt(s, ":side", refInt(ref && ref->response ? 1 : 0));
    bindOptInt(s, ":at", refInt(ref ? static_cast<std::int64_t>(ref->begin) : 0));
    bindOptInt(s, ":end", refInt(ref ? static_cast<std::int64_t>(ref->end) : 0));
    execOnce(s);
  }
}

void ArchiveIndexer::writeSteps(const DecodedExchange& d, std::int64_t exchange_id,
                                std::int64_t session_id, ThreadingIndex& threading,
                                WrittenExchange& written) {
  const std::int64_t end_ns = endNs(d.exchange);
  written.steps.reserve(d.steps.size());
  for (const DecodedStep& step : d.steps) {
    const ThreadDecision decision = placeStep(threading, d.exchange, step);
    std::int64_t conversation_id = 0;
    std::int64_t depth = 0;
    if (decision.parent) {
      conversation_id = decision.parent->conversation_id;
      depth = decision.parent->depth + 1;
    } else {
      conversation_id = insertConversation(session_id, d.exchange.started_ns);
      written.new_roots.push_back(step.memory_hash);
    }
    ReusedStatement& s = st_->step;
    bindInt(s, ":exchange_id", exchange_id);
    bindInt(s, ":session_id", session_id);
    bindInt(s, ":position", step.position);
    bindInt(s, ":source_id", step.source_id);
    bindInt(s, ":replay_key", toDb(step.replay_key));
    bindText(s, ":instruction_type", step.is_env ? kEnv : kUser);
    bindText(s, ":instruction_content", step.content);
    bindOptBool(s, ":env_failure", step.env_failure);
    bindInt(s, ":memory_hash", toDb(step.memory_hash));
    bindInt(s, ":tools_hash", toDb(step.tools_hash));
    bindInt(s, ":attributes_hash", toDb(step.attributes_hash));
    bindInt(s, ":extra_keys_hash", toDb(step.extra_keys_hash));
    bindInt(s, ":num_outputs", step.num_outputs);
    bindInt(s, ":conversation_id", conversation_id);
    bindOptInt(s, ":parent_candidate_id",
               decision.parent ? std::optional<std::int64_t>(decision.parent->candidate_id)
                               : std::nullopt);
    bindInt(s, ":parent_ambiguity", decision.ambiguity);
    bindInt(s, ":depth", depth);
    execOnce(s);
    const std::int64_t step_id = db_.getLastInsertRowid();
    written.steps.push_back(WrittenExchange::Step{
        step_id, conversation_id, depth,
        decision.parent ? std::optional<std::int64_t>(decision.parent->candidate_id)
                        : std::nullopt});

    WrittenExchange::ConversationDelta& c = written.conversations[conversation_id];
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
}

std::int64_t ArchiveIndexer::insertConversation(std::int64_t session_id, std::int64_t first_ns) {
  ReusedStatement& s = st_->conversation;
  bindInt(s, ":session_id", session_id);
  bindInt(s, ":first_ns", first_ns);
  execOnce(s);
  return db_.getLastInsertRowid();
}

void ArchiveIndexer::writeCandidates(const DecodedExchange& d, WrittenExchange& written) {
  written.candidate_ids.reserve(d.candidates.size());
  written.new_links.reserve(d.candidates.size());
  const protocol::Exchange& ex = d.exchange;
  const std::uint64_t client = clientIdentity(ex.client_address);
  // The earliest the caller could have read an answer of this exchange.
  const std::int64_t answered_ns =
      ex.upstream_first_byte_ns != 0 ? ex.upstream_first_byte_ns : ex.ended_ns;
  for (const DecodedCandidate& cand : d.candidates) {
    const WrittenExchange::Step& ws = written.steps[cand.step_index];
    ReusedStatement& s = st_->candidate;
    bindInt(s, ":step_id", ws.id);
    bindInt(s, ":candidate_index", cand.candidate_index);
    bindText(s, ":status", cand.is_error ? kError : kCompleted);
    bindOptText(s, ":say", cand.say);
    bindOptText(s, ":tool_calls", cand.tool_calls);
    bindOptText(s, ":decision_kind", cand.decision_kind);
    bindOptText(s, ":error_code", cand.error_code);
    bindOptText(s, ":error_message", cand.error_message);
    bindOptText(s, ":error_component", cand.error_component);
    bindInt(s, ":memory_hash", toDb(cand.memory_hash));
    bindInt(s, ":internal_step_count", static_cast<std::int64_t>(cand.internal_steps.size()));
    execOnce(s);
    const std::int64_t candidate_id = db_.getLastInsertRowid();
    written.candidate_ids.push_back(candidate_id);
    writeInternalSteps(cand, candidate_id, ws.parent_candidate_id, d.steps[cand.step_index].content,
                       written);
    written.error_candidates += cand.is_error ? 1 : 0;

    WrittenExchange::ConversationDelta& c = written.conversations[ws.conversation_id];
    ++c.candidates;
    c.error_candidates += cand.is_error ? 1 : 0;
    c.ended_in = cand.endedIn();
    const DecodedStep& step = d.steps[cand.step_index];
    written.new_links.push_back(
        WrittenExchange::NewLink{cand.memory_hash, step.memory_hash,
                                 ThreadLink{candidate_id, ws.id, step.source_id, ws.conversation_id,
                                            ws.depth, answered_ns, client}});
  }
}

void ArchiveIndexer::writeInternalSteps(const DecodedCandidate& cand, std::int64_t candidate_id,
                                        std::optional<std::int64_t> parent_candidate_id,
                                        std::string_view instruction, WrittenExchange& written) {
  ReusedStatement& s = st_->internal_step;
  WrittenExchange::CandidatePrompts kept{candidate_id, {}};
  std::size_t position = 0;
  for (const DecodedInternalStep& is : cand.internal_steps) {
    // What the prompt adds to the same internal step of the step it continues.
    std::optional<std::string> prompt_new;
    std::optional<std::int64_t> prompt_parent_id;
    if (is.full_prompt) {
      const std::optional<PromptMemory::Kept> parent =
          parent_candidate_id ? prompts_.find(*parent_candidate_id, position) : std::nullopt;
      const PromptDelta delta = parent ? promptDelta(*parent->prompt, *is.full_prompt)
                                       : PromptDelta{std::nullopt, 0, is.full_prompt->size()};
      prompt_new = newPromptText(*is.full_prompt, delta, instruction);
      if (parent) {
        prompt_parent_id = parent->internal_step_id;
      }
    }
    bindInt(s, ":candidate_id", candidate_id);
    bindInt(s, ":position", static_cast<std::int64_t>(position++));
    bindOptText(s, ":step_key", is.step_key);
    bindOptText(s, ":component", is.component);
    bindOptText(s, ":origin", is.origin);
    // A prompt the response body holds is read from there: the row keeps where.
    static const std::optional<std::string> kNoText;
    bindOptText(s, ":full_prompt", is.full_prompt_at ? kNoText : is.full_prompt);
    bindOptInt(s, ":full_prompt_at",
               is.full_prompt_at
                   ? std::optional<std::int64_t>(static_cast<std::int64_t>(*is.full_prompt_at))
                   : std::nullopt);
    bindOptText(s, ":prompt_new", prompt_new);
    bindOptInt(s, ":prompt_parent_id", prompt_parent_id);
    bindOptText(s, ":output_raw", is.output_raw);
    bindText(s, ":rest", is.rest);
    execOnce(s);
    const std::int64_t id = db_.getLastInsertRowid();
    written.internal_step_ids.push_back(id);
    written.prompt_news.push_back(std::move(prompt_new));
    kept.prompts.emplace_back(id, is.full_prompt);
  }
  written.prompts.push_back(std::move(kept));
}

void ArchiveIndexer::updateConversations(const WrittenExchange& written, std::int64_t end_ns) {
  ReusedStatement& s = st_->conversation_update;
  for (const auto& [conversation_id, c] : written.conversations) {
    bindOptInt(s, ":root_step_id", c.root_step_id);
    bindOptText(s, ":title", c.title);
    bindInt(s, ":steps", c.steps);
    bindInt(s, ":candidates", c.candidates);
    bindInt(s, ":error_candidates", c.error_candidates);
    bindInt(s, ":env_failures", c.env_failures);
    bindInt(s, ":max_depth", c.max_depth);
    bindInt(s, ":last_ns", c.last_ns != 0 ? c.last_ns : end_ns);
    bindOptText(s, ":ended_in", c.ended_in);
    bindInt(s, ":id", conversation_id);
    execOnce(s);
  }
}

void ArchiveIndexer::queueSearchRows(DecodedExchange& d, WrittenExchange& written,
                                     std::vector<SearchRow>& a2a_search_rows) {
  // The strings are not needed here any more (the statements rebind before each use).
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    search_rows_.push_back(SearchRow{SearchRow::Table::Steps, written.steps[k].id,
                                     std::move(d.steps[k].content), std::nullopt, std::nullopt});
  }
  std::size_t next_internal = 0;
  for (std::size_t k = 0; k < d.candidates.size(); ++k) {
    DecodedCandidate& cand = d.candidates[k];
    search_rows_.push_back(SearchRow{SearchRow::Table::Candidates, written.candidate_ids[k],
                                     std::move(cand.say), std::move(cand.error_message),
                                     std::nullopt});
    for (DecodedInternalStep& is : cand.internal_steps) {
      search_rows_.push_back(SearchRow{
          SearchRow::Table::InternalSteps, written.internal_step_ids[next_internal],
          std::move(written.prompt_news[next_internal]), std::move(is.output_raw), std::nullopt});
      ++next_internal;
    }
  }
  std::move(a2a_search_rows.begin(), a2a_search_rows.end(), std::back_inserter(search_rows_));
}

void ArchiveIndexer::rememberBlobs(const DecodedExchange& d) {
  if (blob_cache_.size() + d.blobs.size() > kBlobCacheLimit) {
    blob_cache_.clear();
  }
  for (const BlobText& blob : d.blobs) {
    blob_cache_.insert(blob.hash);
  }
}

// The indexer's only calls into ThreadingIndex: where a step goes, and what the exchange's
// written steps and candidates teach the index.

ThreadDecision ArchiveIndexer::placeStep(ThreadingIndex& threading, const protocol::Exchange& ex,
                                         const DecodedStep& step) {
  return threading.decide(ThreadStep{step.memory_hash, step.source_id, step.is_env, ex.started_ns,
                                     clientIdentity(ex.client_address)});
}

void ArchiveIndexer::learnThreads(ThreadingIndex& threading, const WrittenExchange& written) {
  for (std::uint64_t memory_hash : written.new_roots) {
    threading.addRoot(memory_hash);
  }
  for (const WrittenExchange::NewLink& l : written.new_links) {
    threading.addCandidate(l.memory_hash, l.input_memory_hash, l.link);
  }
}

void ArchiveIndexer::addToSessionDelta(const DecodedExchange& d, const WrittenExchange& written,
                                       SessionDelta& delta) {
  delta.steps += static_cast<std::int64_t>(d.steps.size());
  delta.candidates += static_cast<std::int64_t>(d.candidates.size());
  delta.internal_steps += static_cast<std::int64_t>(written.internal_step_ids.size());
  delta.conversations += static_cast<std::int64_t>(written.new_roots.size());
  delta.error_candidates += written.error_candidates;
  delta.invalid_exchanges += d.invalid() ? 1 : 0;
}

void ArchiveIndexer::giveWayUnlessAwaited(const std::atomic<bool>& capture_waiting) const {
  if (options_.between_exchanges && !capture_waiting.load(std::memory_order_relaxed)) {
    options_.between_exchanges();
  }
}

void ArchiveIndexer::writeSearchRows(const std::atomic<bool>& capture_waiting) {
  if (search_rows_.empty()) {
    return;
  }
  Statements& st = *st_;
  execOnce(st.search_savepoint);
  try {
    for (const SearchRow& row : search_rows_) {
      ReusedStatement& s = st.searchInto(row.table);
      bindInt(s, ":rowid", row.rowid);
      bindOptText(s, ":first", row.first);
      if (row.table != SearchRow::Table::Steps) {
        bindOptText(s, ":second", row.second);
      }
      if (row.table == SearchRow::Table::A2aCalls) {
        bindOptText(s, ":third", row.third);
      }
      execOnce(s);
      giveWayUnlessAwaited(capture_waiting);
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
    std::vector<detail::PendingExchange> rows =
        indexer.loadPending(options.index_chunk, detail::kIndexChunkBytes);
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
