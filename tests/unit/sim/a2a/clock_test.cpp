#include "agentvcr/sim/a2a/clock.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using namespace std::chrono_literals;
using testing::kStart;

TEST(IsoTimestamp, WritesUtcWithMilliseconds) {
  EXPECT_EQ(isoTimestamp(kStart), "2025-01-01T00:00:00.000Z");
  EXPECT_EQ(isoTimestamp(kStart + 23h + 59min + 59s + 999ms + 999us), "2025-01-01T23:59:59.999Z");
  EXPECT_EQ(isoTimestamp(kStart + 24h * 59 + 7ms), "2025-03-01T00:00:00.007Z");
  EXPECT_EQ(isoTimestamp(TimePoint{}), "1970-01-01T00:00:00.000Z");
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
