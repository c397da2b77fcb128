#pragma once

// The index side of an archive: decodes captured exchanges (indexed = 0) into steps, candidates,
// internal steps, conversations, A2A calls, stream events, blobs and search rows, in id order,
// and marks them indexed. Runs behind the capture (archive_writer.hpp) on the same connection;
// the caller holds the connection while loading and writing, and decodes without it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "agentvcr/store/recorder.hpp"
#include "body_compression.hpp"
#include "decode.hpp"
#include "prompt_deltas.hpp"
#include "stored_bodies.hpp"
#include "threading.hpp"

namespace agentvcr::store::detail {

/// A captured exchange waiting for the index: handed over by the capture in memory
/// (index_handoff.hpp) or read back from the archive.
struct PendingExchange {
  std::int64_t id = 0;
  std::int64_t session_id = 0;
  RedactedExchange redacted;
  /// Why the row could not be read back (a damaged body frame); it is then marked indexed with
  /// this as its only finding.
  std::optional<std::string> load_error;
};

/// A pending exchange after decoding; `decoded` is empty when it could not be loaded.
struct DecodedRow {
  std::int64_t id = 0;
  std::int64_t session_id = 0;
  std::optional<DecodedExchange> decoded;
  std::optional<std::string> load_error;
};

struct IndexOutcome {
  std::uint64_t indexed = 0;  ///< exchanges marked indexed (some with an index_error finding)
  bool committed = false;
};

/// Blob hashes known to be on disk; cleared when it grows past this.
inline constexpr std::size_t kBlobCacheLimit = 1u << 18;

/// The body bytes that end an index chunk before RecorderOptions::index_chunk exchanges: a
/// chunk of large bodies would otherwise hold hundreds of MiB.
inline constexpr std::size_t kIndexChunkBytes = 32u << 20;

/// Decodes what ArchiveIndexer::loadPending() returned. Pure CPU, touching no indexer: any
/// thread may run it, without the connection.
std::vector<DecodedRow> decodeRows(std::vector<PendingExchange>&& rows,
                                   const DecodeOptions& options);

/// Not thread-safe: whoever calls loadPending() or writeIndex() holds the connection alone.
class ArchiveIndexer {
 public:
  /// Indexes the exchanges of `own_session_id` (0: none), and those of other sessions that were
  /// captured before it started: what a killed recorder left. Two recorders may share an
  /// archive; each claims a row as it marks it indexed, so none is indexed twice (writeIndex()).
  ArchiveIndexer(SQLite::Database& db, const RecorderOptions& options, std::int64_t own_session_id);
  ~ArchiveIndexer();
  ArchiveIndexer(const ArchiveIndexer&) = delete;
  ArchiveIndexer& operator=(const ArchiveIndexer&) = delete;

  /// Up to `limit` unindexed exchanges (see the constructor) after the last one loaded and up to
  /// `through_id`, oldest first, ending with the one whose bodies reach `byte_limit` (at least
  /// one row, however large). Each row is loaded once per indexer: one whose index write fails
  /// stays unindexed on disk until the next indexer (the next recorder, or `agentvcr
  /// migrate`). Throws on SQLite errors.
  std::vector<PendingExchange> loadPending(
      std::size_t limit, std::size_t byte_limit,
      std::int64_t through_id = std::numeric_limits<std::int64_t>::max());

  /// The caller has the rows up to `through_id` from elsewhere (the capture handed them over in
  /// memory): loadPending() goes on after them.
  void loadedElsewhere(std::int64_t through_id);

  /// Rows up to this id may be other sessions' leftovers (see the constructor).
  std::int64_t othersThrough() const { return others_through_; }

  /// Compresses the memories of `rows` (decodeRows()) that are not on disk yet (schema v9),
  /// unless the options keep bodies verbatim. Needs no connection, so the caller runs it
  /// without holding one; it reads what writeIndex() learnt, so not beside it.
  void packNewMemories(std::vector<DecodedRow>& rows);

  /// Writes the index rows of `rows` in one transaction, marks them indexed and erases them
  /// from `rows`. A row another indexer marked first is left as that one wrote it. Once `yield` is
  /// set it commits early, after at least one row, leaving the rest in `rows`, and gives its
  /// core to no one until it has committed (giveWayUnlessAwaited, yielding_vfs.hpp): the
  /// capture is waiting for the connection. An exchange whose rows fail is rolled back alone (a
  /// savepoint), logged, and marked indexed with an "index_error" finding. If the whole transaction
  /// fails, every row is erased and stays unindexed on disk. Never throws.
  IndexOutcome writeIndex(std::vector<DecodedRow>& rows, const std::atomic<bool>& yield) noexcept;

 private:
  struct Statements;
  struct A2aStatements;

  /// What a batch adds to one session's counters.
  struct SessionDelta {
    std::int64_t steps = 0;
    std::int64_t candidates = 0;
    std::int64_t internal_steps = 0;
    std::int64_t conversations = 0;
    std::int64_t error_candidates = 0;
    std::int64_t invalid_exchanges = 0;
  };

  /// Text of one row for the full-text indexes (schema versions 4 and 10): a step's
  /// instruction, a candidate's say and error message, an internal step's full_prompt and
  /// output_raw, an A2A call's request, response and error texts.
  struct SearchRow {
    enum class Table { Steps, Candidates, InternalSteps, A2aCalls };
    Table table = Table::Steps;
    std::int64_t rowid = 0;
    std::optional<std::string> first;   ///< instruction_content, say, prompt_new, request_text
    std::optional<std::string> second;  ///< error_message, output_raw, response_text
    std::optional<std::string> third;   ///< error_message of an A2A call
  };

