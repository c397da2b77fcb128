#include "index_handoff.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace agentvcr::store::detail {
namespace {

constexpr std::size_t kNoLimit = 1u << 30;

/// A captured exchange of id `id` whose bodies weigh `bytes`.
PendingExchange captured(std::int64_t id, std::size_t bytes = 10) {
  PendingExchange row;
  row.id = id;
  row.session_id = 1;
  row.redacted.exchange.request_body = std::string(bytes / 2, 'q');
  row.redacted.exchange.response_body = std::string(bytes - bytes / 2, 'a');
  return row;
}

std::vector<PendingExchange> capturedIds(std::vector<std::int64_t> ids) {
  std::vector<PendingExchange> rows;
  for (std::int64_t id : ids) {
    rows.push_back(captured(id));
  }
  return rows;
}

std::vector<std::int64_t> idsOf(const IndexHandoff::Next& next) {
  std::vector<std::int64_t> ids;
  for (const PendingExchange& row : next.rows) {
    ids.push_back(row.id);
  }
  return ids;
}

TEST(IndexHandoffTest, HoldsWhatFitsAndReadsBackTheRestInIdOrder) {
  IndexHandoff handoff(2, kNoLimit, 0);
  std::vector<PendingExchange> batch = capturedIds({1, 2, 3, 4});
  const std::string body = batch[0].redacted.exchange.request_body;
  handoff.offer(batch);
  IndexHandoff::Next next = handoff.take(10, kNoLimit);
  EXPECT_EQ(idsOf(next), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(next.rows[0].redacted.exchange.request_body, body) << "moved whole";
  next = handoff.take(10, kNoLimit);
  EXPECT_TRUE(next.rows.empty());
  EXPECT_EQ(next.read_back_through, 4) << "3 and 4 did not fit";
  EXPECT_EQ(handoff.take(10, kNoLimit).read_back_through, 4) << "until they are read back";

  handoff.readBack(4);
  batch = capturedIds({5});
  handoff.offer(batch);
  EXPECT_EQ(idsOf(handoff.take(10, kNoLimit)), (std::vector<std::int64_t>{5})) << "room again";
  next = handoff.take(10, kNoLimit);
  EXPECT_TRUE(next.rows.empty());
  EXPECT_EQ(next.read_back_through, 0) << "nothing left";
}

TEST(IndexHandoffTest, HeldExchangesAfterRowsToReadBackWaitForThem) {
  IndexHandoff handoff(1, kNoLimit, 0);
  std::vector<PendingExchange> batch = capturedIds({1, 2});
  handoff.offer(batch);
  ASSERT_EQ(idsOf(handoff.take(10, kNoLimit)), (std::vector<std::int64_t>{1}));
  batch = capturedIds({3});
  handoff.offer(batch);  // 2 is still to be read back: 3 waits behind it
  EXPECT_EQ(handoff.take(10, kNoLimit).read_back_through, 2);
  handoff.readBack(2);
  EXPECT_EQ(idsOf(handoff.take(10, kNoLimit)), (std::vector<std::int64_t>{3}));
}

TEST(IndexHandoffTest, AnEarlierRunsLeftoversComeFirst) {
  IndexHandoff handoff(10, kNoLimit, 7);
  std::vector<PendingExchange> batch = capturedIds({8});
  handoff.offer(batch);
  EXPECT_EQ(handoff.take(10, kNoLimit).read_back_through, 7);
  handoff.readBack(7);
  EXPECT_EQ(idsOf(handoff.take(10, kNoLimit)), (std::vector<std::int64_t>{8}));
}

TEST(IndexHandoffTest, TheByteBoundLeavesOutTheRestOfTheBatch) {
  IndexHandoff handoff(10, 25, 0);
  std::vector<PendingExchange> batch;
  batch.push_back(captured(1, 20));
  batch.push_back(captured(2, 20));  // past 25 bytes
  batch.push_back(captured(3, 1));   // would fit, but after one left out
  handoff.offer(batch);
  EXPECT_EQ(idsOf(handoff.take(10, kNoLimit)), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(handoff.take(10, kNoLimit).read_back_through, 3);
}

TEST(IndexHandoffTest, ZeroCapacityHoldsNothing) {
  IndexHandoff handoff(0, kNoLimit, 0);
  std::vector<PendingExchange> batch = capturedIds({1, 2});
  handoff.offer(batch);
  EXPECT_EQ(handoff.take(10, kNoLimit).read_back_through, 2);
}

TEST(IndexHandoffTest, ATakeEndsAtItsCountOrWithTheRowWhoseBodiesReachItsByteLimit) {
  IndexHandoff handoff(10, kNoLimit, 0);
  std::vector<PendingExchange> batch = capturedIds({1, 2, 3, 4, 5});
  handoff.offer(batch);
  EXPECT_EQ(idsOf(handoff.take(2, kNoLimit)), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(idsOf(handoff.take(10, 15)), (std::vector<std::int64_t>{3, 4})) << "10 + 10 >= 15";
  EXPECT_EQ(idsOf(handoff.take(10, 1)), (std::vector<std::int64_t>{5})) << "one, however large";
}

TEST(IndexHandoffTest, WhatWasTakenMakesRoom) {
  IndexHandoff handoff(2, 20, 0);
  std::vector<PendingExchange> batch = capturedIds({1, 2});
  handoff.offer(batch);
  ASSERT_EQ(handoff.take(10, kNoLimit).rows.size(), 2u);
  batch = capturedIds({3, 4});
  handoff.offer(batch);
  EXPECT_EQ(idsOf(handoff.take(10, kNoLimit)), (std::vector<std::int64_t>{3, 4}));
}

}  // namespace
}  // namespace agentvcr::store::detail
