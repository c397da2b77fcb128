// ArchiveReader::search over A2A calls: each searched text, the filters that apply to calls,
// steps and calls together in the order of their exchanges, and archives from before calls
// were searchable.

#include <cstdint>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/schema.hpp"
#include "older_schema.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::a2aSend;
using testing::a2aTask;
using ::testing::ElementsAre;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::queryInt;
using testing::queryText;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

protocol::Exchange a2aExchange(std::string request_body, std::string response_body,
                               int status = 200) {
  return httpExchange("POST", "/api/v1/a2a", std::move(request_body), status,
                      std::move(response_body));
}

/// What a hit is, in one string: "step <id>" or "call <id>", then its field.
std::string describe(const SearchHit& hit) {
  return (hit.a2a_call_id != 0 ? "call " + std::to_string(hit.a2a_call_id)
                               : "step " + std::to_string(hit.step_id)) +
         " " + hit.field;
}

std::vector<std::string> described(const std::vector<SearchHit>& hits) {
  std::vector<std::string> out;
  for (const SearchHit& hit : hits) {
    out.push_back(describe(hit));
  }
  return out;
}

/// Session A: call 1 asks about grace, a MAGMA step (step 1) says "grace" too, call 2 is
/// refused for its rate and took 5 s. Session B: call 3 asks about grace again.
class SearchA2aTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      Recorder a(path_, testSession("a"), testOptions());
      session_a_ = a.sessionId();
      submit(a, a2aExchange(a2aSend(1, "m-1", "What is grace?", "c-1"),
                            a2aTask(1, "t-1", "c-1", "completed", "A gift freely given.")));
      submit(a,
             magmaExchange(
                 request("r1", {input(1, "user", "Say grace before the meal", memoryOf("a", 0))}),
                 Json::array({sayOutput("r1", 1, 0, memoryOf("a", 2), "Amen")})));
      protocol::Exchange refused = a2aExchange(
          a2aSend(2, "m-2", "And mercy?", "c-1"),
          R"({"jsonrpc":"2.0","id":2,"error":{"code":-32003,"message":"Rate limit exceeded"}})",
          429);
      refused.ended_ns = refused.started_ns + 5'000'000'000;
      submit(a, refused);
    }
    {
      Recorder b(path_, testSession("b"), testOptions());
      session_b_ = b.sessionId();
      submit(b, a2aExchange(a2aSend(1, "m-3", "Is grace earned?", "c-9"),
                            a2aTask(1, "t-3", "c-9", "completed", "No.")));
    }
  }

  std::vector<SearchHit> search(const SearchQuery& query) {
    return ArchiveReader(path_).search(query);
  }

  std::vector<SearchHit> searchText(const std::string& text) {
    SearchQuery query;
    query.text = text;
    return search(query);
  }

  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
  std::int64_t session_a_ = 0;
  std::int64_t session_b_ = 0;
};

TEST_F(SearchA2aTest, FindsWhatWasAskedAnsweredAndRefused) {
  const std::vector<SearchHit> asked = searchText("mercy");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(describe(asked[0]), "call 2 a2a_request");
  EXPECT_EQ(asked[0].step_id, 0);
  EXPECT_EQ(asked[0].session_id, session_a_);
  EXPECT_EQ(asked[0].conversation_id,
            queryInt(path_, "SELECT conversation_id FROM a2a_calls WHERE id = 2"));
  EXPECT_NE(asked[0].conversation_id, 0);
  EXPECT_EQ(asked[0].exchange_id,
            queryInt(path_, "SELECT exchange_id FROM a2a_calls WHERE id = 2"));
  EXPECT_EQ(asked[0].snippet, "And [mercy]?");

  EXPECT_THAT(described(searchText("freely")), ElementsAre("call 1 a2a_response"));
  EXPECT_THAT(described(searchText("rate limit")), ElementsAre("call 2 a2a_error"));
  EXPECT_THAT(described(searchText("Rat*")), ElementsAre("call 2 a2a_error"));
}

