#pragma once

// The capture side of an archive: every exchange committed as it was relayed (redacted, bodies
// compressed) with indexed = 0, one IMMEDIATE transaction per batch. Decoding into steps, calls
// and search rows happens behind it, in archive_indexer.hpp, on the same connection.

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/store/recorder.hpp"
#include "archive_indexer.hpp"
#include "body_compression.hpp"
#include "body_segments.hpp"
#include "session_lock.hpp"

namespace agentvcr::store::detail {

struct AgentIdentity {
  std::string health_body;
  std::string info_body;
};

/// What producers hand the writer: exchanges, the agent identity, replay misses.
using QueueItem = std::variant<protocol::Exchange, AgentIdentity, ReplayMissRow>;

struct BatchOutcome {
  std::uint64_t written = 0;   ///< exchanges committed
  std::uint64_t complete = 0;  ///< of which complete as captured (nothing to index)
  std::uint64_t errors = 0;    ///< exchanges not written (logged)
  bool committed = false;
  std::int64_t last_exchange_id = 0;  ///< of the last exchange committed (0: none)
  /// The exchanges committed with indexed = 0, in id order, as the index would read them back:
  /// redacted, bodies as relayed (moved, never copied: index_handoff.hpp).
  std::vector<PendingExchange> to_index;
};

/// SQLite rolled the whole transaction back (I/O error, disk full): nothing more can be written
/// in it.
class TransactionLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws TransactionLost when the connection is back in autocommit, i.e. SQLite rolled the
/// enclosing transaction back after a failed statement.
void throwIfTransactionLost(SQLite::Database& db);

/// The recorder's connection: creates or migrates the archive and sets the writer's pragmas.
/// Throws std::runtime_error with a stable id ("[store.open]", "[store.schema.*]").
SQLite::Database openWriterConnection(const std::string& path, const RecorderOptions& options);

/// Not thread-safe: whoever calls it holds the connection alone.
class ArchiveWriter {
 public:
  /// Inserts the session row and claims it (SessionLock) until destroyed. Throws
  /// std::runtime_error "[store.open]", or "[store.lock]" when the claim cannot be taken.
  ArchiveWriter(SQLite::Database& db, const std::string& path, const SessionInfo& session,
                const RecorderOptions& options);
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  std::int64_t sessionId() const { return session_id_; }

  /// Writes `items` (moved from) in one transaction. An exchange whose insert fails is logged
  /// and counted; the others commit. An identity or replay miss that fails is logged only.
  /// With `give_way`, the core is given away after each exchange and every few writes
  /// (RecorderOptions::between_exchanges, yielding_vfs.hpp); without, the batch keeps it.
  /// Never throws.
  BatchOutcome writeBatch(std::vector<QueueItem>& items, bool give_way = true) noexcept;

  /// Sets sessions.ended_ns. Never throws (logs).
  void endSession() noexcept;

 private:
  struct Statements;

  /// Inserts one redacted exchange row; false (logged) when it failed alone.
  bool writeExchange(protocol::Exchange&& exchange, BatchOutcome& out,
                     std::int64_t& failed_exchanges);
  void writeIdentity(const AgentIdentity& identity);
  void writeReplayMiss(const ReplayMissRow& miss);

  SQLite::Database& db_;
  RecorderOptions options_;
  std::int64_t session_id_ = 0;
  std::optional<std::int64_t> ended_ns_;       // SessionInfo::ended_ns: a copied session's end
  std::unique_ptr<SessionLock> session_lock_;  // the session is being recorded
  std::unique_ptr<Statements> st_;
  std::unique_ptr<SegmentPacker> segments_;
  BodyCompressor plain_;
  std::int64_t next_seq_ = 0;
};

/// One line on stderr, prefixed by a stable id such as "[store.write]".
void logLine(const std::string& line) noexcept;

}  // namespace agentvcr::store::detail
