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
/// therefore always gives the same items.
///
/// A scope (docs/replay.md, "Scopes") has cursors of its own, so that each scope walks the
/// recording from the start whatever the others do. An item may have been recorded in a scope:
/// a scope then walks, under each key, the items recorded in it first, then those recorded in
/// none, then those of other scopes, each in recorded order. Without a scope, a caller walks
/// every item in recorded order. Not thread-safe: the caller serialises access.
template <class Item>
class RecordedQueues {
 public:
  /// Adds `item` after those already added under `key` (call in recording order);
  /// `recorded_scope` is the scope it was recorded in, empty for none.
  void add(std::uint64_t key, Item item, std::string_view recorded_scope = {}) {
    Slot& slot = slots_[key];
    if (!recorded_scope.empty()) {
      if (slot.scope_of.empty()) {
        slot.scope_of.assign(slot.items.size(), kNoScope);
      }
      slot.scope_of.push_back(scopeId(recorded_scope));
    } else if (!slot.scope_of.empty()) {
      slot.scope_of.push_back(kNoScope);
    }
    slot.items.push_back(std::move(item));
  }

  /// The next item recorded under `key` for `scope` (empty: the shared cursors), or empty when
  /// nothing was.
  std::optional<Item> take(std::uint64_t key, std::string_view scope = {}) {
    auto found = slots_.find(key);
    if (found == slots_.end()) {
      return std::nullopt;
    }
    const Slot& slot = found->second;
    if (scope.empty()) {
      return slot.items[advance(found->second.next, slot.items.size())];
    }
    ScopeCursor& cursor = scopes_[std::string(scope)][key];
    if (!slot.scope_of.empty() && cursor.order.size() != slot.items.size()) {
      cursor.order = orderFor(slot, scope);  // first asked, or items were added since
    }
    const std::size_t position = advance(cursor.next, slot.items.size());
    return slot.items[cursor.order.empty() ? position : cursor.order[position]];
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
  static constexpr std::uint32_t kNoScope = 0;

  struct Slot {
    std::vector<Item> items;
    /// The recorded scope of each item (scopeId), parallel to `items`; empty while no item
    /// under this key was recorded in a scope.
    std::vector<std::uint32_t> scope_of;
    std::size_t next = 0;
  };

  struct ScopeCursor {
    /// Indexes into the slot's items in this scope's order; empty: recorded order.
    std::vector<std::size_t> order;
    std::size_t next = 0;
  };

  /// The position `next` stands at, then moves past it; the last one once all are used.
  static std::size_t advance(std::size_t& next, std::size_t count) {
    return next < count ? next++ : count - 1;
  }

  std::uint32_t scopeId(std::string_view name) {
    auto [it, added] = recorded_scopes_.try_emplace(
        std::string(name), static_cast<std::uint32_t>(recorded_scopes_.size() + 1));
    return it->second;
  }

  /// The slot's items as `scope` walks them: its own, then the unscoped, then the others'.
  std::vector<std::size_t> orderFor(const Slot& slot, std::string_view scope) const {
    const auto named = recorded_scopes_.find(std::string(scope));
    const bool recorded_scope = named != recorded_scopes_.end();
    const auto rank = [&](std::uint32_t recorded) {
      return recorded_scope && recorded == named->second ? 0 : recorded == kNoScope ? 1 : 2;
    };
    std::vector<std::size_t> order;
    order.reserve(slot.items.size());
    for (const int wanted : {0, 1, 2}) {
      for (std::size_t i = 0; i < slot.items.size(); ++i) {
        if (rank(slot.scope_of[i]) == wanted) {
          order.push_back(i);
        }
      }
    }
    return order;
  }

  std::unordered_map<std::uint64_t, Slot> slots_;
  /// Scope names items were recorded in -> their ids (from 1; kNoScope is none).
  std::unordered_map<std::string, std::uint32_t> recorded_scopes_;
  /// Scope -> key -> cursor, for the keys the scope has asked.
  std::unordered_map<std::string, std::unordered_map<std::uint64_t, ScopeCursor>> scopes_;
};

}  // namespace agentvcr::replay
