#include "session_lock.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace agentvcr::store::detail {

std::string sessionLockPath(const std::string& archive_path) {
  return archive_path + "-sessions";
}

SessionLock::SessionLock(const std::string& archive_path, std::int64_t session_id) {
  const std::string path = sessionLockPath(archive_path);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("[store.lock] cannot open " + path + ": " + std::strerror(errno));
  }

  // Open-file-description locks: unlike classic POSIX locks they conflict between two opens in
  // one process and are not dropped when some other descriptor of the file is closed.
  struct flock claim {};

  claim.l_type = F_WRLCK;
  claim.l_whence = SEEK_SET;
  claim.l_start = static_cast<off_t>(session_id);
  claim.l_len = 1;
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

}  // namespace agentvcr::store::detail
