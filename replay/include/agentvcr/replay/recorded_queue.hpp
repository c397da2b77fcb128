#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace agentvcr::replay {

/// Recorded answers per replay key, served in recorded order.
///
/// Each key keeps its items in the order they were added and a cursor. take() serves them in
/// that order; once they are used up, it serves the last one again: an agent asked the same
/// thing once more most plausibly answers as it last did. The same sequence of take() calls
/// therefore always gives the same items. Not thread-safe: the caller serialises access.
template <class Item>
class RecordedQueues {
 public:
  /// Adds `item` after those already added under `key` (call in recording order).
  void add(std::uint64_t key, Item item) { slots_[key].items.push_back(std::move(item)); }

  /// The next item recorded under `key`, or empty when nothing was.
  std::optional<Item> take(std::uint64_t key) {
    auto found = slots_.find(key);
    if (found == slots_.end()) {
      return std::nullopt;
    }
    Slot& slot = found->second;
    if (slot.next < slot.items.size()) {
      return slot.items[slot.next++];
    }
    return slot.items.back();
  }

  /// Puts every key's cursor back at its first item: the same take() calls as before give the
  /// same items again.
  void rewind() {
    for (auto& [key, slot] : slots_) {
      slot.next = 0;
    }
  }

  std::size_t keyCount() const { return slots_.size(); }

 private:
  struct Slot {
    std::vector<Item> items;
    std::size_t next = 0;
  };

  std::unordered_map<std::uint64_t, Slot> slots_;
};

}  // namespace agentvcr::replay
