#include "agentvcr/sim/a2a/clock.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using namespace std::chrono_literals;
using testing::kStart;

TEST(SystemClockTest, AStepOfTheWallClockMovesNoWindowOrExpiry) {
  // Quota windows and task expiry are measured on this clock: a wall clock stepped back a
  // minute (NTP, an operator) must not hold a window open a minute longer, nor one stepped
  // forward expire a task early.
  std::atomic<std::int64_t> step_ns{0};
  const SystemClock clock([&] { return kStart + std::chrono::nanoseconds(step_ns.load()); });
  const TimePoint first = clock.now();
  EXPECT_GE(first, kStart) << "the wall clock's time, at start";
  EXPECT_LT(first - kStart, 5s);
  step_ns = -std::chrono::nanoseconds(1min).count();
  const TimePoint after_back = clock.now();
  EXPECT_GE(after_back, first);
  EXPECT_LT(after_back - first, 5s);
  step_ns = std::chrono::nanoseconds(1h).count();
  EXPECT_LT(clock.now() - first, 5s);
}

TEST(IsoTimestamp, WritesUtcWithMilliseconds) {
  EXPECT_EQ(isoTimestamp(kStart), "2025-01-01T00:00:00.000Z");
  EXPECT_EQ(isoTimestamp(kStart + 23h + 59min + 59s + 999ms + 999us), "2025-01-01T23:59:59.999Z");
  EXPECT_EQ(isoTimestamp(kStart + 24h * 59 + 7ms), "2025-03-01T00:00:00.007Z");
  EXPECT_EQ(isoTimestamp(TimePoint{}), "1970-01-01T00:00:00.000Z");
}

TEST(IsoTimestamp, ReadsRfc3339WithFractionsAndOffsets) {
  EXPECT_EQ(parseIsoTimestamp("2025-01-01T00:00:00Z"), kStart);
  EXPECT_EQ(parseIsoTimestamp("2025-01-01t00:00:00.25z"), kStart + 250ms);
  EXPECT_EQ(parseIsoTimestamp("2025-01-01T02:30:00+02:30"), kStart);
  EXPECT_EQ(parseIsoTimestamp("2024-12-31T23:00:00-01:00"), kStart);
  EXPECT_EQ(parseIsoTimestamp(isoTimestamp(kStart + 1234ms)), kStart + 1234ms);
  for (const char* bad : {"", "2025-01-01", "2025-01-01T00:00:00", "2025-02-30T00:00:00Z",
                          "2025-01-01T24:00:00Z", "2025-01-01T00:00:00.Z", "2025-01-01T00:00:00Zx",
                          "2025-01-01 00:00:00Z", "2025-01-01T00:00:00+0200"}) {
    EXPECT_FALSE(parseIsoTimestamp(bad)) << bad;
  }
}

TEST(WireVersion, ReadsMajorMinorWithAnOptionalPatch) {
  EXPECT_EQ(versionFromText("1.0"), WireVersion::V10);
  EXPECT_EQ(versionFromText(" 1.0.2 "), WireVersion::V10);
  EXPECT_EQ(versionFromText("0.3"), WireVersion::V03);
  EXPECT_EQ(versionFromText("0.3.0"), WireVersion::V03);
  for (const char* other : {"", "1", "1.1", "10.0", "1.0.", "1.0.x", "0.2.6", "2.0"}) {
    EXPECT_FALSE(versionFromText(other)) << other;
  }
}

TEST(ManualClock, MovesOnlyWhenTold) {
  ManualClock clock(kStart);
  EXPECT_EQ(clock.now(), kStart);
  clock.advance(90s);
  EXPECT_EQ(clock.now(), kStart + 90s);
  clock.set(kStart);
  EXPECT_EQ(clock.now(), kStart);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