  struct WrittenExchange;

  /// Indexes one row inside writeIndex()'s transaction: its exchange's rows in a savepoint of
  /// their own, or, when it could not be decoded or its rows fail, only its findings. True when
  /// this indexer marked it indexed.
  bool indexRow(DecodedRow& row, SessionDelta& delta);

  /// Writes one exchange's rows and marks it indexed, inside its savepoint; the in-memory state
  /// (threading, blob cache, search rows) learns from it only once every row is in. False when
  /// another recorder indexed it first: the caller rolls the savepoint back.
  bool indexExchange(DecodedExchange& d, std::int64_t exchange_id, std::int64_t session_id,
                     SessionDelta& delta);

  // indexExchange()'s steps, in order. The writes:

  /// The blobs (memories, tools, attributes, extra keys) not known to be on disk.
  void writeBlobs(const DecodedExchange& d, std::int64_t exchange_id);
  /// The steps, each in the conversation `threading` places it in (a new one if none).
  void writeSteps(const DecodedExchange& d, std::int64_t exchange_id, std::int64_t session_id,
                  ThreadingIndex& threading, WrittenExchange& written);
  /// A conversation row for a step that starts one; its id.
  std::int64_t insertConversation(std::int64_t session_id, std::int64_t first_ns);
  /// The candidates, each with its internal steps.
  void writeCandidates(const DecodedExchange& d, WrittenExchange& written);
  /// Each with the part of its prompt that is new against the internal step at the same
  /// position of `parent_candidate_id`, without the step's `instruction` (prompt_deltas.hpp).
  void writeInternalSteps(const DecodedCandidate& cand, std::int64_t candidate_id,
                          std::optional<std::int64_t> parent_candidate_id,
                          std::string_view instruction, WrittenExchange& written);
  /// Adds what the exchange's steps and candidates changed to their conversations' rows.
  void updateConversations(const WrittenExchange& written, std::int64_t end_ns);

  // Then, once every row is in, what the in-memory state learns:

  /// Moves the text of the exchange's rows (and its A2A calls') to the batch's search rows.
  void queueSearchRows(DecodedExchange& d, WrittenExchange& written,
                       std::vector<SearchRow>& a2a_search_rows);
  void rememberBlobs(const DecodedExchange& d);
  /// The conversation the threading index places a step in (see learnThreads()).
  static ThreadDecision placeStep(ThreadingIndex& threading, const protocol::Exchange& ex,
                                  const DecodedStep& step);
  /// Teaches the threading index the exchange's new roots and candidates.
  static void learnThreads(ThreadingIndex& threading, const WrittenExchange& written);
  static void addToSessionDelta(const DecodedExchange& d, const WrittenExchange& written,
                                SessionDelta& delta);

  /// Adds a batch's `delta` to the session's counters.
  void addSessionCounters(std::int64_t session_id, const SessionDelta& delta);
  /// Writes the exchange's A2A calls, threaded into conversations by contextId (else by the
  /// task id an earlier call of the session tied to one), and its stream events. Runs inside
  /// the exchange's savepoint. Adds the calls' text to `search_rows`, for the caller to keep
  /// once the exchange is in. Defined in archive_indexer_a2a.cpp.
  void writeA2aAndStream(const DecodedExchange& d, std::int64_t exchange_id,
                         std::int64_t session_id, SessionDelta& delta,
                         std::vector<SearchRow>& search_rows);
  /// Marks a row indexed with what decoding said about it, unless another recorder did first:
  /// false then. This is the row's claim (see the definition).
  bool markIndexed(std::int64_t exchange_id, const DecodedExchange* d,
                   const std::optional<std::string>& findings);
  /// Indexes the text of the batch's rows, at the end of the batch: FTS5 flushes its pending
  /// terms at every savepoint, so indexing inside each exchange's savepoint would write one
  /// small segment per exchange. A failure is logged and leaves the rows unsearchable; the
  /// batch still commits.
  void writeSearchRows(const std::atomic<bool>& capture_waiting);
  /// RecorderOptions::between_exchanges, unless the capture waits for the connection this
  /// transaction holds: given away then, the core would keep the capture waiting longer (a
  /// nicer thread gets it back late), and the relaying threads behind it.
  void giveWayUnlessAwaited(const std::atomic<bool>& capture_waiting) const;
  /// Conversation threading is per session; a recorder normally indexes only its own.
  ThreadingIndex& threadingOf(std::int64_t session_id);
  void forgetAfterFailure();
  /// Compresses `d`'s memories that are not on disk yet.
  void packNewMemories(DecodedExchange& d);

  SQLite::Database& db_;
  RecorderOptions options_;
  std::unique_ptr<Statements> st_;
  StoredBodies bodies_;
  std::unique_ptr<A2aStatements> a2a_st_;
  std::map<std::int64_t, ThreadingIndex> threading_;
  std::unordered_set<std::uint64_t> blob_cache_;
  PromptMemory prompts_;  ///< the prompts of the candidates indexed last
  BodyCompressor memory_compressor_;
  std::vector<SearchRow> search_rows_;  ///< of the current batch
  std::int64_t own_session_id_ = 0;
  std::int64_t others_through_ = 0;  ///< other sessions' rows are indexed up to this id
  std::int64_t loaded_through_ = 0;  ///< highest exchange id loaded so far
};

}  // namespace agentvcr::store::detail
