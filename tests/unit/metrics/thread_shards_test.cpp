#include "agentvcr/metrics/thread_shards.hpp"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace agentvcr::metrics {
namespace {

struct Tally {
  Count count;
};

std::uint64_t total(const ThreadShards<Tally>& shards) {
  std::uint64_t sum = 0;
  shards.forEach([&](const Tally& tally) { sum += tally.count.read(); });
  return sum;
}

TEST(ThreadShards, EachThreadCountsInItsOwnShardAndTheSumIsExact) {
  ThreadShards<Tally> shards;
  constexpr int kThreads = 8;
  constexpr int kAdds = 100'000;
  std::vector<std::thread> threads;
  std::vector<Tally*> seen(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAdds; ++i) {
        shards.local().count.add();
      }
      seen[static_cast<std::size_t>(t)] = &shards.local();
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(total(shards), std::uint64_t{kThreads} * kAdds);
  for (int a = 0; a < kThreads; ++a) {
    for (int b = a + 1; b < kThreads; ++b) {
      EXPECT_NE(seen[static_cast<std::size_t>(a)], seen[static_cast<std::size_t>(b)]);
    }
  }
}

TEST(ThreadShards, ReadsWhileThreadsWriteAndKeepsCountsOfEndedThreads) {
  ThreadShards<Tally> shards;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 200'000; ++i) {
      shards.local().count.add(2);
    }
    done = true;
  });
  std::uint64_t last = 0;
  while (!done) {
    const std::uint64_t now = total(shards);
    EXPECT_GE(now, last);  // a scrape never sees a count go back
    last = now;
  }
  writer.join();
  EXPECT_EQ(total(shards), 400'000u);
}

TEST(ThreadShards, ANewOwnerNeverInheritsTheShardOfAnEarlierOne) {
  for (int round = 0; round < 3; ++round) {
    // Built at the same address each round: the thread's cached shard must not carry over.
    auto shards = std::make_unique<ThreadShards<Tally>>();
    shards->local().count.add(5);
    EXPECT_EQ(total(*shards), 5u);
  }
}

}  // namespace
}  // namespace agentvcr::metrics
