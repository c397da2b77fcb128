#include "agentvcr/store/recorder.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/store/background_thread.hpp"
#include "archive_indexer.hpp"
#include "archive_writer.hpp"
#include "decode_ahead.hpp"
#include "index_handoff.hpp"
#include "wal_checkpointer.hpp"

namespace agentvcr::store {

using detail::QueueItem;
using SteadyClock = std::chrono::steady_clock;

namespace {

/// How long after its request began an exchange may be numbered in a live capture, at the
/// soonest: a request's start time is read just before it is marked in flight
/// (Recorder::requestBegan), and one that began meanwhile must not be overtaken.
constexpr std::chrono::milliseconds kSettle{10};

/// Puts the batch's exchanges in the order their requests began, each in a slot an exchange
/// held (RecorderOptions::live_order).
void orderByStart(std::vector<QueueItem>& items) {
  std::vector<std::size_t> slots;
  std::vector<protocol::Exchange> exchanges;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (auto* ex = std::get_if<protocol::Exchange>(&items[i])) {
      slots.push_back(i);
      exchanges.push_back(std::move(*ex));
    }
  }
  std::stable_sort(exchanges.begin(), exchanges.end(),
                   [](const protocol::Exchange& a, const protocol::Exchange& b) {
                     return a.started_ns < b.started_ns;
                   });
  for (std::size_t k = 0; k < slots.size(); ++k) {
    items[slots[k]] = std::move(exchanges[k]);
  }
}

/// What an item weighs against queue_byte_limit: an exchange its bodies; identities and replay
/// misses are small and always count as nothing (pushed and popped alike).
using detail::bodyBytes;

template <class Item>
std::size_t bodyBytes(const Item& /*small*/) {
  return 0;
}

std::size_t bodyBytes(const QueueItem& item) {
  const auto* exchange = std::get_if<protocol::Exchange>(&item);
  return exchange != nullptr ? bodyBytes(*exchange) : 0;
}

}  // namespace

/// Two threads share one connection, taking turns under `db_mutex_`. The capture thread takes
/// exchanges off a mutex-protected deque and commits them as relayed (redacted, compressed):
/// that commit is what `on_committed` and `--durability full` wait for. The index thread follows
/// it in id order, taking the captured exchanges from memory as the capture hands them over
/// (else reading them back), decoding them without the connection, and writing their steps,
/// calls and search rows (docs/schema.md, "Capture first, index behind").
class Recorder::Impl {
 public:
  Impl(const std::string& path, const SessionInfo& session, RecorderOptions options)
      : options_(std::move(options)) {
    options_.max_batch = std::max<std::size_t>(options_.max_batch, 1);
    options_.queue_capacity = std::max<std::size_t>(options_.queue_capacity, 1);
    if (!options_.clock) {
      options_.clock = protocol::nowNs;
    }
    db_ = std::make_unique<SQLite::Database>(detail::openWriterConnection(path, options_));
    checkpointer_ = std::make_unique<detail::WalCheckpointer>(path, *db_, options_.busy_timeout);
    writer_ = std::make_unique<detail::ArchiveWriter>(*db_, path, session, options_);
    session_id_ = writer_->sessionId();
    indexer_ = std::make_unique<detail::ArchiveIndexer>(*db_, options_, session_id_);
    handoff_ = std::make_unique<detail::IndexHandoff>(options_.index_memory_capacity,
                                                      options_.index_memory_byte_limit,
                                                      indexer_->othersThrough());
    capture_thread_ = std::thread([this] { runCapture(); });
    decode_options_.max_decode_bytes = options_.max_decode_bytes;
    decode_options_.between_exchanges = options_.between_exchanges;
    decode_ahead_ = std::make_unique<detail::DecodeAhead>(decode_options_);
    index_thread_ = std::thread([this] { runIndexer(); });
  }

  ~Impl() { close(); }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::int64_t sessionId() const { return session_id_; }

  bool liveOrder() const { return options_.live_order; }

  const std::function<std::int64_t()>& clock() const { return options_.clock; }

