#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentvcr::replay {

/// Recorded answers per replay key, served in recorded order.
///
/// Each key keeps its items in the order they were added and a cursor. take() serves them in
/// that order; once they are used up, it serves the last one again: an agent asked the same
/// thing once more most plausibly answers as it last did. The same sequence of take() calls
/// therefore always gives the same items. A scope (docs/replay.md, "Scopes") has cursors of its
/// own, so that each scope walks the recording from the start whatever the others do. Not
/// thread-safe: the caller serialises access.
template <class Item>
class RecordedQueues {
 public:
  /// Adds `item` after those already added under `key` (call in recording order).
  void add(std::uint64_t key, Item item) { slots_[key].items.push_back(std::move(item)); }

  /// The next item recorded under `key` for `scope` (empty: the shared cursors), or empty when
  /// nothing was.
  std::optional<Item> take(std::uint64_t key, std::string_view scope = {}) {
    auto found = slots_.find(key);
    if (found == slots_.end()) {
      return std::nullopt;
    }
    const std::vector<Item>& items = found->second.items;
    std::size_t& next = scope.empty() ? found->second.next : scopes_[std::string(scope)][key];
    if (next < items.size()) {
      return items[next++];
    }
    return items.back();
  }

  /// Puts every cursor, the shared ones and every scope's, back at its first item: the same
  /// take() calls as before give the same items again.
  void rewind() {
    for (auto& [key, slot] : slots_) {
      slot.next = 0;
    }
    scopes_.clear();
  }

  /// Puts `scope`'s cursors back at the first items.
  void rewind(std::string_view scope) { scopes_.erase(std::string(scope)); }

  std::size_t keyCount() const { return slots_.size(); }

 private:
  struct Slot {
    std::vector<Item> items;
    std::size_t next = 0;
  };

  std::unordered_map<std::uint64_t, Slot> slots_;
  /// Scope -> key -> cursor, for the keys the scope has asked.
  std::unordered_map<std::string, std::unordered_map<std::uint64_t, std::size_t>> scopes_;
};

}  // namespace agentvcr::replay
