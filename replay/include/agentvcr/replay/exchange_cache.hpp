#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace agentvcr::replay {

/// Answers made ready to replay from recorded exchanges, kept by exchange id in an LRU cache
/// bounded in bytes, so that an exchange replayed again is not read from the archive and
/// prepared again. `Answer` tells its size with `std::size_t bytes() const`. Thread-safe.
template <class Answer>
class ExchangeCache {
 public:
  explicit ExchangeCache(std::size_t kept_bytes) : kept_bytes_limit_(kept_bytes) {}

  /// The answer kept for `exchange_id`, or else the one `prepare()` makes (a
  /// std::shared_ptr<const Answer>, empty for none, which is not kept).
  template <class Prepare>
  std::shared_ptr<const Answer> of(std::int64_t exchange_id, Prepare&& prepare) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto found = entries_.find(exchange_id); found != entries_.end()) {
        recency_.splice(recency_.begin(), recency_, found->second.position);
        return found->second.answer;
      }
    }
    // Read and prepare outside the lock; two threads racing on one exchange prepare it twice,
    // which is harmless.
    std::shared_ptr<const Answer> answer = prepare();
    if (!answer) {
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.count(exchange_id) == 0) {
      recency_.push_front(exchange_id);
      entries_.emplace(exchange_id, Entry{answer, recency_.begin()});
      kept_bytes_ += answer->bytes();
      while (kept_bytes_ > kept_bytes_limit_ && recency_.size() > 1) {
        const auto oldest = entries_.find(recency_.back());
        kept_bytes_ -= oldest->second.answer->bytes();
        entries_.erase(oldest);
        recency_.pop_back();
      }
    }
    return answer;
  }

 private:
  struct Entry {
    std::shared_ptr<const Answer> answer;
    std::list<std::int64_t>::iterator position;
  };

  const std::size_t kept_bytes_limit_;
  std::mutex mutex_;
  std::list<std::int64_t> recency_;  ///< most recent first
  std::size_t kept_bytes_ = 0;
  std::unordered_map<std::int64_t, Entry> entries_;
};

}  // namespace agentvcr::replay
