#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/store/background_thread.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::store {

/// How much a commit waits for the disk. `Normal` (the default) is WAL with synchronous=NORMAL:
/// a power loss or OS crash can lose at most the last batch window, the file never corrupts.
/// `Full` adds synchronous=FULL: an exchange whose batch committed survives a power loss too.
enum class Durability { Normal, Full };

struct RecorderOptions {
  /// Exchanges waiting for the writer. When the queue is full, trySubmit() refuses and the
  /// caller waits (back-pressure); nothing is dropped silently.
  std::size_t queue_capacity = 8192;
  /// The queue is also full once the bodies it holds reach this many bytes (one exchange is
  /// always taken into an empty queue, however large): with 20 KB MAGMA bodies the count alone
  /// would let it hold 300 MiB.
  std::size_t queue_byte_limit = 64u << 20;
  /// Upper bound of exchanges written in one transaction.
  std::size_t max_batch = 1024;
  /// How long the writer lets a batch gather before committing it.
  std::chrono::milliseconds batch_window{20};
  /// A live capture: exchanges are numbered in the order their requests began, not the order
  /// they were answered. An exchange waits in the queue while a request that began before it
  /// is still in flight (requestBegan()), or began less than 10 ms ago, for at most
  /// `live_order_hold` after that request began. Threading follows the numbering, and a step
  /// must meet every answer it could have seen before the steps that began after it
  /// (docs/schema.md, "Capture first, index behind"). Order is the recorded clock's (`clock`),
  /// these waits the steady clock's. Off, exchanges are numbered as handed over, for callers
  /// that hand them over in an order of their own.
  bool live_order = false;
  /// How long a live capture holds an exchange back for a request that began before it and is
  /// still in flight (a slow agent call, a long stream): past it, that request no longer holds
  /// anything back. Held exchanges stay in the queue and count against its limits; a full
  /// batch, a queue that refused an exchange for want of room, flush(), close() or a waiting
  /// `on_committed` takes them at once.
  std::chrono::milliseconds live_order_hold{2000};
  /// The recorded clock, nanoseconds since the Unix epoch: the session's start and end, and
  /// (through Recorder::clock()) the relay's timestamps and so the live order. A wall clock may
  /// step (NTP, an operator): nothing the recorder waits for is timed by it, only by the steady
  /// clock. Tests step it; `agentvcr record` takes steps from AGENTVCR_TEST_CLOCK_STEPS.
  std::function<std::int64_t()> clock = protocol::nowNs;
  Durability durability = Durability::Normal;
  /// How long any connection waits on a locked database before failing.
  std::chrono::milliseconds busy_timeout{5000};
  /// Bodies larger than this are stored but not decoded (a "too_large" finding instead).
  std::size_t max_decode_bytes = 64u << 20;
  /// Candidate memories the writer remembers for conversation threading (oldest forgotten
  /// first; a step whose parent was forgotten starts a new conversation).
  std::size_t threading_index_limit = 1u << 18;
  /// Keep bodies (schema v7) and memories (v9) of 256 bytes or more as zstd frames when that
  /// saves an eighth; false stores every body and memory verbatim, readable with plain SQL.
  bool compress_bodies = true;
  /// Exchanges the index writes per transaction, at most; a chunk also ends once its bodies
  /// reach 32 MiB. Each commit rewrites every page its chunk touched (the exchanges' rows, the
  /// search segments, the session's counters), so larger chunks cost less per exchange: a
  /// backlog of 2 KB MAGMA exchanges is indexed in 37 µs each with 512, 42 µs with 64
  /// (bench/results/profile-*). The capture never waits for a whole chunk: the index commits
  /// early when the capture asks for the connection.
  std::size_t index_chunk = 512;
  /// The capture hands what it committed to the index in memory, redacted and uncompressed, so
  /// that the index need not read it back from the archive; at most this many exchanges and
  /// bytes of bodies wait there (0: every exchange is read back). Past either bound, exchanges
  /// are read back as an earlier run's leftovers are (docs/schema.md, "Capture first, index
  /// behind"). A bound of its own beside the queue's: with the index held back, both fill.
  std::size_t index_memory_capacity = 8192;
  std::size_t index_memory_byte_limit = 64u << 20;
  /// Share of one core the index thread takes while exchanges keep arriving (1: as much as it
  /// needs). Below 1, a proxy under full load spends its CPU relaying and capturing, and the
  /// index catches up when the load drops; flush() and close() still wait for it.
  double index_share_under_load = 1.0;
  /// Called by the capture thread after each exchange it writes, and by the decoding and index
  /// threads after each exchange they decode or index and each search row they write: where
  /// background work lets a relaying thread have the core back (yieldToWaitingThreads(),
  /// background_thread.hpp). Must be cheap and must not throw.
  std::function<void()> between_exchanges = yieldToWaitingThreads;
  /// Called on the index thread with each A2A call it decoded, before the call is written: how
  /// `--metrics-listen` counts calls by method and error code without decoding on the relay's
  /// path. Must be cheap and must not throw.
  std::function<void(const protocol::a2a::Call&)> on_a2a_call;
};

