#include "session_lock.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <fcntl.h>
#include <unistd.h>

#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

/// The lock request for the byte that stands for `session_id`.
struct flock claimOn(std::int64_t session_id, short type) {
  struct flock claim {};

  claim.l_type = type;
  claim.l_whence = SEEK_SET;
  claim.l_start = static_cast<off_t>(session_id);
  claim.l_len = 1;
  return claim;
}

}  // namespace

std::string sessionLockPath(const std::string& archive_path) {
  return archive_path + "-sessions";
}

SessionLock::SessionLock(const std::string& archive_path, std::int64_t session_id, Kind kind) {
  const std::string path = sessionLockPath(archive_path);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("[store.lock] cannot open " + path + ": " + std::strerror(errno));
  }
  // A recorder's write lock conflicts with every other claim; a rewrite's read lock only with
  // a recorder's, so that sessionRecorded(), which asks about write locks alone, never takes a
  // reindex for a recorder.
  struct flock claim = claimOn(session_id, kind == Kind::Recording ? F_WRLCK : F_RDLCK);
  if (::fcntl(fd_, F_OFD_SETLK, &claim) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EAGAIN || err == EACCES) {
      throw std::runtime_error("[store.lock] session " + std::to_string(session_id) +
                               " is being recorded");
    }
    throw std::runtime_error("[store.lock] cannot lock " + path + ": " + std::strerror(err));
  }
}

SessionLock::~SessionLock() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

std::optional<bool> sessionRecorded(const std::string& archive_path, std::int64_t session_id) {
  const int fd = ::open(sessionLockPath(archive_path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return errno == ENOENT ? std::optional<bool>(false) : std::nullopt;
  }
  // F_RDLCK: the question is whether a write lock, a recorder's, stands in the way of a read.
  struct flock question = claimOn(session_id, F_RDLCK);
  const bool asked = ::fcntl(fd, F_OFD_GETLK, &question) == 0;
  ::close(fd);
  if (!asked) {
    return std::nullopt;
  }
  return question.l_type != F_UNLCK;
}

SessionState unendedSessionState(SQLite::Database& db, const std::string& archive_path,
                                 std::int64_t session_id, std::optional<std::int64_t>& ended_ns) {
  const std::optional<bool> recorded = sessionRecorded(archive_path, session_id);
  if (!recorded) {
    return SessionState::Unknown;
  }
  if (*recorded) {
    return SessionState::Running;
  }
  SQLite::Statement q(db, "SELECT ended_ns FROM sessions WHERE id = :id");
  bindInt(q, ":id", session_id);
  if (q.executeStep() && !q.getColumn(0).isNull()) {
    ended_ns = q.getColumn(0).getInt64();
    return SessionState::Ended;
  }
  return SessionState::Interrupted;
}

}  // namespace agentvcr::store::detail
