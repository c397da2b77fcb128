#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "agentvcr/protocol/canonical.hpp"

namespace agentvcr::replay {

/// What a request memo holds and has done, for the `/_agentvcr/replay` status route.
struct MemoStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;
  std::size_t entries = 0;
  std::size_t bytes = 0;
  std::size_t budget_bytes = 0;
};

/// The work replay did for a request, remembered under the request's masked bytes
/// (protocol::maskIds()): the next request with the same masked bytes skips parsing,
/// validation and keying. Bounded by bytes (the masked request, the value's own size and a
/// fixed overhead per entry); the least recently used entries leave first.
///
/// A lookup compares the whole masked request, not only its hash. Thread-safe.
template <class Value>
class RequestMemo {
 public:
  explicit RequestMemo(std::size_t budget_bytes) : budget_bytes_(budget_bytes) {}

  /// The value remembered for `masked`, a copy (the entry may leave at any time after).
  std::optional<Value> find(std::string_view masked) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = index_.find(masked);
    if (found == index_.end()) {
      ++stats_.misses;
      return std::nullopt;
    }
    ++stats_.hits;
    lru_.splice(lru_.begin(), lru_, found->second);
    return found->second->value;
  }

  /// Remembers `value` for `masked`; `value_bytes` is what `value` holds on the heap. An entry
  /// larger than the whole budget is not kept.
  void insert(std::string masked, Value value, std::size_t value_bytes) {
    const std::size_t bytes = masked.size() + value_bytes + kEntryOverhead;
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > budget_bytes_ || index_.count(masked) != 0) {
      return;  // another thread remembered it first: the same value
    }
    lru_.push_front(Entry{std::move(masked), std::move(value), bytes});
    index_.emplace(std::string_view(lru_.front().masked), lru_.begin());
    stats_.bytes += bytes;
    while (stats_.bytes > budget_bytes_) {
      const Entry& oldest = lru_.back();
      stats_.bytes -= oldest.bytes;
      index_.erase(std::string_view(oldest.masked));
      lru_.pop_back();
      ++stats_.evictions;
    }
  }

  MemoStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    MemoStats stats = stats_;
    stats.entries = lru_.size();
    stats.budget_bytes = budget_bytes_;
    return stats;
  }

 private:
  /// The list node, the index's node and the bookkeeping of one entry, roughly.
  static constexpr std::size_t kEntryOverhead = 128;

  struct Entry {
    std::string masked;
    Value value;
    std::size_t bytes = 0;
  };

  struct Hash {
    std::size_t operator()(std::string_view text) const {
      return static_cast<std::size_t>(protocol::stableHash(text));
    }
  };

  using Lru = std::list<Entry>;

  const std::size_t budget_bytes_;
  mutable std::mutex mutex_;
  Lru lru_;  ///< most recently used first
  /// Keys view the entries' own strings, which stay put while they are in the list.
  std::unordered_map<std::string_view, typename Lru::iterator, Hash> index_;
  MemoStats stats_;
};

}  // namespace agentvcr::replay