/// What one proxy run records about itself; becomes one row of `sessions`.
struct SessionInfo {
  std::string name;      ///< user-given or generated ("record-2026-11-30T05:04:07Z")
  std::string mode;      ///< "record", "replay", "replay-forward", "eval", "demo"
  std::string upstream;  ///< "http://127.0.0.1:8000"
  std::string listen;    ///< "127.0.0.1:8080"
  /// Import and merge copy a recorded session: its original start and end times replace the
  /// clock's (empty: now at open, and at close()).
  std::optional<std::int64_t> started_ns = std::nullopt;
  std::optional<std::int64_t> ended_ns = std::nullopt;
  /// Who recorded it (identity.hpp). A new session leaves `uuid` empty (one is minted) and
  /// `node` empty (localNodeName()); import and merge pass the copied session's, so that its
  /// identity survives the copy.
  std::string uuid;
  std::string node;
  std::optional<std::string> recorder_version = std::string(agentvcrVersion());
  std::optional<std::string> derived_from = std::nullopt;  ///< see SessionRow::derived_from
};

struct RecorderStats {
  std::uint64_t submitted = 0;  ///< exchanges accepted into the queue
  std::uint64_t written = 0;    ///< exchanges committed to disk (captured)
  /// Exchanges decoded into steps, calls and search rows (plain HTTP, which has none, counts
  /// once captured).
  std::uint64_t indexed = 0;
  /// trySubmit() and tryRecordReplayMiss() calls refused because the queue was full
  std::uint64_t refused_full = 0;
  /// trySubmit() and tryRecordReplayMiss() calls refused because close() had begun
  std::uint64_t refused_closed = 0;
  std::uint64_t write_errors = 0;  ///< exchanges whose insert failed (logged, counted)
  std::uint64_t batches = 0;       ///< committed transactions
  std::uint64_t queued = 0;        ///< waiting in the queue now (not yet taken by the writer)
  /// Requests marked in flight now (requestBegan()): begun, their exchanges not yet submitted.
  std::uint64_t in_flight = 0;
  /// How long the oldest item in the queue has waited for the capture; zero when it is empty.
  std::chrono::nanoseconds capture_lag{0};
  /// Exchanges committed and not yet indexed, and how long ago the oldest of them was
  /// committed; both zero when the index has caught up.
  std::uint64_t unindexed = 0;
  std::chrono::nanoseconds index_lag{0};
  /// Exchanges the index read back from the archive: an earlier run's leftovers, and those the
  /// capture could not hand over in memory (index_memory_capacity, index_memory_byte_limit).
  std::uint64_t index_read_back = 0;
};

