#pragma once

#include <chrono>
#include <thread>

namespace agentvcr::testing {

/// Polls `condition` every `step` until it holds or `limit` has passed, and says whether it
/// held. For waiting on what another thread or process does: the limit is generous so that a
/// loaded machine does not fail the test, the step short so that a fast one does not wait.
template <class Condition>
bool waitUntil(Condition&& condition, std::chrono::milliseconds limit = std::chrono::seconds(10),
               std::chrono::milliseconds step = std::chrono::milliseconds(2)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(step);
  }
  return true;
}

}  // namespace agentvcr::testing
