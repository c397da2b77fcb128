#pragma once

#include <pthread.h>

namespace agentvcr::store::detail {

/// Names the calling thread so `top -H`, `perf` and debuggers tell the recorder's threads
/// apart. Linux keeps at most 15 characters; a longer name is left unset.
inline void nameThisThread(const char* name) noexcept {
  pthread_setname_np(pthread_self(), name);
}

}  // namespace agentvcr::store::detail
