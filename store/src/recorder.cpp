#include "agentvcr/store/recorder.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "archive_writer.hpp"

namespace agentvcr::store {

using detail::QueueItem;

namespace {

/// What an item weighs against queue_byte_limit: an exchange its bodies; identities and replay
/// misses are small and always count as nothing (pushed and popped alike).
std::size_t bodyBytes(const protocol::Exchange& exchange) {
  return exchange.request_body.size() + exchange.response_body.size();
}

template <class Item>
std::size_t bodyBytes(const Item& /*small*/) {
  return 0;
}

std::size_t bodyBytes(const QueueItem& item) {
  const auto* exchange = std::get_if<protocol::Exchange>(&item);
  return exchange != nullptr ? bodyBytes(*exchange) : 0;
}

}  // namespace

/// The queue is a mutex-protected deque: producers and the writer only move items in and out
/// under the lock; all decoding and SQLite work happens outside it, in the writer thread.
class Recorder::Impl {
 public:
  Impl(const std::string& path, const SessionInfo& session, RecorderOptions options)
      : options_(std::move(options)) {
    options_.max_batch = std::max<std::size_t>(options_.max_batch, 1);
    options_.queue_capacity = std::max<std::size_t>(options_.queue_capacity, 1);
    std::promise<std::int64_t> ready;
    std::future<std::int64_t> started = ready.get_future();
    // The promise lives in the writer thread, so it outlives its own set_value().
    writer_ = std::thread(
        [this, path, session, ready = std::move(ready)]() mutable { run(path, session, ready); });
    try {
      session_id_ = started.get();
    } catch (...) {
      writer_.join();
      throw;
    }
  }

  ~Impl() { close(); }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::int64_t sessionId() const { return session_id_; }

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
      queue_.emplace_back(detail::AgentIdentity{std::move(health_body), std::move(info_body)});
      ++accepted_;
    }
    writer_cv_.notify_one();
  }

  void flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t target = accepted_;
    if (done_ >= target || writer_exited_) {
      return;
    }
    ++flush_waiters_;
    writer_cv_.notify_one();
    done_cv_.wait(lock, [&] { return done_ >= target || writer_exited_; });
    --flush_waiters_;
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
    if (writer_.joinable()) {
      writer_.join();
    }
  }

  RecorderStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    RecorderStats s;
    s.submitted = submitted_;
    s.written = written_;
    s.refused_full = refused_full_;
    s.refused_closed = refused_closed_;
    s.queued = queue_.size();
    s.write_errors = write_errors_;
    s.batches = batches_;
    return s;
  }

 private:
  /// Moves `item` into the queue unless it is full or closing (then counts the refusal and
  /// leaves `item` intact). `is_exchange` counts it in `submitted`.
  template <class Item>
  bool tryEnqueue(Item& item, bool is_exchange, std::function<void()> on_committed) {
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
        return false;
      }
      queued_bytes_ += bytes;
      queue_.emplace_back(std::move(item));
      ++accepted_;
      submitted_ += is_exchange ? 1U : 0U;
      // Wake the writer only when it may be waiting: on the first item, a full batch, or
      // someone waiting for this commit (the writer then skips the batch window).
      wake = queue_.size() == 1 || queue_.size() == options_.max_batch;
      if (on_committed) {
        commit_waiters_.emplace_back(accepted_, std::move(on_committed));
        wake = true;
      }
    }
    if (wake) {
      writer_cv_.notify_one();
    }
    return true;
  }

  void run(const std::string& path, const SessionInfo& session,
           std::promise<std::int64_t>& ready) noexcept {
    std::unique_ptr<detail::ArchiveWriter> writer;
    try {
      writer = std::make_unique<detail::ArchiveWriter>(path, session, options_);
      ready.set_value(writer->sessionId());
    } catch (...) {
      markExited();
      ready.set_exception(std::current_exception());
      return;
    }
    std::vector<QueueItem> batch;
    batch.reserve(std::min<std::size_t>(options_.max_batch, 4096));
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        writer_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
        if (queue_.empty()) {
          break;  // closing and drained
        }
        // Let a batch gather, unless it is already full or someone waits for it.
        auto someone_waits = [&] { return flush_waiters_ > 0 || !commit_waiters_.empty(); };
        if (queue_.size() < options_.max_batch && !closing_ && !someone_waits() &&
            options_.batch_window.count() > 0) {
          writer_cv_.wait_for(lock, options_.batch_window, [&] {
            return queue_.size() >= options_.max_batch || closing_ || someone_waits();
          });
        }
        const std::size_t n = std::min(queue_.size(), options_.max_batch);
        for (std::size_t i = 0; i < n; ++i) {
          queued_bytes_ -= bodyBytes(queue_.front());
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      const std::size_t n = batch.size();
      const detail::BatchOutcome outcome = writer->writeBatch(batch);
      batch.clear();
      std::vector<std::function<void()>> committed;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ += n;
        written_ += outcome.written;
        write_errors_ += outcome.errors;
        batches_ += outcome.committed ? 1 : 0;
        while (!commit_waiters_.empty() && commit_waiters_.front().first <= done_) {
          committed.push_back(std::move(commit_waiters_.front().second));
          commit_waiters_.pop_front();
        }
      }
      done_cv_.notify_all();
      for (auto& notify : committed) {
        notify();
      }
    }
    writer->endSession();
    writer.reset();  // closes the connection (checkpoints the WAL when it is the last one)
    markExited();
  }

  /// Also releases whoever still waits for a commit: nothing more will be written.
  void markExited() noexcept {
    std::deque<std::pair<std::uint64_t, std::function<void()>>> abandoned;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      writer_exited_ = true;
      abandoned.swap(commit_waiters_);
    }
    done_cv_.notify_all();
    for (auto& waiter : abandoned) {
      waiter.second();
    }
  }

  RecorderOptions options_;
  std::int64_t session_id_ = 0;
  std::thread writer_;

  mutable std::mutex mutex_;
  std::condition_variable writer_cv_;  // queue not empty, full batch, flush or close
  std::condition_variable done_cv_;    // a batch finished
  std::deque<QueueItem> queue_;
  bool closing_ = false;
  bool closed_ = false;
  bool writer_exited_ = false;
  std::size_t flush_waiters_ = 0;
  // (accepted_ just after the item was queued, what to call once done_ reaches it), in order.
  std::deque<std::pair<std::uint64_t, std::function<void()>>> commit_waiters_;
  std::uint64_t accepted_ = 0;   // items ever queued (exchanges, identities, misses)
  std::uint64_t done_ = 0;       // items the writer finished (written or failed)
  std::uint64_t submitted_ = 0;  // exchanges only
  std::uint64_t written_ = 0;
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
