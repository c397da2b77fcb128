#include "agentvcr/replay/recorded_queue.hpp"

#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

TEST(RecordedQueues, ServesInRecordedOrderThenRepeatsTheLast) {
  RecordedQueues<std::string> queues;
  queues.add(7, "first");
  queues.add(7, "second");
  queues.add(7, "third");
  EXPECT_EQ(queues.take(7), "first");
  EXPECT_EQ(queues.take(7), "second");
  EXPECT_EQ(queues.take(7), "third");
  EXPECT_EQ(queues.take(7), "third");
  EXPECT_EQ(queues.take(7), "third");
}

TEST(RecordedQueues, ARewindServesEveryKeyFromItsFirstItemAgain) {
  RecordedQueues<std::string> queues;
  queues.add(7, "first");
  queues.add(7, "second");
  queues.add(8, "only");
  EXPECT_EQ(queues.take(7), "first");
  EXPECT_EQ(queues.take(7), "second");
  EXPECT_EQ(queues.take(8), "only");
  queues.rewind();
  EXPECT_EQ(queues.take(7), "first");
  EXPECT_EQ(queues.take(8), "only");
  EXPECT_EQ(queues.take(7), "second");
  EXPECT_EQ(queues.take(7), "second");
}

TEST(RecordedQueues, EachScopeWalksTheRecordingOnItsOwn) {
  RecordedQueues<std::string> queues;
  queues.add(7, "first");
  queues.add(7, "second");
  EXPECT_EQ(queues.take(7, "a"), "first");
  EXPECT_EQ(queues.take(7, "a"), "second");
  EXPECT_EQ(queues.take(7, "b"), "first");
  EXPECT_EQ(queues.take(7), "first") << "the shared cursor never moved";
  queues.rewind("a");
  EXPECT_EQ(queues.take(7, "a"), "first");
  EXPECT_EQ(queues.take(7, "b"), "second") << "another scope's rewind leaves b alone";
  queues.rewind();
  EXPECT_EQ(queues.take(7, "b"), "first");
  EXPECT_EQ(queues.take(7), "first");
  EXPECT_EQ(queues.take(8, "a"), std::nullopt);
}

TEST(RecordedQueues, AScopeServesWhatWasRecordedInItFirstThenTheUnscopedThenTheOthers) {
  RecordedQueues<std::string> queues;
  queues.add(7, "b1", "b");
  queues.add(7, "shared1");
  queues.add(7, "a1", "a");
  queues.add(7, "b2", "b");
  queues.add(7, "a2", "a");
  queues.add(7, "shared2");
  for (const char* expected : {"a1", "a2", "shared1", "shared2", "b1", "b2", "b2"}) {
    EXPECT_EQ(queues.take(7, "a"), expected);
  }
  for (const char* expected : {"b1", "b2", "shared1", "shared2", "a1", "a2"}) {
    EXPECT_EQ(queues.take(7, "b"), expected);
  }
  for (const char* expected : {"shared1", "shared2", "b1", "a1", "b2", "a2"}) {
    EXPECT_EQ(queues.take(7, "c"), expected) << "a scope nothing was recorded in";
  }
  for (const char* expected : {"b1", "shared1", "a1", "b2", "a2", "shared2", "shared2"}) {
    EXPECT_EQ(queues.take(7), expected) << "no scope: every item in recorded order";
  }
  queues.rewind("a");
  EXPECT_EQ(queues.take(7, "a"), "a1");
}

TEST(RecordedQueues, ScopedItemsUnderOneKeyLeaveOtherKeysInRecordedOrder) {
  RecordedQueues<int> queues;
  queues.add(1, 10);
  queues.add(1, 11);
  queues.add(2, 20, "a");
  EXPECT_EQ(queues.take(1, "a"), 10);
  EXPECT_EQ(queues.take(1, "a"), 11);
  EXPECT_EQ(queues.take(2, "b"), 20);
}

TEST(RecordedQueues, ASingleItemIsServedEveryTime) {
  RecordedQueues<int> queues;
  queues.add(1, 42);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(queues.take(1), 42);
  }
}

TEST(RecordedQueues, AnUnknownKeyGivesNothing) {
  RecordedQueues<int> queues;
  EXPECT_EQ(queues.take(1), std::nullopt);
  queues.add(1, 10);
  EXPECT_EQ(queues.take(2), std::nullopt);
  EXPECT_EQ(queues.take(0), std::nullopt);
  EXPECT_EQ(queues.take(1), 10);
}

TEST(RecordedQueues, KeysHaveIndependentCursors) {
  RecordedQueues<int> queues;
  queues.add(1, 10);
  queues.add(2, 20);
  queues.add(1, 11);
  queues.add(2, 21);
  queues.add(2, 22);
  EXPECT_EQ(queues.take(2), 20);
  EXPECT_EQ(queues.take(1), 10);
  EXPECT_EQ(queues.take(2), 21);
  EXPECT_EQ(queues.take(1), 11);
  EXPECT_EQ(queues.take(1), 11);
  EXPECT_EQ(queues.take(2), 22);
  EXPECT_EQ(queues.take(2), 22);
}

TEST(RecordedQueues, ItemsAddedAfterTheQueueRanOutAreServedNext) {
  RecordedQueues<int> queues;
  queues.add(1, 10);
  EXPECT_EQ(queues.take(1), 10);
  EXPECT_EQ(queues.take(1), 10);
  queues.add(1, 11);
  EXPECT_EQ(queues.take(1), 11);
  EXPECT_EQ(queues.take(1), 11);
}

TEST(RecordedQueues, TheSameTakesGiveTheSameItems) {
  auto run = [] {
    RecordedQueues<int> queues;
    for (int i = 0; i < 4; ++i) {
      queues.add(static_cast<std::uint64_t>(i % 2), i);
    }
    std::string served;
    for (std::uint64_t key : {0u, 0u, 1u, 0u, 1u, 1u, 2u}) {
      served += std::to_string(queues.take(key).value_or(-1)) + ",";
    }
    return served;
  };
  EXPECT_EQ(run(), "0,2,1,2,3,3,-1,");
  EXPECT_EQ(run(), run());
}

TEST(RecordedQueues, KeyCountCountsDistinctKeys) {
  RecordedQueues<int> queues;
  EXPECT_EQ(queues.keyCount(), 0u);
  queues.add(5, 1);
  queues.add(5, 2);
  EXPECT_EQ(queues.keyCount(), 1u);
  queues.add(6, 3);
  EXPECT_EQ(queues.keyCount(), 2u);
  queues.take(5);
  queues.take(99);
  EXPECT_EQ(queues.keyCount(), 2u);
}

}  // namespace
}  // namespace agentvcr::replay
