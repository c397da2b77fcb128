#include "wal_checkpointer.hpp"

#include <string>

#include <sqlite3.h>

#include "agentvcr/store/background_thread.hpp"
#include "archive_writer.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

WalCheckpointer::WalCheckpointer(const std::string& path, SQLite::Database& writer,
                                 std::chrono::milliseconds busy_timeout)
    : writer_(writer.getHandle()),
      own_(openDatabase(path, SQLite::OPEN_READWRITE, busy_timeout, Vfs::Yielding)) {
  // A connection opens the file lazily: until it has read from it, a checkpoint on it finds no
  // WAL and does nothing.
  own_.execAndGet("PRAGMA journal_mode");
  thread_ = std::thread([this] { run(); });
  sqlite3_wal_hook(writer_, &WalCheckpointer::onCommit, this);
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_autocheckpoint(writer_, kCheckpointPages);  // also removes our hook
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

int WalCheckpointer::onCommit(void* self, sqlite3* db, const char* schema, int wal_pages) {
  // Runs inside the writer's commit: usually it only notes that a checkpoint is due.
  if (wal_pages >= kInlineCheckpointPages) {
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  } else if (wal_pages >= kCheckpointPages) {
    auto* checkpointer = static_cast<WalCheckpointer*>(self);
    {
      std::lock_guard<std::mutex> lock(checkpointer->mutex_);
      checkpointer->wanted_ = true;
    }
    checkpointer->wake_.notify_one();
  }
  return SQLITE_OK;
}

void WalCheckpointer::run() noexcept {
  nameThisThread("avcr-checkpoint");
  lowerThisThreadsPriority();
  bool behind = false;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto due = [&] { return wanted_ || stopping_; };
      if (behind) {
        wake_.wait_for(lock, kRetryAfter, due);  // retry on its own, sooner if woken
      } else {
        wake_.wait(lock, due);
      }
      if (stopping_) {
        return;
      }
      wanted_ = false;
    }
    int wal_frames = 0;
    int copied_frames = 0;
    const int rc = sqlite3_wal_checkpoint_v2(own_.getHandle(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                             &wal_frames, &copied_frames);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
      // The WAL keeps growing until a later checkpoint (or the last close) succeeds.
      logLine(std::string("[store.checkpoint] WAL checkpoint failed: ") +
              sqlite3_errmsg(own_.getHandle()));
    }
    // A reader's snapshot (the index thread loading rows) stops a PASSIVE checkpoint short;
    // no commit may come to ask again, so try again shortly while a large WAL is left behind.
    behind = rc == SQLITE_BUSY ||
             (wal_frames >= kCheckpointPages && copied_frames >= 0 && copied_frames < wal_frames);
  }
}

}  // namespace agentvcr::store::detail
