#pragma once

// Which sessions a recorder is writing right now. A recorder holds an open-file-description
// lock on one byte of the archive's `-sessions` sidecar file, at the offset of its session id,
// for as long as it is open; the kernel drops it when the recorder closes or its process dies,
// so a crashed recorder never leaves a session looking open.
//
// Why a lock and not a pid file, a heartbeat or `sessions.ended_ns`: the kernel releases it
// however the process ends (SIGKILL, the OOM killer, a crash), no reused pid can pass for the
// recorder, and no clock is read. Why a sidecar and not the archive: SQLite takes and drops
// POSIX locks on the archive itself, and a classic POSIX lock is dropped when any descriptor of
// its file closes. Why open-file-description locks: unlike classic POSIX locks they conflict
// between two opens in one process, so a reader in the recorder's own process sees its claim.

#include <cstdint>
#include <optional>
#include <string>

#include "agentvcr/store/rows.hpp"

namespace SQLite {
class Database;
}

namespace agentvcr::store::detail {

/// The sidecar file whose bytes stand for the sessions of the archive at `archive_path`.
std::string sessionLockPath(const std::string& archive_path);

/// A claim on one session of an archive, released on destruction.
class SessionLock {
 public:
  enum class Kind {
    Recording,  ///< a recorder writing the session: exclusive, what sessionRecorded() sees
    Rewriting,  ///< `agentvcr reindex`: excludes a recorder, not a reader asking about one
  };

  /// Takes the claim; throws std::runtime_error when a recorder holds the session ("being
  /// recorded") or the sidecar file cannot be opened.
  SessionLock(const std::string& archive_path, std::int64_t session_id,
              Kind kind = Kind::Recording);
  ~SessionLock();
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

 private:
  int fd_ = -1;
};

/// Whether a recorder holds session `session_id` of the archive at `archive_path` right now;
/// nullopt when that cannot be known (the sidecar exists but cannot be read). Without a sidecar
/// no recorder ever claimed a session of the archive, so none holds one.
std::optional<bool> sessionRecorded(const std::string& archive_path, std::int64_t session_id);

/// The state of a session that `db` read without an end: Running while its recorder holds the
/// lock, Unknown when the lock cannot be asked, else Ended or Interrupted as a fresh read of its
/// end says. A recorder commits its end before it lets the lock go, so a free lock and still no
/// end mean that it died first. `ended_ns` receives the end a fresh read finds. Ask outside a
/// read transaction of `db`: its snapshot may be older than the end.
SessionState unendedSessionState(SQLite::Database& db, const std::string& archive_path,
                                 std::int64_t session_id, std::optional<std::int64_t>& ended_ns);

}  // namespace agentvcr::store::detail
