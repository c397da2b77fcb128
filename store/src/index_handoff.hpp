#pragma once

// Captured exchanges handed from the capture thread to the index thread in memory. The capture
// holds each exchange redacted, with its bodies as relayed, when it commits it; reading it back
// from SQLite (the row, the bodies' decompression, the headers' JSON) was about a seventh of
// the index thread's CPU (bench/results/profile-*). The handoff is bounded: what does not fit,
// and whatever an earlier run left unindexed, the index reads back from the archive as before.
// Either way the index meets the rows in id order: the handoff keeps, in that order, both the
// exchanges it holds and the ids up to which rows are to be read back instead.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <variant>
#include <vector>

#include "archive_indexer.hpp"

namespace agentvcr::store::detail {

/// Thread-safe: the capture thread offers, the index thread takes.
class IndexHandoff {
 public:
  /// Holds at most `capacity` exchanges and `byte_limit` bytes of their bodies (0: none, every
  /// row is read back). The rows up to `read_back_through` come first, read back: what an
  /// earlier run left (0: nothing).
  IndexHandoff(std::size_t capacity, std::size_t byte_limit, std::int64_t read_back_through);

  /// Capture thread, once `rows` are committed (ids ascending, after every id offered before):
  /// keeps them, moved from, while they fit; from the first one that does not, the rest are to
  /// be read back. The caller frees what was not kept.
  void offer(std::vector<PendingExchange>& rows);

  /// What the index takes next.
  struct Next {
    /// Held exchanges in id order: at most `limit`, ending with the one whose bodies reach
    /// `byte_limit`.
    std::vector<PendingExchange> rows;
    /// When `rows` is empty: the rows up to this id are to be read back first (0: nothing is
    /// left at all).
    std::int64_t read_back_through = 0;
  };

  Next take(std::size_t limit, std::size_t byte_limit);

  /// The index read back every row up to `through` (take()'s read_back_through).
  void readBack(std::int64_t through);

 private:
  struct ReadBack {
    std::int64_t through = 0;
  };

  const std::size_t capacity_;
  const std::size_t byte_limit_;
  std::mutex mutex_;
  std::deque<std::variant<PendingExchange, ReadBack>> queue_;  // in id order
  std::size_t held_ = 0;                                       // exchanges in queue_
  std::size_t held_bytes_ = 0;                                 // their bodies
};

}  // namespace agentvcr::store::detail
