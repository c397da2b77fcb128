#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string_view>

namespace agentvcr::cli {

/// Catches SIGINT and SIGTERM from its construction on, so that a stop asked for while a
/// server is still starting (right after its ready file appears, say) is a clean stop and not
/// the default disposition killing the process. Construct it before starting anything.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// Blocks until SIGINT or SIGTERM has arrived (at once if one came earlier) and returns it,
  /// or until interrupt() is called, and then returns 0.
  int wait();

  /// Ends a wait() in progress, or the next one, with 0: the work the caller waited beside has
  /// ended on its own. Safe from any thread.
  void interrupt();

  /// Runs `stop` (a drain, after the first signal) on this thread. A signal that comes meanwhile
  /// calls `hurry` with its number, from another thread: what makes `stop` return at once. A
  /// second Ctrl-C must not wait out the drain.
  void whileStopping(const std::function<void()>& stop, const std::function<void(int)>& hurry);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// How a serving command stops once `signal` came: it says so on `out` as `command`, runs
/// `stop` (which drains for up to `drain`), and calls `cut_now` at once if another signal comes
/// meanwhile, saying so too (the exchanges then cut name themselves on stderr).
void drainAfterSignal(StopSignals& signals, int signal, std::ostream& out, std::string_view command,
                      std::chrono::milliseconds drain, const std::function<void()>& stop,
                      const std::function<void()>& cut_now);

}  // namespace agentvcr::cli