  /// Marks the request in flight and says when it began by the steady clock.
  SteadyClock::time_point requestBegan(std::int64_t started_ns) {
    const SteadyClock::time_point began = SteadyClock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.insert({started_ns, began});
    return began;
  }

  void requestEnded(std::int64_t started_ns, SteadyClock::time_point began) noexcept {
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = in_flight_.find({started_ns, began});
      if (it == in_flight_.end()) {
        return;
      }
      in_flight_.erase(it);
      in_flight_ended_ = true;
      wake = capture_holding_;
    }
    if (wake) {
      writer_cv_.notify_one();
    }
  }

  bool trySubmit(protocol::Exchange& exchange, std::function<void()> on_committed) {
    return tryEnqueue(exchange, true, std::move(on_committed));
  }

  bool tryRecordReplayMiss(ReplayMissRow& miss) { return tryEnqueue(miss, false, {}); }

  void recordAgentIdentity(std::string health_body, std::string info_body) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (closing_) {
        return;
      }
      pushLocked(detail::AgentIdentity{std::move(health_body), std::move(info_body)});
      ++accepted_;
    }
    writer_cv_.notify_one();
  }

  void flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t target = accepted_;
    if (done_ < target && !capture_exited_) {
      ++flush_waiters_;
      writer_cv_.notify_one();
      done_cv_.wait(lock, [&] { return done_ >= target || capture_exited_; });
      --flush_waiters_;
    }
    const std::int64_t captured = captured_through_;
    done_cv_.wait(lock, [&] { return indexed_through_ >= captured || index_exited_; });
  }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (closed_) {
        return;
      }
      closed_ = true;
      closing_ = true;
    }
    writer_cv_.notify_one();
    if (capture_thread_.joinable()) {
      capture_thread_.join();
    }
    if (index_thread_.joinable()) {
      index_thread_.join();
    }
    writer_->endSession();
    decode_ahead_.reset();
    handoff_.reset();
    indexer_.reset();
    // Lets the session's lock go: its end is committed, and `agentvcr reindex` may take it.
    writer_.reset();
    checkpointer_.reset();
    db_.reset();  // checkpoints the WAL when it is the last connection
  }

  RecorderStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    RecorderStats s;
    s.submitted = submitted_;
    s.written = written_;
    s.refused_full = refused_full_;
    s.refused_closed = refused_closed_;
    s.queued = queue_.size();
    s.in_flight = in_flight_.size();
    s.write_errors = write_errors_;
    s.batches = batches_;
    s.indexed = indexed_;
    const auto now = SteadyClock::now();
    if (!queue_.empty()) {
      s.capture_lag = now - queue_.front().queued_at;
    }
    s.index_read_back = index_read_back_;
    s.unindexed = unindexed_;
    if (!unindexed_batches_.empty()) {
      s.index_lag = now - unindexed_batches_.front().committed;
    }
    return s;
  }

 private:
  /// Appends to the queue, noting when, and when an exchange's request began. Holds mutex_.
  void pushLocked(QueueItem item) {
    const SteadyClock::time_point now = SteadyClock::now();
    SteadyClock::time_point began = now;
    if (const auto* exchange = std::get_if<protocol::Exchange>(&item)) {
      began = beganLocked(exchange->started_ns, now);
    }
    queue_.push_back({std::move(item), now, began});
  }

  /// When the request that began at `started_ns` (the recorded clock) was marked in flight, by
  /// the steady clock; `otherwise` without a mark (none was taken, or it is gone). Holds mutex_.
  SteadyClock::time_point beganLocked(std::int64_t started_ns,
                                      SteadyClock::time_point otherwise) const {
    const auto mark = in_flight_.lower_bound({started_ns, SteadyClock::time_point::min()});
    return mark != in_flight_.end() && mark->started_ns == started_ns ? mark->began : otherwise;
  }

  /// Moves `item` into the queue unless it is full or closing (then counts the refusal and
  /// leaves `item` intact). `is_exchange` counts it in `submitted`.
  template <class Item>
  bool tryEnqueue(Item& item, bool is_exchange, std::function<void()> on_committed) {
    bool accepted = false;
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (closing_) {
        ++refused_closed_;
        return false;
      }
      const std::size_t bytes = bodyBytes(item);
      if (queue_.size() >= options_.queue_capacity ||
          (!queue_.empty() && queued_bytes_ + bytes > options_.queue_byte_limit)) {
        ++refused_full_;
        // The caller now waits for room (back-pressure), and so will every caller after it: the
        // capture stops gathering and holding exchanges back, and takes the queue as it stands.
        room_wanted_ = true;
        wake = true;
      } else {
        queued_bytes_ += bytes;
        pushLocked(std::move(item));
        ++accepted_;
        submitted_ += is_exchange ? 1U : 0U;
        accepted = true;
        // Wake the writer only when it may be waiting: on the first item, a full batch, or
        // someone waiting for this commit (the writer then skips the batch window).
        wake = queue_.size() == 1 || queue_.size() == options_.max_batch;
        if (on_committed) {
          commit_waiters_.emplace_back(accepted_, std::move(on_committed));
          wake = true;
        }
      }
    }
    if (wake) {
      writer_cv_.notify_one();
    }
    return accepted;
  }

  void runCapture() noexcept {
    nameThisThread("avcr-capture");
    std::vector<QueueItem> batch;
    batch.reserve(std::min<std::size_t>(options_.max_batch, 4096));
    for (;;) {
      // Behind: half a full batch or more to write. The relaying threads are about to wait for
      // the queue to make room, so the capture keeps its core until it has caught up.
      bool behind = false;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        writer_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
        if (queue_.empty()) {
          break;  // closing and drained
        }
        // Let a batch gather, unless it is already full, the queue has refused someone for
        // want of room, or someone waits for it.
        auto someone_waits = [&] { return flush_waiters_ > 0 || !commit_waiters_.empty(); };
        auto gathering = [&] {
          return queue_.size() < options_.max_batch && !room_wanted_ && !closing_ &&
                 !someone_waits() && options_.batch_window.count() > 0;
        };
        if (gathering()) {
          writer_cv_.wait_for(lock, options_.batch_window, [&] { return !gathering(); });
        }
        if (options_.live_order && gathering()) {
          takeInStartOrder(lock, batch, gathering);
        }
        if (batch.empty()) {
          const std::size_t n = std::min(queue_.size(), options_.max_batch);
          for (std::size_t i = 0; i < n; ++i) {
            queued_bytes_ -= bodyBytes(queue_.front().item);
            batch.push_back(std::move(queue_.front().item));
            queue_.pop_front();
          }
        }
        room_wanted_ = false;  // what was taken makes room
        behind = batch.size() + queue_.size() >= options_.max_batch / 2;
      }
      const std::size_t n = batch.size();
      detail::BatchOutcome outcome;
      {
        // Relaying waits on the capture, not on the index: ask the indexer to commit early.
        capture_waiting_.store(true, std::memory_order_relaxed);
        std::lock_guard<std::mutex> db_lock(db_mutex_);
        capture_waiting_.store(false, std::memory_order_relaxed);
        if (options_.live_order) {
          orderByStart(batch);
        }
        outcome = writer_->writeBatch(batch, /*give_way=*/!behind);
      }
      batch.clear();
      // Before the index hears of the batch (captured_through_), so that it finds it there.
      handoff_->offer(outcome.to_index);
      outcome.to_index.clear();  // what the handoff left to be read back
      std::vector<std::function<void()>> committed;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ += n;
        written_ += outcome.written;
        indexed_ += outcome.complete;
        write_errors_ += outcome.errors;
        batches_ += outcome.committed ? 1 : 0;
        if (outcome.last_exchange_id != 0) {
          captured_through_ = outcome.last_exchange_id;
          index_wanted_ = true;
        }
        if (outcome.written > outcome.complete) {
          unindexed_ += outcome.written - outcome.complete;
          unindexed_batches_.push_back({outcome.last_exchange_id, std::chrono::steady_clock::now(),
                                        outcome.written - outcome.complete});
        }
        while (!commit_waiters_.empty() && commit_waiters_.front().first <= done_) {
          committed.push_back(std::move(commit_waiters_.front().second));
          commit_waiters_.pop_front();
        }
      }
      done_cv_.notify_all();
      index_cv_.notify_one();
      for (auto& notify : committed) {
        notify();
      }
    }
    markCaptureExited();
  }

  /// A live capture's batch: every queued item but the exchanges whose requests began after
  /// one still in flight (or less than kSettle ago). An exchange is handed over once answered;
  /// a request that began earlier may still be waiting for its own answer, and threading must
  /// meet every answer a step could have seen before the steps that began after it. Which
  /// request began first is the recorded clock's word; how long anything waits, the steady
  /// clock's, since the recorded clock may step. Waits while nothing is ready; leaves `batch`
  /// empty when gathering ends meanwhile (a full queue, flush(), close(), a commit waiter), for
  /// the caller to take the queue's head as it stands. Holds mutex_ through `lock`.
  template <class Gathering>
  void takeInStartOrder(std::unique_lock<std::mutex>& lock, std::vector<QueueItem>& batch,
                        const Gathering& gathering) {
    for (;;) {
      const SteadyClock::time_point now = SteadyClock::now();
      // The first begun of the requests in flight for less than the hold: what began after it
      // waits for it. A request in flight for longer holds nothing back.
      const InFlightMark* holding = nullptr;
      for (const InFlightMark& request : in_flight_) {
        if (now - request.began < options_.live_order_hold) {
          holding = &request;
          break;
        }
      }
      SteadyClock::time_point ready_at = SteadyClock::time_point::max();
      std::deque<Queued> waiting;
      for (Queued& queued : queue_) {
        const auto* exchange = std::get_if<protocol::Exchange>(&queued.item);
        SteadyClock::time_point free_at = queued.began + kSettle;
        if (exchange != nullptr && holding != nullptr &&
            exchange->started_ns > holding->started_ns) {
          free_at = std::max(free_at, holding->began + options_.live_order_hold);
        }
        if (exchange != nullptr && free_at > now) {
          ready_at = std::min(ready_at, free_at);
          waiting.push_back(std::move(queued));
        } else {
          queued_bytes_ -= bodyBytes(queued.item);
          batch.push_back(std::move(queued.item));
        }
      }
      queue_.swap(waiting);
      if (!batch.empty() || queue_.empty()) {
        return;
      }
      // Nothing is ready: wait until the first exchange is, or the request holding it back
      // ends.
      capture_holding_ = true;
      in_flight_ended_ = false;
      writer_cv_.wait_until(lock, ready_at, [&] { return !gathering() || in_flight_ended_; });
      capture_holding_ = false;
      if (!gathering()) {
        return;
      }
    }
  }

  /// Indexes whatever is captured and not indexed yet, then waits for the next capture. Starts
  /// with the rows an earlier run left unindexed (a crash), and drains everything before it
  /// exits, after the capture thread.
  void runIndexer() noexcept {
    nameThisThread("avcr-index");
    lowerThisThreadsPriority();
    for (;;) {
      std::int64_t captured = 0;
      bool last_round = false;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        index_cv_.wait(lock, [&] { return index_wanted_ || capture_exited_; });
        index_wanted_ = false;
        captured = captured_through_;
        last_round = capture_exited_;
      }
      // Every row up to `captured` was committed before this drain began, so the drain sees it
      // (or gives up on it after an error, logged): flush() may count it as indexed either way.
      drainIndex();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        indexed_through_ = std::max(indexed_through_, captured);
        forgetIndexedBatches();
      }
      done_cv_.notify_all();
      if (last_round) {
        break;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      index_exited_ = true;
    }
    done_cv_.notify_all();
  }

  /// Indexes chunk after chunk until none is left. Once a chunk went by with no traffic, the
  /// next one is loaded before this one is written, and decoded meanwhile on the decoding
  /// thread (decode_ahead.hpp).
  void drainIndex() noexcept {
    bool at_full_speed = false;  // the first chunk is decoded here, as under load
    for (;;) {
      const auto started = std::chrono::steady_clock::now();
      const std::uint64_t batches_before = batchesSoFar();
      std::optional<std::vector<detail::DecodedRow>> decoded = nextDecodedChunk();
      if (!decoded) {
        return;
      }
      if (at_full_speed) {
        std::optional<std::vector<detail::PendingExchange>> next = loadChunk();
        if (next && !next->empty()) {
          decode_ahead_->start(std::move(*next));
        }
      }
      try {
        indexer_->packNewMemories(*decoded);
      } catch (const std::exception& e) {
        detail::logLine(std::string("[store.index] exchanges not decoded: ") + e.what());
        continue;  // out of memory or alike: they stay unindexed on disk
      }
      observeA2aCalls(*decoded);
      writeChunk(*decoded);
      at_full_speed =
          yieldWhileUnderLoad(std::chrono::steady_clock::now() - started, batches_before);
    }
  }

  /// The next index chunk of captured rows in id order, from the handoff, or read back where it
  /// says so (an empty chunk when none is left); nothing when they cannot be read (logged).
  std::optional<std::vector<detail::PendingExchange>> loadChunk() noexcept {
    try {
      for (;;) {
        detail::IndexHandoff::Next next =
            handoff_->take(options_.index_chunk, detail::kIndexChunkBytes);
        if (!next.rows.empty()) {
          indexer_->loadedElsewhere(next.rows.back().id);
          return std::move(next.rows);
        }
        if (next.read_back_through == 0) {
          return std::vector<detail::PendingExchange>{};
        }
        std::vector<detail::PendingExchange> rows;
        {
          std::lock_guard<std::mutex> db_lock(db_mutex_);
          rows = indexer_->loadPending(options_.index_chunk, detail::kIndexChunkBytes,
                                       next.read_back_through);
        }
        if (!rows.empty()) {
          std::lock_guard<std::mutex> lock(mutex_);
          index_read_back_ += rows.size();
          return rows;
        }
        handoff_->readBack(next.read_back_through);
      }
    } catch (const std::exception& e) {
      detail::logLine(std::string("[store.index] cannot read captured exchanges back: ") +
                      e.what());
      return std::nullopt;
    }
  }

  /// The chunk the decoding thread holds, else the next one loaded and decoded here; nothing
  /// when none is left or it cannot be read. A chunk whose decoding threw is logged and
  /// skipped: out of memory or alike, its rows stay unindexed on disk.
  std::optional<std::vector<detail::DecodedRow>> nextDecodedChunk() noexcept {
    for (;;) {
      try {
        if (decode_ahead_->pending()) {
          return decode_ahead_->take();
        }
        std::optional<std::vector<detail::PendingExchange>> rows = loadChunk();
        if (!rows || rows->empty()) {
          return std::nullopt;
        }
        return detail::decodeRows(std::move(*rows), decode_options_);
      } catch (const std::exception& e) {
        detail::logLine(std::string("[store.index] exchanges not decoded: ") + e.what());
      }
    }
  }

  void observeA2aCalls(const std::vector<detail::DecodedRow>& decoded) const {
    if (!options_.on_a2a_call) {
      return;
    }
    for (const detail::DecodedRow& row : decoded) {
      if (row.decoded) {
        for (const protocol::a2a::Call& call : row.decoded->a2a_calls) {
          options_.on_a2a_call(call);
        }
      }
    }
  }

  /// Writes `decoded` in as many transactions as the capture's turns at the connection cut it
  /// into, counting what got indexed.
  void writeChunk(std::vector<detail::DecodedRow>& decoded) {
    while (!decoded.empty()) {
      const std::int64_t last_id = decoded.back().id;
      detail::IndexOutcome outcome;
      {
        std::lock_guard<std::mutex> db_lock(db_mutex_);
        outcome = indexer_->writeIndex(decoded, capture_waiting_);
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        indexed_ += outcome.indexed;
        if (decoded.empty()) {
          indexed_through_ = std::max(indexed_through_, last_id);
          forgetIndexedBatches();
        }
      }
      done_cv_.notify_all();
    }
  }

  /// Drops the batches the index has passed from the index lag. Called with mutex_ held.
  void forgetIndexedBatches() {
    while (!unindexed_batches_.empty() &&
           unindexed_batches_.front().last_exchange_id <= indexed_through_) {
      unindexed_ -= std::min(unindexed_, unindexed_batches_.front().exchanges);
      unindexed_batches_.pop_front();
    }
  }

  std::uint64_t batchesSoFar() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return batches_;
  }

  /// Keeps the index thread to `index_share_under_load` of a core while exchanges keep being
  /// captured (a batch committed during the chunk just indexed): it sleeps for the rest of its
  /// share. Its lower OS priority alone would not do: a starved index thread could sit
  /// preempted while holding the connection the capture needs. The sleep is cooperative and
  /// happens with nothing held. Close ends it at once. Returns whether the index may go at
  /// full speed: no traffic came, or the recorder is closing.
  bool yieldWhileUnderLoad(std::chrono::steady_clock::duration worked,
                           std::uint64_t batches_before) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (batches_ == batches_before || capture_exited_ || closing_) {
      return true;
    }
    const double share = options_.index_share_under_load;
    if (share > 0.0 && share < 1.0) {
      const auto rest = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          worked * ((1.0 - share) / share));
      index_cv_.wait_for(lock, rest, [&] { return capture_exited_ || closing_; });
    }
    return false;
  }

  /// Also releases whoever still waits for a commit, and lets the indexer finish.
  void markCaptureExited() noexcept {
    std::deque<std::pair<std::uint64_t, std::function<void()>>> abandoned;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      capture_exited_ = true;
      abandoned.swap(commit_waiters_);
    }
    done_cv_.notify_all();
    index_cv_.notify_one();
    for (auto& waiter : abandoned) {
      waiter.second();
    }
  }

  RecorderOptions options_;
  std::int64_t session_id_ = 0;
  // Declared before the threads' state they serve; close() resets them in reverse order.
  std::unique_ptr<SQLite::Database> db_;
  std::unique_ptr<detail::WalCheckpointer> checkpointer_;  // before the threads that commit
  std::unique_ptr<detail::ArchiveWriter> writer_;
  std::unique_ptr<detail::ArchiveIndexer> indexer_;
  std::unique_ptr<detail::IndexHandoff> handoff_;  // the capture offers, the index takes
  detail::DecodeOptions decode_options_;
  std::unique_ptr<detail::DecodeAhead> decode_ahead_;  // the index thread's alone
  std::mutex db_mutex_;                                // whoever uses the connection holds it
  std::atomic<bool> capture_waiting_{false};           // the capture wants db_mutex_
  std::thread capture_thread_;
  std::thread index_thread_;

  mutable std::mutex mutex_;
  std::condition_variable writer_cv_;  // queue not empty, full batch, flush or close
  std::condition_variable done_cv_;    // a batch captured, or indexed
  std::condition_variable index_cv_;   // something captured, or the capture ended

  /// An item waiting for the capture: when it came (capture_lag), and when its request began
  /// by the steady clock (an exchange's, from its mark; else when it came).
  struct Queued {
    QueueItem item;
    SteadyClock::time_point queued_at;
    SteadyClock::time_point began;
  };

  /// A request begun and not yet submitted (Recorder::InFlight), by the recorded clock, which
  /// orders requests, and by the steady clock, which times the hold.
  struct InFlightMark {
    std::int64_t started_ns = 0;
    SteadyClock::time_point began;

    bool operator<(const InFlightMark& other) const {
      return started_ns != other.started_ns ? started_ns < other.started_ns : began < other.began;
    }
  };

  std::deque<Queued> queue_;
  std::multiset<InFlightMark> in_flight_;
  bool capture_holding_ = false;  // a live capture waits for in_flight_ to move
  bool in_flight_ended_ = false;  // a request left in_flight_ since it began waiting
  bool room_wanted_ = false;      // the queue refused an item for want of room since last taken

  /// Committed batches with exchanges left to index, oldest first: the index lag.
  struct UnindexedBatch {
    std::int64_t last_exchange_id = 0;
    std::chrono::steady_clock::time_point committed;
    std::uint64_t exchanges = 0;
  };

  std::deque<UnindexedBatch> unindexed_batches_;
  std::uint64_t unindexed_ = 0;  // exchanges of unindexed_batches_
  bool closing_ = false;
  bool closed_ = false;
  bool capture_exited_ = false;
  bool index_exited_ = false;
  bool index_wanted_ = true;  // the first round picks up what an earlier run left unindexed
  std::size_t flush_waiters_ = 0;
  // (accepted_ just after the item was queued, what to call once done_ reaches it), in order.
  std::deque<std::pair<std::uint64_t, std::function<void()>>> commit_waiters_;
  std::uint64_t accepted_ = 0;   // items ever queued (exchanges, identities, misses)
  std::uint64_t done_ = 0;       // items the capture finished (written or failed)
  std::uint64_t submitted_ = 0;  // exchanges only
  std::uint64_t written_ = 0;
  std::uint64_t indexed_ = 0;
  std::uint64_t index_read_back_ = 0;
  std::int64_t captured_through_ = 0;  // id of the last exchange captured
  std::int64_t indexed_through_ = 0;   // every captured id up to this one is indexed (or given up)
  std::uint64_t refused_full_ = 0;
  std::size_t queued_bytes_ = 0;  // bodies of the queued exchanges (queue_byte_limit)
  std::uint64_t refused_closed_ = 0;
  std::uint64_t write_errors_ = 0;
  std::uint64_t batches_ = 0;
};

