#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentvcr::sim::a2a {

using TimePoint = std::chrono::system_clock::time_point;

/// The one source of time of the mock: status timestamps, quota windows and task expiry all
/// read it, so a test that moves it moves all three together.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

/// The wall clock's time at start, moved on by the steady clock: the command line's clock.
/// Quota windows and task expiry are measured on it, and a step of the wall clock (NTP, an
/// operator) must move neither; the timestamps it gives drift from the wall clock by that step.
class SystemClock final : public Clock {
 public:
  /// `wall`: where the time at start is read (a test steps its own).
  explicit SystemClock(const std::function<TimePoint()>& wall = std::chrono::system_clock::now)
      : start_(wall()), started_(std::chrono::steady_clock::now()) {}

  TimePoint now() const override {
    return start_ + std::chrono::duration_cast<TimePoint::duration>(
                        std::chrono::steady_clock::now() - started_);
  }

 private:
  TimePoint start_;
  std::chrono::steady_clock::time_point started_;
};

/// A clock that moves only when told, so tests advance it instead of sleeping.
/// Thread-safe: a test may move it while server threads read it.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start) : nanoseconds_(toNanoseconds(start)) {}

  TimePoint now() const override;

  void advance(std::chrono::nanoseconds by) { nanoseconds_ += by.count(); }

  void set(TimePoint to) { nanoseconds_ = toNanoseconds(to); }

 private:
  static std::int64_t toNanoseconds(TimePoint when);

  std::atomic<std::int64_t> nanoseconds_;
};

/// ISO 8601 in UTC with milliseconds, as A2A servers write `status.timestamp`:
/// "2025-01-01T00:00:00.000Z".
std::string isoTimestamp(TimePoint when);

/// An HTTP date (RFC 9110 §5.6.7), as Last-Modified carries it: "Wed, 01 Jan 2025 00:00:00 GMT".
std::string httpDate(TimePoint when);

/// Reads an RFC 3339 timestamp: "2025-01-01T00:00:00Z", with optional fractional seconds and
/// a "Z" or "+HH:MM"/"-HH:MM" offset; a lower-case "t" or "z" is accepted too. nullopt for
/// anything else, including dates that do not exist.
std::optional<TimePoint> parseIsoTimestamp(std::string_view text);

}  // namespace agentvcr::sim::a2a
