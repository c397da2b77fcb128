#pragma once

#include <memory>

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

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::cli
