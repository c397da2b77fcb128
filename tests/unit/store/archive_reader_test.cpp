#include "agentvcr/store/archive_reader.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::queryInt;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

class ArchiveReaderTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
};

TEST_F(ArchiveReaderTest, ExchangesArePagedBySeq) {
  Recorder recorder(path_, testSession(), testOptions());
  for (std::size_t i = 0; i < 25; ++i) {
    submit(recorder, httpExchange("POST", "/p/" + std::to_string(i), std::string(10 + i, 'x'), 200,
                                  std::string(i, 'y')));
  }
  recorder.flush();
  ArchiveReader reader(path_);

  std::vector<ExchangeRow> all;
  for (std::int64_t offset = 0;; offset += 10) {
    std::vector<ExchangeRow> page = reader.exchanges(recorder.sessionId(), offset, 10);
    if (page.empty()) {
      break;
    }
    EXPECT_LE(page.size(), 10u);
    EXPECT_EQ(page.front().seq, offset);
    all.insert(all.end(), page.begin(), page.end());
  }
  ASSERT_EQ(all.size(), 25u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const ExchangeRow& row = all[i];
    EXPECT_EQ(row.target, "/p/" + std::to_string(i));
    EXPECT_FALSE(row.has_payload);
    EXPECT_TRUE(row.request_body.empty());
    EXPECT_TRUE(row.request_headers.empty());
    EXPECT_EQ(row.request_body_size, static_cast<std::int64_t>(10 + i));
    EXPECT_EQ(row.response_body_size, static_cast<std::int64_t>(i));
  }
  std::optional<ExchangeRow> full = reader.exchange(all[24].id);
  ASSERT_TRUE(full.has_value());
  EXPECT_TRUE(full->has_payload);
  EXPECT_EQ(full->request_body, std::string(34, 'x'));
  EXPECT_EQ(full->response_body, std::string(24, 'y'));
  EXPECT_FALSE(full->request_headers.empty());
  EXPECT_TRUE(reader.exchanges(recorder.sessionId(), 25, 10).empty());
  EXPECT_TRUE(reader.exchanges(recorder.sessionId() + 1, 0, 10).empty());
}

TEST_F(ArchiveReaderTest, ConversationsArePagedById) {
  Recorder recorder(path_, testSession(), testOptions());
  for (int i = 0; i < 7; ++i) {
    const std::string rid = "r" + std::to_string(i);
    submit(recorder, magmaExchange(request(rid, {input(i, "user", "episode " + std::to_string(i),
                                                       memoryOf("root" + rid, 0))}),
                                   Json::array({sayOutput(rid, i, 0, memoryOf(rid, 2), "ok")})));
  }
  recorder.flush();
  ArchiveReader reader(path_);
  std::vector<ConversationRow> first = reader.conversations(recorder.sessionId(), 0, 3);
  ASSERT_EQ(first.size(), 3u);
  std::vector<ConversationRow> rest =
      reader.conversations(recorder.sessionId(), first.back().id, ArchiveReader::kNoLimit);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_LT(first.back().id, rest.front().id);
  EXPECT_EQ(rest.back().title.value_or(""), "episode 6");
  EXPECT_EQ(reader.conversations(recorder.sessionId()).size(), 7u);
}

TEST_F(ArchiveReaderTest, CountsMatchTheTables) {
  Recorder recorder(path_, testSession(), testOptions());
  submit(recorder, httpExchange("GET", "/health", "", 200, R"({"status":"ready"})"));
  submit(recorder, magmaExchange(request("r", {input(1, "user", "a", memoryOf("c", 0), 2),
                                               input(2, "user", "b", memoryOf("d", 0))}),
                                 Json::array({sayOutput("r", 1, 0, memoryOf("c", 2), "x"),
                                              sayOutput("r", 1, 1, memoryOf("c", 3), "y"),
                                              sayOutput("r", 2, 0, memoryOf("d", 2), "z")})));
  recorder.flush();
  ArchiveReader reader(path_);
  ArchiveCounts counts = reader.counts();
  EXPECT_EQ(counts.sessions, queryInt(path_, "SELECT count(*) FROM sessions"));
  EXPECT_EQ(counts.exchanges, 2);
  EXPECT_EQ(counts.exchanges, queryInt(path_, "SELECT count(*) FROM exchanges"));
  EXPECT_EQ(counts.steps, 2);
  EXPECT_EQ(counts.steps, queryInt(path_, "SELECT count(*) FROM steps"));
  EXPECT_EQ(counts.candidates, 3);
  EXPECT_EQ(counts.candidates, queryInt(path_, "SELECT count(*) FROM candidates"));
  EXPECT_EQ(counts.internal_steps, queryInt(path_, "SELECT count(*) FROM internal_steps"));
  EXPECT_EQ(counts.conversations, 2);
  EXPECT_EQ(counts.conversations, queryInt(path_, "SELECT count(*) FROM conversations"));
  EXPECT_EQ(counts.blobs, queryInt(path_, "SELECT count(*) FROM blobs"));
  EXPECT_EQ(reader.schemaVersion(), queryInt(path_, "PRAGMA user_version"));

  std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].step_count, 2);
  EXPECT_EQ(sessions[0].candidate_count, 3);
  EXPECT_EQ(sessions[0].conversation_count, 2);
}

TEST_F(ArchiveReaderTest, MissingRowsAreEmpty) {
  { Recorder recorder(path_, testSession(), testOptions()); }
  ArchiveReader reader(path_);
  EXPECT_FALSE(reader.session(42).has_value());
  EXPECT_FALSE(reader.conversation(42).has_value());
  EXPECT_FALSE(reader.step(42).has_value());
  EXPECT_FALSE(reader.candidate(42).has_value());
  EXPECT_FALSE(reader.exchange(42).has_value());
  EXPECT_FALSE(reader.blob(42).has_value());
  EXPECT_TRUE(reader.steps(42).empty());
  EXPECT_TRUE(reader.candidates(42).empty());
  EXPECT_TRUE(reader.internalSteps(42).empty());
  EXPECT_TRUE(reader.stepsWithReplayKey(42).empty());
}

TEST_F(ArchiveReaderTest, ReadersMoveAndWorkAfterTheRecorderClosed) {
  {
    Recorder recorder(path_, testSession(), testOptions());
    submit(recorder, httpExchange("GET", "/x"));
  }
  ArchiveReader first(path_);
  ArchiveReader moved(std::move(first));
  EXPECT_EQ(moved.sessions().size(), 1u);
  EXPECT_EQ(moved.counts().exchanges, 1);
}

}  // namespace
}  // namespace agentvcr::store
