#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace agentvcr::metrics {

/// A count with one writer: the thread that owns its shard. The add is a plain load and store
/// (no locked read-modify-write), and a scrape on another thread reads a value that is at most
/// a few increments old.
class Count {
 public:
  void add(std::uint64_t n = 1) {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  std::uint64_t read() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

namespace detail {

/// A number no other ThreadShards of the process ever had, so that a thread's cached shard of
/// a destroyed owner is never taken for the shard of a new one built at the same address.
std::uint64_t nextShardsOwnerId();

/// This thread's shard of owner `owner_id`, or null the first time.
void* cachedShard(std::uint64_t owner_id);
void cacheShard(std::uint64_t owner_id, void* shard);

}  // namespace detail

/// One `Shard` per thread that writes, created on the thread's first write, so that writers
/// never share a cache line or a lock; readers sum the shards. Shards live as long as the owner,
/// after their thread has ended too (their counts stay in the sums).
///
/// Thread-safety: local() from any thread; forEach() from any thread, concurrently with writes.
template <class Shard>
class ThreadShards {
 public:
  ThreadShards() = default;
  ThreadShards(const ThreadShards&) = delete;
  ThreadShards& operator=(const ThreadShards&) = delete;

  /// The calling thread's shard. After the first call on a thread: a lookup in a thread-local
  /// list of a few entries, no lock.
  Shard& local() {
    if (void* cached = detail::cachedShard(id_)) {
      return *static_cast<Shard*>(cached);
    }
    std::lock_guard lock(mutex_);
    Shard* shard = shards_.emplace_back(std::make_unique<Shard>()).get();
    detail::cacheShard(id_, shard);
    return *shard;
  }

  /// Calls `visit(const Shard&)` for every shard.
  template <class Visit>
  void forEach(Visit&& visit) const {
    std::lock_guard lock(mutex_);
    for (const auto& shard : shards_) {
      visit(*shard);
    }
  }

 private:
  const std::uint64_t id_ = detail::nextShardsOwnerId();
  mutable std::mutex mutex_;  // guards the list, never a count
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace agentvcr::metrics
