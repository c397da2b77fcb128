#pragma once

// WAL checkpoints off the recorder's path. SQLite's automatic checkpoint runs inside the commit
// that grows the WAL past its threshold, on the committing connection: the capture thread would
// then copy pages into the database file and sync it while relayed exchanges queue up behind
// it. The recorder's connection hands that work to this thread instead, which checkpoints on a
// connection of its own in PASSIVE mode (writers keep appending meanwhile).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <SQLiteCpp/Database.h>

struct sqlite3;

namespace agentvcr::store::detail {

/// WAL pages after which a checkpoint is asked for: four times SQLite's default. The index
/// thread rewrites the same b-tree pages commit after commit, and each checkpoint copies every
/// page once however often the WAL holds it, so a longer WAL copies fewer pages per exchange
/// (paired runs: checkpoint CPU -28%, relayed throughput unchanged).
inline constexpr int kCheckpointPages = 4000;

/// WAL pages after which the committing connection checkpoints itself. A checkpoint running
/// beside a busy writer never reaches the WAL's end, and only a complete one lets the WAL start
/// over: this one has little left to copy, since the background ones did most of it.
inline constexpr int kInlineCheckpointPages = 4 * kCheckpointPages;

/// How soon a checkpoint stopped short is tried again.
inline constexpr std::chrono::milliseconds kRetryAfter{20};

class WalCheckpointer {
 public:
  /// Opens its own connection to `path` and takes over `writer`'s checkpoints (its automatic
  /// checkpoint is replaced by a hook that wakes this thread). Throws std::runtime_error
  /// "[store.open]" when the connection cannot be opened.
  WalCheckpointer(const std::string& path, SQLite::Database& writer,
                  std::chrono::milliseconds busy_timeout);
  /// Gives the writer its automatic checkpoint back, stops the thread and closes its
  /// connection; the writer's last close checkpoints the rest.
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

 private:
  static int onCommit(void* self, struct sqlite3* db, const char* schema, int wal_pages);
  void run() noexcept;

  sqlite3* writer_;
  SQLite::Database own_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool wanted_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace agentvcr::store::detail