TEST_F(SearchA2aTest, AllWordsMustBeInOneText) {
  EXPECT_TRUE(searchText("grace gift").empty());  // asked about grace, answered with a gift
  EXPECT_THAT(described(searchText("gift given")), ElementsAre("call 1 a2a_response"));
}

TEST_F(SearchA2aTest, StepsAndCallsComeInTheOrderOfTheirExchanges) {
  EXPECT_THAT(described(searchText("grace")),
              ElementsAre("call 1 a2a_request", "step 1 instruction", "call 3 a2a_request"));
  SearchQuery first_two;
  first_two.text = "grace";
  first_two.limit = 2;
  EXPECT_THAT(described(search(first_two)),
              ElementsAre("call 1 a2a_request", "step 1 instruction"));
}

TEST_F(SearchA2aTest, SessionAndLatencyFilterCalls) {
  SearchQuery q;
  q.text = "grace";
  q.session_id = session_b_;
  EXPECT_THAT(described(search(q)), ElementsAre("call 3 a2a_request"));

  q.session_id.reset();
  q.text.clear();
  q.min_latency_ns = 1'000'000'000;
  EXPECT_THAT(described(search(q)), ElementsAre("call 2 "));
  q.text = "mercy";
  EXPECT_THAT(described(search(q)), ElementsAre("call 2 a2a_request"));
  q.text = "grace";
  EXPECT_TRUE(search(q).empty());
}

TEST_F(SearchA2aTest, CandidateFiltersFindStepsOnly) {
  SearchQuery q;
  q.text = "grace";
  q.status = "completed";
  EXPECT_THAT(described(search(q)), ElementsAre("step 1 instruction"));
  q.status.reset();
  q.error_code = "rate_limited";
  EXPECT_TRUE(search(q).empty());
}

TEST_F(SearchA2aTest, WithoutTextListsEveryCallAmongTheSteps) {
  EXPECT_THAT(described(search(SearchQuery{})),
              ElementsAre("call 1 ", "step 1 ", "call 2 ", "call 3 "));
}

TEST(SearchA2aMigrationTest, CallsRecordedBeforeVersion10AreFoundAfterTheMigration) {
  TempDir dir;
  const std::string path = dir.file("v9.sqlite");
  {
    Recorder recorder(path, testSession(), testOptions());
    submit(recorder, a2aExchange(a2aSend(1, "m-1", "What is grace?"),
                                 a2aTask(1, "t-1", "c-1", "completed", "A gift.")));
  }
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, 9);
  }
  EXPECT_EQ(migrateArchive(path), 9);
  SearchQuery q;
  q.text = "gift";
  EXPECT_THAT(described(ArchiveReader(path).search(q)), ElementsAre("call 1 a2a_response"));
}

TEST(SearchA2aMigrationTest, TheLatencyIndexHoldsIndexedExchangesOnly) {
  TempDir dir;
  const std::string path = dir.file("archive.sqlite");
  migrateArchive(path);
  // The capture writes rows with indexed = 0: the index must not grow with them, and the
  // latency filter's query must be one SQLite answers from it.
  EXPECT_EQ(queryText(path, "SELECT sql FROM sqlite_master WHERE name = 'exchanges_latency'"),
            "CREATE INDEX exchanges_latency ON exchanges(ended_ns - started_ns) WHERE indexed = 1");
  SQLite::Database db(path);
  SQLite::Statement plan(db,
                         "EXPLAIN QUERY PLAN SELECT id FROM exchanges "
                         "WHERE ended_ns - started_ns >= 5 AND indexed = 1");
  std::string details;
  while (plan.executeStep()) {
    details += plan.getColumn(3).getString() + "\n";
  }
  EXPECT_THAT(details, ::testing::HasSubstr("USING INDEX exchanges_latency"));
}

}  // namespace
}  // namespace agentvcr::store
