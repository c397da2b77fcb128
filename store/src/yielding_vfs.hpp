#pragma once

// An SQLite VFS for the recorder's own connections: SQLite's default VFS, except that every
// few writes it gives the core to a thread waiting for it (yieldToWaitingThreads()).
//
// A commit writes every page its transaction touched into the WAL, and a checkpoint copies
// thousands of pages into the database file, each in one call that no statement boundary
// interrupts: milliseconds of CPU in which a relaying thread woken behind the capture, the
// index or the checkpointer waits for the core (docs/schema.md, "How the recorder writes").

#include <cstdint>

namespace agentvcr::store::detail {

/// Writes between two yields: a WAL frame is two writes (its header, its page), so about eight
/// pages, some tens of microseconds of copying.
inline constexpr std::uint64_t kWritesBetweenYields = 16;

/// The VFS's name for SQLite::Database's `aVfs`, registered (not as the default) on first use.
/// Throws std::runtime_error "[store.open]" if SQLite has no default VFS to wrap.
const char* yieldingVfsName();

/// Yields the VFS has made so far, in this process.
std::uint64_t yieldingVfsYields();

/// While one lives, the calling thread's writes do not yield: the capture's when it has fallen
/// behind, since the relaying threads are about to wait for it (a full queue).
class WritesKeepTheCore {
 public:
  WritesKeepTheCore();
  ~WritesKeepTheCore();
  WritesKeepTheCore(const WritesKeepTheCore&) = delete;
  WritesKeepTheCore& operator=(const WritesKeepTheCore&) = delete;

 private:
  bool kept_before_;
};

}  // namespace agentvcr::store::detail
