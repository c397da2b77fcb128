#pragma once

// Which sessions a recorder is writing right now. A recorder holds an open-file-description
// lock on one byte of the archive's `-sessions` sidecar file, at the offset of its session id,
// for as long as it is open; the kernel drops it when the recorder closes or its process dies,
// so a crashed recorder never leaves a session looking open.

#include <cstdint>
#include <string>

namespace agentvcr::store::detail {

/// The sidecar file whose bytes stand for the sessions of the archive at `archive_path`.
std::string sessionLockPath(const std::string& archive_path);

/// An exclusive claim on one session of an archive, released on destruction.
class SessionLock {
 public:
  /// Takes the claim; throws std::runtime_error when another holder has it ("being recorded")
  /// or the sidecar file cannot be opened.
  SessionLock(const std::string& archive_path, std::int64_t session_id);
  ~SessionLock();
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace agentvcr::store::detail
