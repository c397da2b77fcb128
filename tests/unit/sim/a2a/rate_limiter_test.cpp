#include "agentvcr/sim/a2a/rate_limiter.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using namespace std::chrono_literals;
using testing::kStart;

TEST(RateLimiter, FixedWindowRefusesTheSixteenthCallAndResetsWhenTheWindowCloses) {
  RateLimiter limiter(RateLimits{});
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + std::chrono::seconds(i)), std::nullopt)
        << "call " << i;
  }
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 20s), 40);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 59s), 1);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 59s + 500ms), 1) << "rounded up";
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 60s), std::nullopt);
  for (int i = 1; i < 15; ++i) {
    EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 61s), std::nullopt);
  }
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 61s), 59);
}

TEST(RateLimiter, RetryAfterRoundsUpToWholeSeconds) {
  RateLimiter limiter(RateLimits{{1, 60s}, {1, 60s}, WindowKind::Fixed});
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 100ms), 60);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 58s + 1ms), 2);
}

TEST(RateLimiter, ExpensiveTierHasItsOwnStricterPoolAndCountsInTheDefaultOne) {
  RateLimiter limiter(RateLimits{});
  EXPECT_EQ(limiter.admit("alice", Tier::Expensive, kStart), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Expensive, kStart + 10s), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Expensive, kStart + 15s), 45);
  // The default pool still has 13 places: the two expensive calls took two of the fifteen.
  for (int i = 0; i < 13; ++i) {
    EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 20s), std::nullopt) << i;
  }
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 20s), 40);
  EXPECT_EQ(limiter.admit("alice", Tier::Expensive, kStart + 60s), std::nullopt);
}

TEST(RateLimiter, CountsEachUserApart) {
  RateLimiter limiter(RateLimits{{1, 60s}, {1, 60s}, WindowKind::Fixed});
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart), std::nullopt);
  EXPECT_EQ(limiter.admit("bob", Tier::Default, kStart), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart), 60);
  EXPECT_EQ(limiter.admit("bob", Tier::Default, kStart + 30s), 30);
}

TEST(RateLimiter, SlidingWindowFreesOneSlotAtATime) {
  RateLimiter limiter(RateLimits{{3, 60s}, {1, 60s}, WindowKind::Sliding});
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 10s), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 20s), std::nullopt);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 30s), 30);
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 60s), std::nullopt)
      << "the first call aged out";
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 61s), 9)
      << "the next slot frees when the call at 10 s ages out";
  EXPECT_EQ(limiter.admit("alice", Tier::Default, kStart + 70s), std::nullopt);
}

TEST(RateLimiter, FixedWindowDiffersFromSlidingAtTheBoundary) {
  RateLimiter fixed(RateLimits{{2, 60s}, {1, 60s}, WindowKind::Fixed});
  RateLimiter sliding(RateLimits{{2, 60s}, {1, 60s}, WindowKind::Sliding});
  for (RateLimiter* limiter : {&fixed, &sliding}) {
    EXPECT_EQ(limiter->admit("a", Tier::Default, kStart), std::nullopt);
    EXPECT_EQ(limiter->admit("a", Tier::Default, kStart + 50s), std::nullopt);
  }
  EXPECT_EQ(fixed.admit("a", Tier::Default, kStart + 60s), std::nullopt);
  EXPECT_EQ(fixed.admit("a", Tier::Default, kStart + 60s), std::nullopt);
  EXPECT_EQ(sliding.admit("a", Tier::Default, kStart + 60s), std::nullopt);
  EXPECT_EQ(sliding.admit("a", Tier::Default, kStart + 60s), 50);
}

TEST(RateLimiter, RefusesPoolsThatAllowNothing) {
  EXPECT_THROW(RateLimiter(RateLimits{{0, 60s}, {2, 60s}, WindowKind::Fixed}),
               std::invalid_argument);
  EXPECT_THROW(RateLimiter(RateLimits{{15, 60s}, {2, 0s}, WindowKind::Fixed}),
               std::invalid_argument);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
