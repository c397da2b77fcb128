// The recorded clock `agentvcr record` steps for tests (AGENTVCR_TEST_CLOCK_STEPS): the schedule
// as written, refused with the offending item when it is not one, and the steps taken in time.

#include "agentvcr/cli/clock_steps.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::cli {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

TEST(ClockStepsTest, AScheduleIsReadInOrder) {
  const std::vector<ClockStep> expected = {{0ms, -60000ms}, {1500ms, 60000ms}, {1500ms, 5ms}};
  EXPECT_EQ(parseClockSteps("0:-60000,1500:60000,1500:5"), expected);
  EXPECT_TRUE(parseClockSteps("").empty());
}

TEST(ClockStepsTest, ABadItemIsNamed) {
  for (const std::string bad : {"60000", "a:1", "1:b", "-1:5", "1:5,", "1:5,,2:3", "2:1,1:1",
                                "1:5 ", "1:99999999999999999999"}) {
    try {
      parseClockSteps(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr("AGENTVCR_TEST_CLOCK_STEPS")) << bad;
    }
  }
}

TEST(ClockStepsTest, TheClockStepsWhenEachStepsTimeHasCome) {
  const auto clock = steppedClock({{0ms, -3'600'000ms}, {200ms, 3'600'000ms}});
  const std::int64_t hour_ns = std::chrono::nanoseconds(1h).count();
  const std::int64_t back = protocol::nowNs() - clock();
  EXPECT_GT(back, hour_ns - std::chrono::nanoseconds(1s).count());
  EXPECT_LT(back, hour_ns + std::chrono::nanoseconds(1s).count());
  std::this_thread::sleep_for(300ms);
  const std::int64_t now = protocol::nowNs();
  EXPECT_LT(std::abs(clock() - now), std::chrono::nanoseconds(1s).count());
}

}  // namespace
}  // namespace agentvcr::cli
