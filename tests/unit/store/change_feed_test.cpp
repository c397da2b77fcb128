// The change feed the shipper and the OTLP exporter follow (store/change_feed.hpp): what
// changed since a tick, batches bounded in bytes, and a reader that never writes the file.

#include "agentvcr/store/change_feed.hpp"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "older_schema.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::input;
using testing::Json;
using testing::magmaExchange;
using testing::memoryOf;
using testing::request;
using testing::sayOutput;
using testing::TempDir;

/// Records `exchanges` MAGMA exchanges of about `body_bytes` each into a new session of `path`.
void recordSession(const std::string& path, int exchanges, std::size_t body_bytes = 100) {
  Recorder recorder(path, testing::testSession(), testing::testOptions());
  for (int i = 0; i < exchanges; ++i) {
    const std::string id = "r" + std::to_string(i);
    const Json body =
        request(id, {input(1, "user", std::string(body_bytes, 'x'), memoryOf(id, 0))});
    testing::submit(recorder,
                    magmaExchange(body, Json::array({sayOutput(id, 1, 0, memoryOf(id, 1), "ok")})));
  }
  recorder.close();
}

class ChangeFeedTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string path_ = dir_.file("feed.sqlite");
};

TEST_F(ChangeFeedTest, SaysWhichSessionsChangedSinceATick) {
  recordSession(path_, 2);
  recordSession(path_, 2);
  ChangeFeed feed(path_);
  const std::vector<FeedSession> all = feed.sessions();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(feed.sessionsChangedSince(0).size(), 2u);
  const std::int64_t seen = std::max(all[0].tick, all[1].tick);
  EXPECT_TRUE(feed.sessionsChangedSince(seen).empty()) << "nothing written since";

  const std::int64_t version = feed.dataVersion();
  recordSession(path_, 1);  // a third session
  EXPECT_NE(feed.dataVersion(), version);
  const std::vector<FeedSession> changed = feed.sessionsChangedSince(seen);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].id, all[1].id + 1);
  EXPECT_EQ(changed[0].exchanges, 1);
  EXPECT_TRUE(changed[0].ended);
  EXPECT_TRUE(feed.sessionsChangedSince(changed[0].tick).empty());
}

TEST_F(ChangeFeedTest, BatchesStopAtTheirByteLimitButCarryAtLeastOneExchange) {
  recordSession(path_, 6, 20'000);
  ChangeFeed feed(path_);
  const FeedSession session = feed.sessions().at(0);
  FeedLimits limits;
  limits.bytes = 1;  // smaller than any exchange
  FeedPosition at;
  int batches = 0;
  std::size_t one = 0;  // bytes of one exchange, as stored
  for (;;) {
    const FeedBatch batch = feed.next(session, at, limits);
    if (batch.exchanges == 0) {
      break;
    }
    EXPECT_EQ(batch.exchanges, 1u);
    EXPECT_GT(batch.exchange_bytes, 0u);
    one = std::max(one, batch.exchange_bytes);
    ++batches;
    at = batch.end;
    if (batch.caught_up) {
      break;
    }
  }
  EXPECT_EQ(batches, 6);

  limits.bytes = 2 * one;  // about two exchanges' bodies and headers
  const FeedBatch two = feed.next(session, {}, limits);
  EXPECT_GE(two.exchanges, 1u);
  EXPECT_LE(two.exchanges, 3u);
  EXPECT_FALSE(two.caught_up);
  limits.exchanges = 4;
  limits.bytes = 64u << 20;
  EXPECT_EQ(feed.next(session, {}, limits).exchanges, 4u);
}

TEST_F(ChangeFeedTest, NeverWritesNorMigratesTheArchive) {
  recordSession(path_, 3);
  const auto before = std::filesystem::last_write_time(path_);
  const auto size = std::filesystem::file_size(path_);
  {
    ChangeFeed feed(path_);
    for (const FeedSession& session : feed.sessions()) {
      feed.next(session, {}, {});
    }
  }
  EXPECT_EQ(std::filesystem::last_write_time(path_), before);
  EXPECT_EQ(std::filesystem::file_size(path_), size);

  // An archive of an older schema is refused, with the command that migrates it.
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, 11);
  }
  EXPECT_THAT(testing::thrownMessage([&] { ChangeFeed feed(path_); }),
              AllOf(HasSubstr("[store.schema.old]"), HasSubstr("agentvcr migrate --db")));
  EXPECT_EQ(testing::queryInt(path_, "PRAGMA user_version"), 11) << "not migrated";
}

}  // namespace
}  // namespace agentvcr::store
