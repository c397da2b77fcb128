#include "archive_writer.hpp"

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/store/identity.hpp"
#include "decode.hpp"
#include "schema_internal.hpp"
#include "sqlite_support.hpp"
#include "yielding_vfs.hpp"

namespace agentvcr::store::detail {
namespace {

const std::optional<std::string> kZstd{std::string(kZstdCodec)};
const std::optional<std::string> kSegment{std::string(kSegmentCodec)};
const std::optional<std::string> kVerbatim;

std::optional<std::int64_t> nonZero(std::int64_t v) {
  if (v == 0) {
    return std::nullopt;
  }
  return v;
}

bool failedExchange(const protocol::Exchange& ex) {
  return ex.outcome != protocol::ExchangeOutcome::Complete || ex.status >= 400;
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

void throwIfTransactionLost(SQLite::Database& db) {
  if (sqlite3_get_autocommit(db.getHandle()) != 0) {
    throw TransactionLost("the transaction was rolled back by SQLite");
  }
}

SQLite::Database openWriterConnection(const std::string& path, const RecorderOptions& options) {
  SQLite::Database db = openDatabase(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE,
                                     options.busy_timeout, Vfs::Yielding);
  try {
    prepareArchive(db, path);
    db.exec(options.durability == Durability::Full ? "PRAGMA synchronous = FULL"
                                                   : "PRAGMA synchronous = NORMAL");
    // The indexer's per-exchange savepoints journal into memory, and a whole batch fits in the
    // page cache: otherwise SQLite writes pages several times per batch.
    db.exec("PRAGMA temp_store = MEMORY");
    db.exec("PRAGMA cache_size = -65536");
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("[store.open] cannot prepare archive " + path + ": " + e.what());
  }
  return db;
}

struct ArchiveWriter::Statements {
  explicit Statements(SQLite::Database& db)
      : exchange(db, R"sql(
          INSERT INTO exchanges (session_id, seq, client_address, method, target, http_version,
            status, request_headers, request_body, request_body_redacted, response_headers,
            response_body, response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns,
            outcome, error, protocol, route, findings, request_body_codec, response_body_codec,
            request_body_size, response_body_size, response_arrivals, indexed, decoder_version,
            body_segment_id, request_ended_ns, upstream_sent_ns, fault, card_rewrite,
            upstream_last_byte_ns)
          VALUES (:session_id, :seq, :client_address, :method, :target, :http_version, :status,
            :request_headers, :request_body, :request_body_redacted, :response_headers,
            :response_body, :response_from_upstream, :started_ns, :upstream_first_byte_ns,
            :ended_ns, :outcome, :error, :protocol, :route, :findings, :request_body_codec,
            :response_body_codec, :request_body_size, :response_body_size, :response_arrivals,
            :indexed, :decoder_version, :body_segment_id, :request_ended_ns, :upstream_sent_ns,
            :fault, :card_rewrite, :upstream_last_byte_ns))sql"),
        session_counters(db, R"sql(
          UPDATE sessions SET
            exchange_count = exchange_count + :exchanges,
            failed_exchange_count = failed_exchange_count + :failed_exchanges
          WHERE id = :id)sql"),
        identity(db, R"sql(
          UPDATE sessions SET agent_health = :agent_health, agent_info = :agent_info,
            agent_id = :agent_id, agent_version = :agent_version
          WHERE id = :id)sql"),
        replay_miss(db, R"sql(
          INSERT INTO replay_misses (session_id, at_ns, route, request_id, position, source_id,
            replay_key, input, closest_step_id, differences, policy)
          VALUES (:session_id, :at_ns, :route, :request_id, :position, :source_id, :replay_key,
            :input, :closest_step_id, :differences, :policy))sql") {}

  ReusedStatement exchange;
  ReusedStatement session_counters;
  ReusedStatement identity;
  ReusedStatement replay_miss;
};

ArchiveWriter::ArchiveWriter(SQLite::Database& db, const std::string& path,
                             const SessionInfo& session, const RecorderOptions& options)
    : db_(db), options_(options) {
  try {
    SQLite::Statement insert(db_, R"sql(
      INSERT INTO sessions (name, mode, upstream, listen, started_ns, uuid, node,
        recorder_version, derived_from)
      VALUES (:name, :mode, :upstream, :listen, :started_ns, :uuid, :node, :recorder_version,
        :derived_from))sql");
    // Spelled one way: the unique index on it tells copies of a session apart by the text.
    const std::string uuid = session.uuid.empty() ? mintUuid() : canonicalUuid(session.uuid);
    const std::string node = session.node.empty() ? localNodeName() : session.node;
    bindText(insert, ":name", session.name);
    bindText(insert, ":mode", session.mode);
    bindText(insert, ":upstream", session.upstream);
    bindText(insert, ":listen", session.listen);
    bindInt(insert, ":started_ns", session.started_ns.value_or(options.clock()));
    bindText(insert, ":uuid", uuid);
    bindText(insert, ":node", node);
    bindOptText(insert, ":recorder_version", session.recorder_version);
    bindOptText(insert, ":derived_from", session.derived_from);
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    insert.exec();
    session_id_ = db_.getLastInsertRowid();
    // Claimed before the row is committed: whoever reads the session sees its recorder's lock.
    session_lock_ = std::make_unique<SessionLock>(path, session_id_);
    tx.commit();
    ended_ns_ = session.ended_ns;
    st_ = std::make_unique<Statements>(db_);
    segments_ = std::make_unique<SegmentPacker>(db_);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("[store.open] cannot prepare archive " + path + ": " + e.what());
  }
}

ArchiveWriter::~ArchiveWriter() = default;

BatchOutcome ArchiveWriter::writeBatch(std::vector<QueueItem>& items, bool give_way) noexcept {
  std::optional<WritesKeepTheCore> keep_the_core;
  if (!give_way) {
    keep_the_core.emplace();
  }
  BatchOutcome out;
  std::uint64_t exchange_items = 0;
  for (const QueueItem& item : items) {
    exchange_items += std::holds_alternative<protocol::Exchange>(item) ? 1U : 0U;
  }
  const std::int64_t seq_at_start = next_seq_;
  try {
    std::int64_t failed_exchanges = 0;
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    for (QueueItem& item : items) {
      if (auto* ex = std::get_if<protocol::Exchange>(&item)) {
        if (!writeExchange(std::move(*ex), out, failed_exchanges)) {
          ++out.errors;
        }
        if (give_way && options_.between_exchanges) {
          options_.between_exchanges();
        }
      } else if (auto* identity = std::get_if<AgentIdentity>(&item)) {
        writeIdentity(*identity);
      } else {
        writeReplayMiss(std::get<ReplayMissRow>(item));
      }
    }
    ReusedStatement& s = st_->session_counters;
    bindInt(s, ":exchanges", static_cast<std::int64_t>(out.written));
    bindInt(s, ":failed_exchanges", failed_exchanges);
    bindInt(s, ":id", session_id_);
    execOnce(s);
    tx.commit();
    out.committed = true;
  } catch (const std::exception& e) {
    // BEGIN, an insert that lost the transaction, the counters or COMMIT failed: nothing of
    // this batch is on disk.
    logLine("[store.write] batch of " + std::to_string(exchange_items) +
            " exchanges not committed: " + e.what());
    out = BatchOutcome{};
    out.errors = exchange_items;
    next_seq_ = seq_at_start;
    segments_->rolledBack();
  } catch (...) {
    logLine("[store.write] batch of " + std::to_string(exchange_items) +
            " exchanges not committed: unknown exception");
    out = BatchOutcome{};
    out.errors = exchange_items;
    next_seq_ = seq_at_start;
    segments_->rolledBack();
  }
  items.clear();
  return out;
}

bool ArchiveWriter::writeExchange(protocol::Exchange&& exchange, BatchOutcome& out,
                                  std::int64_t& failed_exchanges) {
  const std::string what = exchange.method + " " + exchange.target;
  try {
    RedactedExchange r = redactExchange(std::move(exchange));
    const protocol::Exchange& ex = r.exchange;
    const std::string request_headers = headersToJson(ex.request_headers);
    const std::string response_headers = headersToJson(ex.response_headers);
    const std::optional<std::string> arrivals = arrivalsToJson(ex.response_arrivals);
    const std::optional<std::string> error = nonEmpty(ex.error);
    const std::optional<std::string> fault = nonEmpty(ex.fault);
    const std::optional<std::string> card_rewrite = nonEmpty(ex.card_rewrite);
    const std::string outcome = protocol::outcomeName(ex.outcome);
    std::optional<SegmentedBodies> segmented;
    std::optional<std::string> request_frame;
    std::optional<std::string> response_frame;
    if (options_.compress_bodies) {
      // MAGMA bodies repeat from step to step: each route's are one stream of segments.
      if (r.protocol == "magma") {
        segmented = segments_->pack(ex.request_body, ex.response_body, r.route);
      }
      if (segmented) {
        request_frame = std::move(segmented->request_blocks);
        response_frame = std::move(segmented->response_blocks);
      } else {
        request_frame = plain_.pack(ex.request_body);
        response_frame = plain_.pack(ex.response_body);
      }
    }
    const std::optional<std::string>& frame_codec = segmented ? kSegment : kZstd;
    // A copy keeps its recorded numbers, gaps included, in the order it hands them over.
    const std::int64_t seq = ex.recorded_seq.value_or(next_seq_);
    if (seq < next_seq_) {
      throw std::runtime_error("its seq " + std::to_string(seq) + " comes after seq " +
                               std::to_string(next_seq_ - 1));
    }
    ReusedStatement& e = st_->exchange;
    bindInt(e, ":session_id", session_id_);
    bindInt(e, ":seq", seq);
    bindText(e, ":client_address", ex.client_address);
    bindText(e, ":method", ex.method);
    bindText(e, ":target", ex.target);
    bindInt(e, ":http_version", static_cast<std::int64_t>(ex.http_version));
    bindInt(e, ":status", ex.status);
    bindText(e, ":request_headers", request_headers);
    bindBlob(e, ":request_body", request_frame ? *request_frame : ex.request_body);
    bindInt(e, ":request_body_redacted", r.request_body_redacted ? 1 : 0);
    bindText(e, ":response_headers", response_headers);
    bindBlob(e, ":response_body", response_frame ? *response_frame : ex.response_body);
    bindInt(e, ":response_from_upstream", ex.response_from_upstream ? 1 : 0);
    bindInt(e, ":started_ns", ex.started_ns);
    bindOptInt(e, ":request_ended_ns", nonZero(ex.request_ended_ns));
    bindOptInt(e, ":upstream_sent_ns", nonZero(ex.upstream_sent_ns));
    bindOptInt(e, ":upstream_first_byte_ns", nonZero(ex.upstream_first_byte_ns));
    bindOptInt(e, ":upstream_last_byte_ns", nonZero(ex.upstream_last_byte_ns));
    bindOptInt(e, ":ended_ns", nonZero(ex.ended_ns));
    bindText(e, ":outcome", outcome);
    bindOptText(e, ":error", error);
    bindOptText(e, ":fault", fault);
    bindOptText(e, ":card_rewrite", card_rewrite);
    bindText(e, ":protocol", r.protocol);
    bindText(e, ":route", r.route);
    bindOptText(e, ":findings", r.findings);
    bindOptText(e, ":request_body_codec", request_frame ? frame_codec : kVerbatim);
    bindOptText(e, ":response_body_codec", response_frame ? frame_codec : kVerbatim);
    bindInt(e, ":request_body_size", static_cast<std::int64_t>(ex.request_body.size()));
    bindInt(e, ":response_body_size", static_cast<std::int64_t>(ex.response_body.size()));
    bindOptText(e, ":response_arrivals", arrivals);
    // Plain HTTP has nothing to index: it is complete as captured.
    const bool complete = derivesNothing(r);
    bindInt(e, ":indexed", complete ? 1 : 0);
    bindInt(e, ":decoder_version", complete ? kDecoderVersion : 0);
    bindOptInt(e, ":body_segment_id",
               segmented ? std::optional<std::int64_t>(segmented->segment_id) : std::nullopt);
    execOnce(e);
    segments_->confirmed();
    out.last_exchange_id = db_.getLastInsertRowid();
    ++out.written;
    out.complete += complete ? 1 : 0;
    next_seq_ = seq + 1;
    failed_exchanges += failedExchange(ex) ? 1 : 0;
    if (!complete) {
      out.to_index.push_back(
          PendingExchange{out.last_exchange_id, session_id_, std::move(r), std::nullopt});
    }
    return true;
  } catch (const std::exception& err) {
    logLine("[store.write] exchange " + what + " (seq " + std::to_string(next_seq_) +
            ") not written: " + err.what());
    segments_->abandoned();
    throwIfTransactionLost(db_);
    return false;
  }
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
  ReusedStatement& s = st_->identity;
  bindOptText(s, ":agent_health", health);
  bindOptText(s, ":agent_info", info);
  bindOptText(s, ":agent_id", agent_id);
  bindOptText(s, ":agent_version", agent_version);
  bindInt(s, ":id", session_id_);
  try {
    execOnce(s);
  } catch (const std::exception& e) {
    logLine(std::string("[store.write] agent identity not written: ") + e.what());
    throwIfTransactionLost(db_);
  }
}

void ArchiveWriter::writeReplayMiss(const ReplayMissRow& miss) {
  ReusedStatement& s = st_->replay_miss;
  bindInt(s, ":session_id", session_id_);
  bindInt(s, ":at_ns", miss.at_ns);
  bindText(s, ":route", miss.route);
  bindText(s, ":request_id", miss.request_id);
  bindInt(s, ":position", miss.position);
  bindOptInt(s, ":source_id", miss.source_id);
  bindInt(s, ":replay_key", toDb(miss.replay_key));
  bindText(s, ":input", miss.input);
  bindOptInt(s, ":closest_step_id", miss.closest_step_id);
  bindText(s, ":differences", miss.differences);
  bindText(s, ":policy", miss.policy);
  try {
    execOnce(s);
  } catch (const std::exception& e) {
    logLine("[store.write] replay miss (" + miss.route + ", request " + miss.request_id +
            ") not written: " + e.what());
    throwIfTransactionLost(db_);
  }
}

void ArchiveWriter::endSession() noexcept {
  try {
    SQLite::Statement s(db_, "UPDATE sessions SET ended_ns = :ended_ns WHERE id = :id");
    bindInt(s, ":ended_ns", ended_ns_.value_or(options_.clock()));
    bindInt(s, ":id", session_id_);
    s.exec();
  } catch (const std::exception& e) {
    logLine(std::string("[store.write] session end not written: ") + e.what());
  }
}

}  // namespace agentvcr::store::detail