Recorder::Recorder(const std::string& path, const SessionInfo& session, RecorderOptions options)
    : impl_(std::make_unique<Impl>(path, session, std::move(options))) {}

Recorder::~Recorder() {
  impl_->close();
}

std::int64_t Recorder::sessionId() const {
  return impl_->sessionId();
}

bool Recorder::trySubmit(protocol::Exchange& exchange) {
  return impl_->trySubmit(exchange, {});
}

bool Recorder::trySubmit(protocol::Exchange& exchange, std::function<void()> on_committed) {
  return impl_->trySubmit(exchange, std::move(on_committed));
}

void Recorder::recordAgentIdentity(std::string health_body, std::string info_body) {
  impl_->recordAgentIdentity(std::move(health_body), std::move(info_body));
}

bool Recorder::tryRecordReplayMiss(ReplayMissRow miss) {
  return impl_->tryRecordReplayMiss(miss);
}

Recorder::InFlight::InFlight(InFlight&& other) noexcept
    : impl_(std::exchange(other.impl_, nullptr)),
      started_ns_(other.started_ns_),
      began_(other.began_) {}

Recorder::InFlight& Recorder::InFlight::operator=(InFlight&& other) noexcept {
  if (this != &other) {
    release();
    impl_ = std::exchange(other.impl_, nullptr);
    started_ns_ = other.started_ns_;
    began_ = other.began_;
  }
  return *this;
}

Recorder::InFlight::~InFlight() {
  release();
}

void Recorder::InFlight::release() noexcept {
  if (impl_ != nullptr) {
    std::exchange(impl_, nullptr)->requestEnded(started_ns_, began_);
  }
}

const std::function<std::int64_t()>& Recorder::clock() const {
  return impl_->clock();
}

Recorder::InFlight Recorder::requestBegan(std::int64_t started_ns) {
  if (!impl_->liveOrder()) {
    return {};  // nothing waits on it
  }
  return InFlight(impl_.get(), started_ns, impl_->requestBegan(started_ns));
}

void Recorder::flush() {
  impl_->flush();
}

void Recorder::close() {
  impl_->close();
}

RecorderStats Recorder::stats() const {
  return impl_->stats();
}

}  // namespace agentvcr::store
