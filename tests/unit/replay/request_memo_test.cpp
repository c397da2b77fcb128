// Tests of RequestMemo (request_memo.hpp): lookups compare the whole masked request, the least
// recently used entries leave first once the byte budget is spent (masked size + value bytes +
// 128 per entry), an entry larger than the budget is not kept, a key already there keeps its
// first value, the stats count exactly, and finds and inserts from several threads at once
// leave it consistent.

#include "agentvcr/replay/request_memo.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

using namespace std::string_literals;

/// What the memo counts for each entry on top of its key and value (request_memo.hpp).
constexpr std::size_t kOverhead = 128;

/// The stats as one comparable line.
std::string text(const MemoStats& stats) {
  return "hits=" + std::to_string(stats.hits) + " misses=" + std::to_string(stats.misses) +
         " evictions=" + std::to_string(stats.evictions) +
         " entries=" + std::to_string(stats.entries) + " bytes=" + std::to_string(stats.bytes) +
         " budget=" + std::to_string(stats.budget_bytes);
}

TEST(RequestMemo, FindsWhatWasInserted) {
  RequestMemo<int> memo(1000);
  EXPECT_EQ(memo.find("request"), std::nullopt);
  memo.insert("request", 42, 0);
  EXPECT_EQ(memo.find("request"), 42);
  EXPECT_EQ(memo.find("request"), 42);
  EXPECT_EQ(text(memo.stats()), "hits=2 misses=1 evictions=0 entries=1 bytes=135 budget=1000");
}

TEST(RequestMemo, StartsEmpty) {
  RequestMemo<int> memo(500);
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=0 entries=0 bytes=0 budget=500");
}

