#pragma once

// The decoded bytes a reader used last, kept up to a total size: what the body shelves
// (body_dictionaries.hpp, body_segments.hpp) hold so that reading on decodes little again.

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

namespace agentvcr::store::detail {

/// Byte strings by key, the least recently used dropped once they pass `limit` bytes (the
/// newest is always kept, however large). Not thread-safe: its owner locks.
template <class Key, class Hash = std::hash<Key>>
class RecentBytes {
 public:
  using Bytes = std::shared_ptr<const std::string>;

  explicit RecentBytes(std::size_t limit) : limit_(limit) {}

  /// The bytes kept under `key`, now the most recently used; null when none are.
  Bytes find(const Key& key) {
    auto found = kept_.find(key);
    if (found == kept_.end()) {
      return nullptr;
    }
    recency_.splice(recency_.begin(), recency_, found->second.recency);
    return found->second.bytes;
  }

  /// Keeps `bytes` under `key` (already kept: only marked used).
  void keep(const Key& key, Bytes bytes) {
    if (find(key)) {
      return;
    }
    size_ += bytes->size();
    recency_.push_front(key);
    kept_.emplace(key, Kept{std::move(bytes), recency_.begin()});
    while (size_ > limit_ && recency_.size() > 1) {
      const auto oldest = kept_.find(recency_.back());
      size_ -= oldest->second.bytes->size();
      kept_.erase(oldest);
      recency_.pop_back();
    }
  }

 private:
  struct Kept {
    Bytes bytes;
    typename std::list<Key>::iterator recency;
  };

  std::size_t limit_;
  std::unordered_map<Key, Kept, Hash> kept_;
  std::list<Key> recency_;  // most recently used first
  std::size_t size_ = 0;
};

}  // namespace agentvcr::store::detail
