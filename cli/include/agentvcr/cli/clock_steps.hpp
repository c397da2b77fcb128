#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

/// A recorded clock that steps on a schedule, for tests of what `agentvcr record` does when the
/// wall clock jumps (an NTP correction, an operator): set AGENTVCR_TEST_CLOCK_STEPS to
/// `AFTER_MS:STEP_MS[,AFTER_MS:STEP_MS…]` and, AFTER_MS after the command started, the clock the
/// recorder and the relay read moves by STEP_MS (negative: back). Read only when set; for tests
/// (docs/hardening.md), never for a recording anyone keeps.
namespace agentvcr::cli {

/// The environment variable `record` reads its clock steps from.
inline constexpr const char* kClockStepsVariable = "AGENTVCR_TEST_CLOCK_STEPS";

struct ClockStep {
  std::chrono::milliseconds after{0};  ///< since the clock was made, by the steady clock
  std::chrono::milliseconds by{0};     ///< how far the wall clock moves then

  bool operator==(const ClockStep&) const = default;
};

/// Parses `AFTER_MS:STEP_MS[,…]`. Throws std::invalid_argument naming the offending item: not
/// two integers, a negative AFTER_MS, or steps out of order.
std::vector<ClockStep> parseClockSteps(std::string_view text);

/// protocol::nowNs() moved by every step whose time has come, counted from this call.
std::function<std::int64_t()> steppedClock(std::vector<ClockStep> steps);

}  // namespace agentvcr::cli