TEST(RequestMemo, ComparesTheWholeKey) {
  const std::string long_key(10'000, 'x');
  RequestMemo<int> memo(100'000);
  memo.insert(long_key + "a", 1, 0);
  EXPECT_EQ(memo.find(long_key + "b"), std::nullopt);
  EXPECT_EQ(memo.find(long_key), std::nullopt);
  EXPECT_EQ(memo.find(long_key + "ab"), std::nullopt);
  EXPECT_EQ(memo.find("a"), std::nullopt);
  EXPECT_EQ(memo.find(long_key + "a"), 1);
}

TEST(RequestMemo, KeysDifferingOnlyInLengthAreDifferent) {
  RequestMemo<int> memo(10'000);
  memo.insert("ab", 2, 0);
  memo.insert("abc", 3, 0);
  memo.insert("", 0, 0);
  EXPECT_EQ(memo.find(""), 0);
  EXPECT_EQ(memo.find("a"), std::nullopt);
  EXPECT_EQ(memo.find("ab"), 2);
  EXPECT_EQ(memo.find("abc"), 3);
  EXPECT_EQ(memo.find("abcd"), std::nullopt);
}

TEST(RequestMemo, KeysHoldingNulBytesAreComparedPastThem) {
  // Masked requests hold a NUL byte where each id was.
  RequestMemo<int> memo(10'000);
  memo.insert("{\"id\":\0,\"a\":1}"s, 1, 0);
  memo.insert("{\"id\":\0,\"a\":2}"s, 2, 0);
  memo.insert("\0"s, 3, 0);
  EXPECT_EQ(memo.find("{\"id\":\0,\"a\":1}"s), 1);
  EXPECT_EQ(memo.find("{\"id\":\0,\"a\":2}"s), 2);
  EXPECT_EQ(memo.find("{\"id\":\0,\"a\":3}"s), std::nullopt);
  EXPECT_EQ(memo.find("{\"id\":"), std::nullopt);
  EXPECT_EQ(memo.find("\0"s), 3);
  EXPECT_EQ(memo.find("\0\0"s), std::nullopt);
  EXPECT_EQ(memo.find(""), std::nullopt);
}

TEST(RequestMemo, CountsKeyValueAndOverheadBytes) {
  RequestMemo<std::string> memo(10'000);
  memo.insert("12345", "value", 300);
  EXPECT_EQ(memo.stats().bytes, 5 + 300 + kOverhead);
  memo.insert("", "", 0);
  EXPECT_EQ(memo.stats().bytes, 5 + 300 + kOverhead + kOverhead);
  EXPECT_EQ(memo.stats().entries, 2U);
}

TEST(RequestMemo, EvictsTheLeastRecentlyInsertedWhenNothingWasFound) {
  // Three entries of 10 + 2 + 128 bytes fit exactly.
  RequestMemo<int> memo(3 * 140);
  memo.insert("request-01", 1, 2);
  memo.insert("request-02", 2, 2);
  memo.insert("request-03", 3, 2);
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=0 entries=3 bytes=420 budget=420");
  memo.insert("request-04", 4, 2);
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=1 entries=3 bytes=420 budget=420");
  EXPECT_EQ(memo.find("request-01"), std::nullopt);
  EXPECT_EQ(memo.find("request-02"), 2);
  EXPECT_EQ(memo.find("request-03"), 3);
  EXPECT_EQ(memo.find("request-04"), 4);
  EXPECT_EQ(text(memo.stats()), "hits=3 misses=1 evictions=1 entries=3 bytes=420 budget=420");
}

TEST(RequestMemo, AFindKeepsAnEntryAndTheNextOldestLeaves) {
  RequestMemo<int> memo(3 * 140);
  memo.insert("request-01", 1, 2);
  memo.insert("request-02", 2, 2);
  memo.insert("request-03", 3, 2);
  EXPECT_EQ(memo.find("request-01"), 1);
  memo.insert("request-04", 4, 2);
  EXPECT_EQ(memo.find("request-02"), std::nullopt);
  EXPECT_EQ(memo.find("request-01"), 1);
  EXPECT_EQ(memo.find("request-03"), 3);
  EXPECT_EQ(memo.find("request-04"), 4);
  // Now 01 is the oldest use again, after 03 and 04.
  memo.insert("request-05", 5, 2);
  EXPECT_EQ(memo.find("request-01"), std::nullopt);
  EXPECT_EQ(memo.find("request-03"), 3);
  EXPECT_EQ(text(memo.stats()), "hits=5 misses=2 evictions=2 entries=3 bytes=420 budget=420");
}

TEST(RequestMemo, AMissDoesNotChangeTheOrder) {
  RequestMemo<int> memo(2 * 140);
  memo.insert("request-01", 1, 2);
  memo.insert("request-02", 2, 2);
  EXPECT_EQ(memo.find("request-99"), std::nullopt);
  memo.insert("request-03", 3, 2);
  EXPECT_EQ(memo.find("request-01"), std::nullopt);
  EXPECT_EQ(memo.find("request-02"), 2);
}

TEST(RequestMemo, ALargeEntryEvictsAsManyOldOnesAsItNeeds) {
  RequestMemo<int> memo(1000);
  for (int i = 0; i < 5; ++i) {
    memo.insert("request-0" + std::to_string(i), i, 50);  // 188 bytes each
  }
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=0 entries=5 bytes=940 budget=1000");
  memo.insert("big", 99, 500);  // 631 bytes: only the newest small one stays with it
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=4 entries=2 bytes=819 budget=1000");
  EXPECT_EQ(memo.find("request-04"), 4);
  EXPECT_EQ(memo.find("request-03"), std::nullopt);
  EXPECT_EQ(memo.find("big"), 99);
}

TEST(RequestMemo, AnEntryFillingTheWholeBudgetIsKeptAlone) {
  RequestMemo<int> memo(1000);
  memo.insert("a", 1, 0);
  memo.insert("b", 2, 0);
  memo.insert("whole", 3, 1000 - 5 - kOverhead);
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=2 entries=1 bytes=1000 budget=1000");
  EXPECT_EQ(memo.find("whole"), 3);
  EXPECT_EQ(memo.find("a"), std::nullopt);
}

TEST(RequestMemo, AnEntryLargerThanTheBudgetIsNotKeptAndEvictsNothing) {
  RequestMemo<int> memo(1000);
  memo.insert("a", 1, 0);
  memo.insert("toolarge", 2, 1000 - 8 - kOverhead + 1);
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=0 evictions=0 entries=1 bytes=129 budget=1000");
  EXPECT_EQ(memo.find("toolarge"), std::nullopt);
  EXPECT_EQ(memo.find("a"), 1);
  memo.insert(std::string(1000, 'k'), 3, 0);
  EXPECT_EQ(memo.stats().entries, 1U);
}

TEST(RequestMemo, AZeroBudgetKeepsNothing) {
  RequestMemo<int> memo(0);
  memo.insert("", 1, 0);
  EXPECT_EQ(memo.find(""), std::nullopt);
  EXPECT_EQ(text(memo.stats()), "hits=0 misses=1 evictions=0 entries=0 bytes=0 budget=0");
}

TEST(RequestMemo, InsertingAKeyAgainKeepsTheFirstValue) {
  RequestMemo<int> memo(1000);
  memo.insert("request", 1, 10);
  memo.insert("request", 2, 500);
  EXPECT_EQ(memo.find("request"), 1);
  EXPECT_EQ(text(memo.stats()), "hits=1 misses=0 evictions=0 entries=1 bytes=145 budget=1000");
}

TEST(RequestMemo, AFoundValueOutlivesItsEviction) {
  RequestMemo<std::shared_ptr<const std::vector<int>>> memo(140);
  memo.insert("request-01", std::make_shared<const std::vector<int>>(std::vector<int>{1, 2}), 2);
  auto found = memo.find("request-01");
  ASSERT_TRUE(found.has_value());
  memo.insert("request-02", std::make_shared<const std::vector<int>>(), 2);
  EXPECT_EQ(memo.find("request-01"), std::nullopt);
  EXPECT_EQ(**found, (std::vector<int>{1, 2}));
}

TEST(RequestMemo, StaysConsistentUnderConcurrentFindsAndInserts) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 20'000;
  constexpr int kKeys = 64;
  // Keys of 6 bytes and values of 10: 144 bytes an entry, room for 40 of the 64 keys.
  constexpr std::size_t kEntryBytes = 6 + 10 + kOverhead;
  RequestMemo<std::string> memo(40 * kEntryBytes);
  const auto keyOf = [](int n) { return "key-" + std::to_string(10 + n); };
  const auto valueOf = [](int n) { return "value-" + std::to_string(1000 + n); };

  std::vector<std::uint64_t> hits(kThreads, 0);
  std::vector<std::uint64_t> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::minstd_rand random(static_cast<std::uint_fast32_t>(t + 1));
      for (int round = 0; round < kRounds; ++round) {
        const int n = static_cast<int>(random() % kKeys);
        if (auto found = memo.find(keyOf(n))) {
          ++hits[t];
          wrong[t] += *found == valueOf(n) ? 0 : 1;
        } else {
          memo.insert(keyOf(n), valueOf(n), 10);
        }
        if (round % 1000 == 0) {
          const MemoStats stats = memo.stats();
          wrong[t] += stats.bytes == stats.entries * kEntryBytes ? 0 : 1;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }

  const MemoStats stats = memo.stats();
  std::uint64_t all_hits = 0;
  for (int t = 0; t < kThreads; ++t) {
    all_hits += hits[t];
    EXPECT_EQ(wrong[t], 0U) << "thread " << t;
  }
  EXPECT_EQ(stats.hits, all_hits);
  EXPECT_EQ(stats.hits + stats.misses, static_cast<std::uint64_t>(kThreads) * kRounds);
  EXPECT_EQ(stats.entries, 40U);
  EXPECT_EQ(stats.bytes, 40 * kEntryBytes);
  EXPECT_GT(stats.hits, 0U);
  EXPECT_GT(stats.evictions, 0U);
  // Every miss inserted; an insert either added an entry or met one another thread just added.
  EXPECT_LE(stats.evictions + stats.entries, stats.misses);
  std::size_t kept = 0;
  for (int n = 0; n < kKeys; ++n) {
    if (auto found = memo.find(keyOf(n))) {
      EXPECT_EQ(*found, valueOf(n));
      ++kept;
    }
  }
  EXPECT_EQ(kept, 40U);
}

}  // namespace
}  // namespace agentvcr::replay
