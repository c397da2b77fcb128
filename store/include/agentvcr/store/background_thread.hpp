#pragma once

#include <algorithm>
#include <cerrno>

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

/// Thread names and priorities for the work that runs beside the relay and can wait.
namespace agentvcr::store {

/// Names the calling thread so `top -H`, `perf` and debuggers tell the recorder's threads
/// apart. Linux keeps at most 15 characters; a longer name is left unset.
inline void nameThisThread(const char* name) noexcept {
  pthread_setname_np(pthread_self(), name);
}

/// How much nicer than the process the threads whose work can wait run: the index catch-up
/// and the WAL checkpointer. Relaying threads preempt them as soon as they wake, so on a
/// saturated machine a request no longer waits out their time slice. Not the full 19: the
/// index thread holds the connection the capture needs while it writes, and at this weight it
/// still gets about a tenth of a contended core, which bounds how long it can hold it.
inline constexpr int kBackgroundNiceIncrement = 10;

/// Lowers the calling thread's scheduling priority by `increment` (Linux nice values are per
/// thread, and never go past 19). Lowering needs no privilege; should it fail, the thread keeps
/// the process's priority, which is only slower.
inline void lowerThisThreadsPriority(int increment = kBackgroundNiceIncrement) noexcept {
  const auto thread = static_cast<id_t>(gettid());
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, thread);
  if (errno == 0) {
    setpriority(PRIO_PROCESS, thread, std::min(nice + increment, 19));
  }
}

/// Gives the calling thread's core to a thread that is ready to run on it, if any; returns at
/// once otherwise. The capture, decoding and index threads call it after each exchange they
/// handle (RecorderOptions::between_exchanges). Without it the scheduler lets each of them run a
/// whole time slice once it has the core, and a relaying thread woken behind one of them waits
/// it out: the milliseconds at the tail of a recorded request's latency (bench/README.md).
/// Neither priority nor niceness does it: a nicer thread still keeps the core for its slice.
inline void yieldToWaitingThreads() noexcept {
  sched_yield();
}

}  // namespace agentvcr::store
