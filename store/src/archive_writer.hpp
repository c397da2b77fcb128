#pragma once

// The writer side of an archive: one connection, prepared statements reused across batches,
// one IMMEDIATE transaction per batch, decoding and threading in the writer thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/store/recorder.hpp"
#include "body_compression.hpp"
#include "threading.hpp"

namespace agentvcr::store::detail {

struct DecodedExchange;

struct AgentIdentity {
  std::string health_body;
  std::string info_body;
};

/// What producers hand the writer: exchanges, the agent identity, replay misses.
using QueueItem = std::variant<protocol::Exchange, AgentIdentity, ReplayMissRow>;

struct BatchOutcome {
  std::uint64_t written = 0;  ///< exchanges committed
  std::uint64_t errors = 0;   ///< exchanges not written (logged)
  bool committed = false;
};

/// Blob hashes known to be on disk; cleared when it grows past this.
inline constexpr std::size_t kBlobCacheLimit = 1u << 18;

/// Not thread-safe: lives in the writer thread only.
class ArchiveWriter {
 public:
  /// Opens (creating or migrating) the archive and inserts the session row. Throws
  /// std::runtime_error with a stable id ("[store.open]", "[store.schema.*]").
  ArchiveWriter(const std::string& path, const SessionInfo& session,
                const RecorderOptions& options);
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  std::int64_t sessionId() const { return session_id_; }

  /// Writes `items` (moved from) in one transaction. An exchange whose insert fails is rolled
  /// back alone (a savepoint), logged and counted; the others commit. An identity or replay
  /// miss that fails is logged only (its single statement rolls back alone). Never throws.
  BatchOutcome writeBatch(std::vector<QueueItem>& items) noexcept;

  /// Sets sessions.ended_ns. Never throws (logs).
  void endSession() noexcept;

 private:
  struct Statements;
  struct A2aStatements;

  /// What a batch adds to the session's counters.
  struct SessionDelta {
    std::int64_t exchanges = 0;
    std::int64_t steps = 0;
    std::int64_t candidates = 0;
    std::int64_t internal_steps = 0;
    std::int64_t conversations = 0;
    std::int64_t error_candidates = 0;
    std::int64_t failed_exchanges = 0;
    std::int64_t invalid_exchanges = 0;
  };

  /// Text of one row for the full-text indexes (schema version 4): a step's instruction, a
  /// candidate's say and error message, an internal step's full_prompt and output_raw.
  struct SearchRow {
    enum class Table { Steps, Candidates, InternalSteps };
    Table table = Table::Steps;
    std::int64_t rowid = 0;
    std::optional<std::string> first;   ///< instruction_content, say, full_prompt
    std::optional<std::string> second;  ///< error_message, output_raw
  };

  bool writeExchange(DecodedExchange& d, SessionDelta& delta);
  /// Writes the exchange's A2A calls, threaded into conversations by contextId (else by the
  /// task id an earlier call of the session tied to one), and its stream events. Runs inside
  /// the exchange's savepoint. Defined in archive_writer_a2a.cpp.
  void writeA2aAndStream(const DecodedExchange& d, std::int64_t exchange_id, SessionDelta& delta);
  /// Indexes the rows of the batch's written exchanges, at the end of the batch: FTS5 flushes
  /// its pending terms at every savepoint, so indexing inside each exchange's savepoint would
  /// write one small segment per exchange. A failure is logged and leaves the rows unindexed;
  /// the batch still commits.
  void writeSearchRows();
  void writeIdentity(const AgentIdentity& identity);
  void writeReplayMiss(const ReplayMissRow& miss);

  std::string path_;
  RecorderOptions options_;
  SQLite::Database db_;
  std::int64_t session_id_ = 0;
  std::optional<std::int64_t> ended_ns_;  // SessionInfo::ended_ns: a copied session's end
  std::unique_ptr<Statements> st_;
  std::unique_ptr<A2aStatements> a2a_st_;
  ThreadingIndex index_;
  std::unordered_set<std::uint64_t> blob_cache_;
  BodyCompressor compressor_;
  std::vector<SearchRow> search_rows_;  ///< of the current batch
  std::int64_t next_seq_ = 0;
};

/// One line on stderr, prefixed by a stable id such as "[store.write]".
void logLine(const std::string& line) noexcept;

}  // namespace agentvcr::store::detail