/// Records one session into an archive. Owns a capture thread and an index thread sharing one
/// SQLite connection; the network threads only hand exchanges over by move. The capture thread
/// redacts each exchange and commits it as relayed; the index thread then decodes it into MAGMA
/// steps, A2A calls, conversations and search rows (docs/schema.md, "Capture first, index
/// behind"). A reader may see an exchange before its steps; flush() and close() wait for both.
///
/// Thread-safety: trySubmit(), tryRecordReplayMiss(), recordAgentIdentity(), stats() and flush()
/// may be called from any thread concurrently.
/// close() must be called once, from one thread; the destructor calls it if needed.
class Recorder {
  class Impl;

 public:
  /// Opens (creating or migrating) the archive at `path` and inserts the session row.
  /// Throws std::runtime_error when the file cannot be opened or its schema is newer than ours.
  Recorder(const std::string& path, const SessionInfo& session, RecorderOptions options = {});
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  std::int64_t sessionId() const;

  /// Queues `exchange` for writing and moves from it. Returns false, leaving `exchange` intact,
  /// when the queue is full or the recorder is closed; the caller decides how to wait.
  bool trySubmit(protocol::Exchange& exchange);

  /// trySubmit() that also calls `on_committed` once the exchange's batch has committed (or
  /// its write failed and was logged), from the writer thread, or from close() if the writer
  /// stopped first. The writer does not wait out the batch window while such a call is
  /// pending: what commits is what arrived meanwhile (group commit). This is what
  /// `--durability full` holds a response back for. `on_committed` must not block.
  bool trySubmit(protocol::Exchange& exchange, std::function<void()> on_committed);

  /// Records what the upstream answered on /health and /v1/info at startup (raw bodies,
  /// empty when it did not answer). Queued like an exchange; never blocks. It is always
  /// accepted, even over queue_capacity (it is one small item); ignored after close().
  void recordAgentIdentity(std::string health_body, std::string info_body);

  /// Queues one replay miss (`replay_misses`; the archive sets its id and links it to this
  /// session, whatever `miss.id` and `miss.session_id` hold). Returns false when the queue is
  /// full or the recorder is closed, counted as trySubmit() counts it; never blocks. A miss is
  /// not an exchange: it counts in neither `submitted`/`written` nor the session's counters. If
  /// its insert fails, one "[store.write]" line is logged and the rest of the batch commits.
  bool tryRecordReplayMiss(ReplayMissRow miss);

  /// The recorded clock (RecorderOptions::clock): what the relay stamps exchanges with.
  const std::function<std::int64_t()>& clock() const;

  /// Marks a request as in flight, begun at `started_ns` (clock()), until the mark is
  /// destroyed: with RecorderOptions::live_order, exchanges whose requests began later wait for
  /// it. Destroy it only after its exchange was submitted (or given up), never before.
  class InFlight {
   public:
    InFlight() = default;
    InFlight(InFlight&& other) noexcept;
    InFlight& operator=(InFlight&& other) noexcept;
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
    ~InFlight();

   private:
    friend class Recorder;

    InFlight(Impl* impl, std::int64_t started_ns, std::chrono::steady_clock::time_point began)
        : impl_(impl), started_ns_(started_ns), began_(began) {}

    void release() noexcept;

    Impl* impl_ = nullptr;
    std::int64_t started_ns_ = 0;                  ///< the recorded clock's: the order
    std::chrono::steady_clock::time_point began_;  ///< the steady clock's: the deadlines
  };

  /// Call as the request's start time is taken, from any thread; the mark must not outlive
  /// the recorder.
  InFlight requestBegan(std::int64_t started_ns);

  /// Blocks until everything submitted before the call is committed and indexed.
  void flush();

  /// Drains the queue and the index, marks the session ended (sessions.ended_ns) and joins the
  /// threads.
  /// Idempotent. After close(), trySubmit() refuses and flush() returns at once.
  void close();

  RecorderStats stats() const;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::store
