// ArchiveReader::search and exchangeIdsOfConversation over archives written by the Recorder:
// each searched field, the word rules, hostile input, every filter, limits and snippets.

#include <cstdint>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/schema.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::callOutput;
using ::testing::ElementsAre;
using testing::errorOutput;
using ::testing::HasSubstr;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

/// A candidate whose only internal step has this prompt and raw output.
Json withInternalStep(Json output, const std::string& full_prompt, const std::string& output_raw) {
  output["internal_steps"][0]["full_prompt"] = full_prompt;
  output["internal_steps"][0]["output_raw"] = output_raw;
  return output;
}

/// A candidate that calls `tool` on `robot`.
Json toolOutput(const std::string& request_id, std::int64_t source_id, Json memory,
                const std::string& tool, const std::string& robot) {
  Json output = callOutput(request_id, source_id, 0, std::move(memory), "sw0");
  output["output"]["tool_calls"][0]["name"] = tool;
  output["output"]["tool_calls"][0]["target_robot_name"] = robot;
  return output;
}

std::vector<std::int64_t> stepIds(const std::vector<SearchHit>& hits) {
  std::vector<std::int64_t> ids;
  for (const SearchHit& hit : hits) {
    ids.push_back(hit.step_id);
  }
  return ids;
}

/// Two sessions. Session A holds one BENCH-like episode (steps 1 to 4, one conversation) and a
/// slow exchange (step 5); session B one step whose instruction repeats step 1's (step 6).
///
///   1 user  "Please press the red button"   -> press_button on panda; prompt mentions a
///                                              "lighthouse", output_raw thinks "hesitantly"
///   2 env   feedback "... succeed ... sw0 button pressed"  -> says "Done, the red button is
///                                                              pressed" (output_raw
///                                                              "finished")
///   3 user  "Now the blue one"              -> error invalid_output
///   4 user  "Wait a moment"                 -> two candidates: cancel_current_action on
///                                              kinova, and an error crashed
///   5 user  "Press the green button" (5 s)  -> press_button on panda
///   6 user  "Please press the red button" (session B) -> says "Sure"
class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      Recorder a(path_, testSession("a"), testOptions());
      session_a_ = a.sessionId();
      submit(a,
             magmaExchange(
                 request("r1", {input(1, "user", "Please press the red button", memoryOf("a", 0))}),
                 Json::array({withInternalStep(
                     callOutput("r1", 1, 0, memoryOf("a", 2), "sw0"),
                     "You control a robot near the lighthouse",
                     "<think>hesitantly choosing</think><tool_call>sw0</tool_call>")})));
      submit(a, magmaExchange(
                    request("r2", {input(1, "env",
                                         R"({"infos":"panda: press_button succeed with message: )"
                                         R"(You have the sw0 button pressed."})",
                                         memoryOf("a", 2))}),
                    Json::array({withInternalStep(
                        sayOutput("r2", 1, 0, memoryOf("a", 4), "Done, the red button is pressed"),
                        "history so far", "finished")})));
      submit(a,
             magmaExchange(request("r3", {input(1, "user", "Now the blue one", memoryOf("a", 4))}),
                           Json::array({errorOutput("r3", 1, 0, memoryOf("a", 4))})));
      Json crashed = errorOutput("r4", 1, 1, memoryOf("a", 4));
      crashed["error"]["code"] = "crashed";
      crashed["error"]["message"] = "The model server went away";
      submit(a, magmaExchange(
                    request("r4", {input(1, "user", "Wait a moment", memoryOf("a", 4), 2)}),
                    Json::array({withInternalStep(toolOutput("r4", 1, memoryOf("a", 6),
                                                             "cancel_current_action", "kinova"),
                                                  "cancel prompt", "<tool_call>cancel</tool_call>"),
                                 crashed})));
      protocol::Exchange slow = magmaExchange(
          request("r5", {input(2, "user", "Press the green button", memoryOf("b", 0))}),
          Json::array({callOutput("r5", 2, 0, memoryOf("b", 2), "sw1")}));
      slow.ended_ns = slow.started_ns + 5'000'000'000;
      submit(a, slow);
    }
    {
      Recorder b(path_, testSession("b"), testOptions());
      session_b_ = b.sessionId();
      submit(b,
             magmaExchange(
                 request("r6", {input(1, "user", "Please press the red button", memoryOf("c", 0))}),
                 Json::array({sayOutput("r6", 1, 0, memoryOf("c", 2), "Sure")})));
    }
  }

  std::vector<SearchHit> search(const SearchQuery& query) {
    ArchiveReader reader(path_);
    return reader.search(query);
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

TEST_F(SearchTest, FindsTextInEachField) {
  struct Case {
    const char* text;
    std::int64_t step_id;
    const char* field;
  };

  for (const Case& c :
       {Case{"blue", 3, "instruction"}, Case{"succeed", 2, "env_feedback"}, Case{"Done", 2, "say"},
        Case{"parser", 3, "error"}, Case{"went away", 4, "error"},
        Case{"lighthouse", 1, "full_prompt"}, Case{"hesitantly", 1, "output_raw"}}) {
    std::vector<SearchHit> hits = searchText(c.text);
    ASSERT_EQ(hits.size(), 1u) << c.text;
    EXPECT_EQ(hits[0].step_id, c.step_id) << c.text;
    EXPECT_EQ(hits[0].field, c.field) << c.text;
    EXPECT_EQ(hits[0].session_id, session_a_) << c.text;
    EXPECT_EQ(hits[0].conversation_id, 1) << c.text;
  }
  EXPECT_TRUE(searchText("nowhere").empty());
}

TEST_F(SearchTest, AllWordsInAnyOrderInOneField) {
  EXPECT_THAT(stepIds(searchText("red button")), ElementsAre(1, 2, 6));
  EXPECT_THAT(stepIds(searchText("button red")), ElementsAre(1, 2, 6));
  EXPECT_THAT(stepIds(searchText("  RED\tbutton\n")), ElementsAre(1, 2, 6));  // case-folded
  EXPECT_THAT(stepIds(searchText("red button please")), ElementsAre(1, 6));
  // "blue" is in step 3's instruction, "parser" in its error: not one field.
  EXPECT_TRUE(searchText("blue parser").empty());
}

TEST_F(SearchTest, ATrailingStarMatchesAPrefix) {
  EXPECT_THAT(stepIds(searchText("lightho*")), ElementsAre(1));
  EXPECT_TRUE(searchText("lightho").empty());
  EXPECT_THAT(stepIds(searchText("gre* butt**")), ElementsAre(5));
  // A star inside a word is not a wildcard.
  EXPECT_TRUE(searchText("light*house").empty());
}

TEST_F(SearchTest, OneHitPerStepWithItsBestField) {
  // Step 1 has "red" in its instruction only; step 2 in its say only; one hit each.
  std::vector<SearchHit> hits = searchText("red");
  ASSERT_THAT(stepIds(hits), ElementsAre(1, 2, 6));
  EXPECT_EQ(hits[0].field, "instruction");
  EXPECT_EQ(hits[1].field, "say");
  EXPECT_EQ(hits[2].field, "instruction");
  // "sw0" is in step 1's output_raw and in step 2's instruction (and in no prompt).
  hits = searchText("sw0");
  ASSERT_THAT(stepIds(hits), ElementsAre(1, 2));
  EXPECT_EQ(hits[0].field, "output_raw");
  EXPECT_EQ(hits[1].field, "env_feedback");
}

TEST_F(SearchTest, SnippetsBracketTheMatchedWords) {
  std::vector<SearchHit> hits = searchText("red butt*");
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].snippet, "Please press the [red] [button]");
  EXPECT_EQ(hits[1].snippet, "Done, the [red] [button] is pressed");

  // A long field is cut around the match.
  hits = searchText("lighthouse");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_THAT(hits[0].snippet, HasSubstr("[lighthouse]"));
  hits = searchText("sw0");
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_THAT(hits[0].snippet, HasSubstr("[sw0]"));
  EXPECT_THAT(hits[1].snippet, HasSubstr("[sw0]"));
}

TEST_F(SearchTest, HostileInputIsNeverFts5Syntax) {
  for (const char* text : {"\"red",        "red\"",       "\"",          "\"\"",
                           "a AND (",      "red OR blue", "NOT red",     "NEAR(red button)",
                           "red + button", "{say}: red",  "say:red",     "-red",
                           "^red",         "red)",        "(((",         "*",
                           "**",           "* *",         "'red'",       "red;--",
                           "\\",           "re\"d",       "\xff\xfe red"}) {
    SCOPED_TRACE(text);
    EXPECT_NO_THROW(searchText(text));
  }
  // A quote is a separator once quoted: "red still finds red.
  EXPECT_THAT(stepIds(searchText("\"red")), ElementsAre(1, 2, 6));
  // Operators are words: "red OR blue" needs the three words ("or" is not in any field).
  EXPECT_TRUE(searchText("red OR blue").empty());
  EXPECT_THAT(stepIds(searchText("NEAR(red button)")), ElementsAre());
  EXPECT_THAT(stepIds(searchText("{say}: Done")), ElementsAre());
  // Punctuation alone matches nothing; next to a word it is ignored.
  EXPECT_TRUE(searchText("(((").empty());
  EXPECT_THAT(stepIds(searchText("red (((")), ElementsAre(1, 2, 6));
  // Only stars: nothing to look for.
  EXPECT_TRUE(searchText("* **").empty());
  // NUL bytes are dropped, not an unterminated FTS5 string.
  SearchQuery query;
  query.text = std::string("bl\0ue", 5);
  EXPECT_THAT(stepIds(search(query)), ElementsAre(3));
}

TEST_F(SearchTest, EachFilterAlone) {
  SearchQuery q;
  q.tool = "press_button";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 5));
  q = {};
  q.tool = "cancel_current_action";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(4));
  q = {};
  q.tool = "press";
  EXPECT_TRUE(search(q).empty());  // exact name
  q = {};
  q.robot = "kinova";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(4));
  q = {};
  q.robot = "panda";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 5));
  q = {};
  q.status = "error";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(3, 4));
  q = {};
  q.status = "completed";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 2, 4, 5, 6));
  q = {};
  q.error_code = "invalid_output";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(3));
  q = {};
  q.error_code = "crashed";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(4));
  q = {};
  q.error_code = "unknown";
  EXPECT_TRUE(search(q).empty());
  q = {};
  q.min_latency_ns = 1'000'000'000;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(5));
  q = {};
  q.min_latency_ns = 0;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 2, 3, 4, 5, 6));
  q = {};
  q.session_id = session_b_;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(6));
  q = {};
  q.session_id = session_b_ + 1;
  EXPECT_TRUE(search(q).empty());

  // Filters only: no field, no snippet, but where the step is.
  q = {};
  q.session_id = session_a_;
  std::vector<SearchHit> hits = search(q);
  ASSERT_THAT(stepIds(hits), ElementsAre(1, 2, 3, 4, 5));
  for (const SearchHit& hit : hits) {
    EXPECT_EQ(hit.session_id, session_a_);
    EXPECT_TRUE(hit.field.empty());
    EXPECT_TRUE(hit.snippet.empty());
  }
  EXPECT_EQ(hits[0].conversation_id, 1);
  EXPECT_EQ(hits[4].conversation_id, 2);

  // No condition at all: every step.
  EXPECT_THAT(stepIds(search(SearchQuery{})), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST_F(SearchTest, ConditionsCombine) {
  SearchQuery q;
  q.text = "red button";
  q.session_id = session_b_;
  std::vector<SearchHit> hits = search(q);
  ASSERT_THAT(stepIds(hits), ElementsAre(6));
  EXPECT_EQ(hits[0].session_id, session_b_);
  EXPECT_EQ(hits[0].snippet, "Please press the [red] [button]");

  q.session_id = session_a_;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 2));

  q = {};
  q.text = "press*";
  q.tool = "press_button";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 5));
  q.min_latency_ns = 1'000'000'000;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(5));

  q = {};
  q.tool = "press_button";
  q.robot = "panda";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 5));
  q.robot = "kinova";
  EXPECT_TRUE(search(q).empty());

  // Each candidate condition may hold for another candidate of the step (step 4: one
  // candidate called cancel_current_action, another crashed).
  q = {};
  q.status = "error";
  q.tool = "cancel_current_action";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(4));
  q = {};
  q.status = "completed";
  q.error_code = "crashed";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(4));
  q = {};
  q.status = "error";
  q.session_id = session_b_;
  EXPECT_TRUE(search(q).empty());
  q = {};
  q.error_code = "crashed";
  q.text = "moment";
  EXPECT_THAT(stepIds(search(q)), ElementsAre(4));
  q.text = "blue";
  EXPECT_TRUE(search(q).empty());
}

TEST_F(SearchTest, LimitKeepsTheFirstStepsById) {
  SearchQuery q;
  q.text = "red";
  q.limit = 2;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 2));
  q.limit = 1;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1));
  q.limit = 0;
  EXPECT_TRUE(search(q).empty());
  q = {};
  q.status = "completed";
  q.limit = 3;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 2, 4));
  q = {};
  q.limit = 4;
  EXPECT_THAT(stepIds(search(q)), ElementsAre(1, 2, 3, 4));
}

TEST_F(SearchTest, TheRecorderKeepsTheIndexesConsistent) {
  SQLite::Database db(path_, SQLite::OPEN_READWRITE);
  for (const char* table : {"search_steps", "search_candidates", "search_internal_steps"}) {
    SCOPED_TRACE(table);
    EXPECT_NO_THROW(db.exec(std::string("INSERT INTO ") + table + " (" + table +
                            ", rank) VALUES ('integrity-check', 1)"));
  }
}

TEST_F(SearchTest, ExchangeIdsOfAConversation) {
  ArchiveReader reader(path_);
  std::vector<SearchHit> steps = search(SearchQuery{});
  ASSERT_EQ(steps.size(), 6u);
  std::vector<std::int64_t> first;
  for (const StepRow& step : reader.steps(steps[0].conversation_id)) {
    first.push_back(step.exchange_id);
  }
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(reader.exchangeIdsOfConversation(steps[0].conversation_id), first);
  std::vector<std::int64_t> green = reader.exchangeIdsOfConversation(steps[4].conversation_id);
  ASSERT_EQ(green.size(), 1u);
  EXPECT_EQ(green[0], reader.step(5)->exchange_id);
  EXPECT_TRUE(reader.exchangeIdsOfConversation(999).empty());
}

TEST_F(SearchTest, TimelineNumbersCountFromEachConversationsFirstStep) {
  ArchiveReader reader(path_);
  const std::vector<SearchHit> hits = searchText("press");  // steps 1, 2, 5 and 6
  ASSERT_THAT(stepIds(hits), ElementsAre(1, 2, 5, 6));
  // Steps 5 and 6 open conversations of their own.
  EXPECT_THAT(reader.timelineNumbers(hits), ElementsAre(1, 2, 1, 1));
  EXPECT_TRUE(reader.timelineNumbers({}).empty());
}

// The viewer's timeline numbers a conversation's steps in tree order (each step followed by the
// steps below it), which is not id order once a step forks; search hits are numbered alike.
TEST(SearchTimelineTest, NumbersAForkedConversationInTreeOrder) {
  TempDir dir;
  const std::string path = dir.file("fork.sqlite");
  {
    // Step 1 answers with two candidates; step 2 continues the first, step 3 the second and
    // step 4 step 2: the tree reads 1, 2, 4, 3.
    Recorder recorder(path, testSession(), testOptions());
    submit(recorder,
           magmaExchange(request("f1", {input(1, "user", "Press a button", memoryOf("f", 0), 2)}),
                         Json::array({sayOutput("f1", 1, 0, memoryOf("f", 1), "first"),
                                      sayOutput("f1", 1, 1, memoryOf("g", 1), "second")})));
    submit(recorder,
           magmaExchange(request("f2", {input(1, "user", "Press another", memoryOf("f", 1))}),
                         Json::array({sayOutput("f2", 1, 0, memoryOf("f", 2), "a")})));
    submit(recorder,
           magmaExchange(request("f3", {input(1, "user", "Press another", memoryOf("g", 1))}),
                         Json::array({sayOutput("f3", 1, 0, memoryOf("g", 2), "b")})));
    submit(recorder,
           magmaExchange(request("f4", {input(1, "user", "Press once more", memoryOf("f", 2))}),
                         Json::array({sayOutput("f4", 1, 0, memoryOf("f", 3), "c")})));
  }
  ArchiveReader reader(path);
  SearchQuery query;
  query.text = "press";
  const std::vector<SearchHit> hits = reader.search(query);
  ASSERT_THAT(stepIds(hits), ElementsAre(1, 2, 3, 4));
  ASSERT_EQ(hits[3].conversation_id, hits[0].conversation_id);
  EXPECT_THAT(reader.timelineNumbers(hits), ElementsAre(1, 2, 4, 3));
}

/// Many steps in two sessions, written in several batches: the merge of the field streams and
/// the session bounds give exactly the first steps by id.
TEST(SearchManyTest, StopsAtTheLimitInIdOrderAcrossBatchesAndSessions) {
  TempDir dir;
  const std::string path = dir.file("many.sqlite");
  std::vector<std::int64_t> expected_a;
  std::vector<std::int64_t> expected_b;
  std::int64_t sessions[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    RecorderOptions options = testOptions();
    options.max_batch = 7;
    Recorder recorder(path, testSession(s == 0 ? "a" : "b"), options);
    sessions[s] = recorder.sessionId();
    for (int i = 0; i < 60; ++i) {
      const std::string rid = "r" + std::to_string(s) + "-" + std::to_string(i);
      // Every third step says "marker" in its instruction, every fifth in its say, every
      // seventh in its output_raw: the streams interleave.
      const std::string instruction = i % 3 == 0 ? "marker step " + std::to_string(i) : "plain";
      const std::string say = i % 5 == 0 ? "a marker answer" : "ok";
      const std::string raw = i % 7 == 0 ? "marker raw" : "raw";
      Json out = withInternalStep(sayOutput(rid, i, 0, memoryOf(rid, 2), say), "prompt", raw);
      submit(recorder,
             magmaExchange(request(rid, {input(i, "user", instruction, memoryOf(rid, 0))}),
                           Json::array({out})));
      if (i % 3 == 0 || i % 5 == 0 || i % 7 == 0) {
        (s == 0 ? expected_a : expected_b).push_back(s * 60 + i + 1);
      }
    }
  }
  ArchiveReader reader(path);
  SearchQuery q;
  q.text = "marker";
  q.limit = 1000;
  std::vector<std::int64_t> all = expected_a;
  all.insert(all.end(), expected_b.begin(), expected_b.end());
  EXPECT_EQ(stepIds(reader.search(q)), all);
  q.limit = 10;
  EXPECT_EQ(stepIds(reader.search(q)),
            std::vector<std::int64_t>(expected_a.begin(), expected_a.begin() + 10));
  q.session_id = sessions[1];
  EXPECT_EQ(stepIds(reader.search(q)),
            std::vector<std::int64_t>(expected_b.begin(), expected_b.begin() + 10));
  q.limit = 1000;
  EXPECT_EQ(stepIds(reader.search(q)), expected_b);
}

/// A large synthetic archive written with SQL (the indexes rebuilt at the end), to reach both
/// strategies of text with an indexed filter (few steps: look for the text in each; many: read
/// the text's matches) and both of the latency filter (few slow exchanges: a set; many: a
/// check per step). Step i (1..N) is exchange i and conversation i, in session 1 for the first
/// half, else 2; its instruction is "common" (and "seventh" when 7 divides i); its candidate
/// failed with "many" when 4 divides i, with "few" when i % 500 == 1, else completed; its
/// exchange took 5 s when i % 1000 == 3, else 1 µs.
class SearchScaleTest : public ::testing::Test {
 protected:
  static constexpr std::int64_t kSteps = 10050;

  static void SetUpTestSuite() {
    dir_ = new TempDir;
    path_ = new std::string(dir_->file("scale.sqlite"));
    migrateArchive(*path_);
    SQLite::Database db(*path_, SQLite::OPEN_READWRITE);
    SQLite::Transaction tx(db);
    db.exec(R"sql(
      INSERT INTO sessions (id, name, mode, upstream, listen, started_ns)
      VALUES (1, 'one', 'record', 'u', 'l', 1), (2, 'two', 'record', 'u', 'l', 2);
      INSERT INTO blobs (hash, text) VALUES (1, '{}');)sql");
    SQLite::Statement exchange(db, R"sql(
      INSERT INTO exchanges (id, session_id, seq, client_address, method, target, http_version,
        status, request_headers, request_body, response_headers, response_body,
        response_from_upstream, started_ns, ended_ns, outcome)
      VALUES (?1, ?2, ?1, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'', '[]', X'', 1, 0,
              ?3, 'complete'))sql");
    SQLite::Statement conversation(
        db, "INSERT INTO conversations (id, session_id, root_step_id) VALUES (?1, ?2, ?1)");
    SQLite::Statement step(db, R"sql(
      INSERT INTO steps (id, exchange_id, session_id, position, source_id, replay_key,
        instruction_type, instruction_content, memory_hash, tools_hash, attributes_hash,
        extra_keys_hash, num_outputs, conversation_id)
      VALUES (?1, ?1, ?2, 0, 1, ?1, 'user', ?3, 1, 1, 1, 1, 1, ?1))sql");
    SQLite::Statement candidate(db, R"sql(
      INSERT INTO candidates (id, step_id, candidate_index, status, say, tool_calls,
        error_code, error_message, memory_hash)
      VALUES (?1, ?1, 0, ?2, ?3, ?4, ?5, ?6, 1))sql");
    for (std::int64_t i = 1; i <= kSteps; ++i) {
      const std::int64_t session = sessionOf(i);
      exchange.bind(1, i);
      exchange.bind(2, session);
      exchange.bind(3, static_cast<std::int64_t>(i % 1000 == 3 ? 5'000'000'000 : 1000));
      exchange.exec();
      exchange.reset();
      conversation.bind(1, i);
      conversation.bind(2, session);
      conversation.exec();
      conversation.reset();
      step.bind(1, i);
      step.bind(2, session);
      step.bind(3, i % 7 == 0 ? "common seventh" : "common");
      step.exec();
      step.reset();
      const std::string code = codeOf(i);
      candidate.bind(1, i);
      if (code.empty()) {
        candidate.bind(2, "completed");
        candidate.bind(3, "ok");
        candidate.bind(4, "[]");
        candidate.bind(5);
        candidate.bind(6);
      } else {
        candidate.bind(2, "error");
        candidate.bind(3);
        candidate.bind(4);
        candidate.bind(5, code);
        candidate.bind(6, "failed");
      }
      candidate.exec();
      candidate.reset();
    }
    db.exec(R"sql(
      INSERT INTO search_steps (search_steps) VALUES ('rebuild');
      INSERT INTO search_candidates (search_candidates) VALUES ('rebuild');
      INSERT INTO search_internal_steps (search_internal_steps) VALUES ('rebuild');)sql");
    tx.commit();
  }

  static void TearDownTestSuite() {
    delete path_;
    path_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }

  static std::int64_t sessionOf(std::int64_t i) { return i <= kSteps / 2 ? 1 : 2; }

  static std::string codeOf(std::int64_t i) {
    return i % 4 == 0 ? "many" : i % 500 == 1 ? "few" : "";
  }

  static bool slow(std::int64_t i) { return i % 1000 == 3; }

  /// The first `limit` steps i for which `keep(i)`.
  template <class Keep>
  static std::vector<std::int64_t> expected(Keep keep, std::size_t limit) {
    std::vector<std::int64_t> ids;
    for (std::int64_t i = 1; i <= kSteps && ids.size() < limit; ++i) {
      if (keep(i)) {
        ids.push_back(i);
      }
    }
    return ids;
  }

  std::vector<std::int64_t> run(const SearchQuery& q) {
    ArchiveReader reader(*path_);
    return stepIds(reader.search(q));
  }

  static TempDir* dir_;
  static std::string* path_;
};

TempDir* SearchScaleTest::dir_ = nullptr;
std::string* SearchScaleTest::path_ = nullptr;

TEST_F(SearchScaleTest, TextWithAnErrorFilter) {
  SearchQuery q;
  q.text = "common";
  q.error_code = "many";  // 2512 steps: the text's matches are read
  q.limit = 50;
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return codeOf(i) == "many"; }, 50));
  q.text = "seventh";
  q.limit = 1000;
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return i % 28 == 0; }, 1000));
  q.error_code = "few";  // 21 steps: the text is looked for in each
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return i % 500 == 1 && i % 7 == 0; }, 1000));
  q.text = "common";
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return i % 500 == 1; }, 1000));
  q.session_id = 2;
  EXPECT_EQ(run(q),
            expected([](std::int64_t i) { return i % 500 == 1 && sessionOf(i) == 2; }, 1000));
  q = {};
  q.text = "common";
  q.status = "error";
  q.limit = 100;
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return !codeOf(i).empty(); }, 100));
  q.text = "failed";  // in the error messages
  ArchiveReader reader(*path_);
  std::vector<SearchHit> hits = reader.search(q);
  EXPECT_EQ(stepIds(hits), expected([](std::int64_t i) { return !codeOf(i).empty(); }, 100));
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].field, "error");
  EXPECT_EQ(hits[0].snippet, "[failed]");
  q.error_code = "few";
  hits = reader.search(q);
  EXPECT_EQ(stepIds(hits), expected([](std::int64_t i) { return codeOf(i) == "few"; }, 100));
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].field, "error");
  EXPECT_EQ(hits[0].snippet, "[failed]");
}

TEST_F(SearchScaleTest, TextWithALatencyFilter) {
  SearchQuery q;
  q.text = "seventh";
  q.min_latency_ns = 5'000'000'000;  // 11 slow exchanges
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return slow(i) && i % 7 == 0; }, 1000));
  q.text = "common";
  EXPECT_EQ(run(q), expected(slow, 1000));
  q.min_latency_ns = 500;  // every exchange, more than 10000: checked step by step
  q.limit = 20;
  EXPECT_EQ(run(q), expected([](std::int64_t) { return true; }, 20));
  q.min_latency_ns = 5'000'000'001;
  EXPECT_TRUE(run(q).empty());
}

TEST_F(SearchScaleTest, FiltersOnly) {
  SearchQuery q;
  q.min_latency_ns = 5'000'000'000;
  EXPECT_EQ(run(q), expected(slow, 1000));
  q.session_id = 2;
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return slow(i) && sessionOf(i) == 2; }, 1000));
  q.min_latency_ns = 500;
  q.limit = 10;
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return sessionOf(i) == 2; }, 10));
  q = {};
  q.error_code = "few";
  q.session_id = 1;
  EXPECT_EQ(run(q),
            expected([](std::int64_t i) { return i % 500 == 1 && sessionOf(i) == 1; }, 1000));
  q = {};
  q.status = "error";
  q.min_latency_ns = 5'000'000'000;  // 5003 and 10003 are neither "many" nor "few"
  EXPECT_TRUE(run(q).empty());
  q = {};
  q.status = "completed";
  q.limit = 5;
  EXPECT_EQ(run(q), expected([](std::int64_t i) { return codeOf(i).empty(); }, 5));
}

TEST(SearchFailureTest, AnExchangeRolledBackLeavesNothingInTheIndex) {
  TempDir dir;
  const std::string path = dir.file("fail.sqlite");
  { Recorder first(path, testSession("first"), testOptions()); }
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec(
        "CREATE TRIGGER refuse_boom BEFORE INSERT ON candidates WHEN NEW.say = 'boom' "
        "BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
  }
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{60000};  // all in one batch
  Recorder recorder(path, testSession("second"), options);
  ::testing::internal::CaptureStderr();
  for (const char* say : {"alpha", "boom", "gamma"}) {
    const std::string rid = std::string("r-") + say;
    submit(recorder,
           magmaExchange(
               request(rid, {input(1, "user", std::string("word ") + say, memoryOf(rid, 0))}),
               Json::array({sayOutput(rid, 1, 0, memoryOf(rid, 2), say)})));
  }
  recorder.flush();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("boom refused"));
  // Captured all three; the one whose index rows failed is indexed with the failure instead.
  EXPECT_EQ(recorder.stats().written, 3u);
  EXPECT_EQ(recorder.stats().indexed, 3u);
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM exchanges WHERE indexed = 0").getInt(), 0);
    const std::string findings =
        db.execAndGet(
              "SELECT findings FROM exchanges WHERE magma_request_id IS NULL AND "
              "session_id = 2")
            .getString();
    EXPECT_THAT(findings, HasSubstr("\"type\":\"index_error\""));
    EXPECT_THAT(findings, HasSubstr("boom refused"));
  }

  ArchiveReader reader(path);
  SearchQuery q;
  q.text = "word";
  std::vector<SearchHit> hits = reader.search(q);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(reader.step(hits[0].step_id)->instruction_content, "word alpha");
  EXPECT_EQ(reader.step(hits[1].step_id)->instruction_content, "word gamma");
  q.text = "boom";
  EXPECT_TRUE(reader.search(q).empty());
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  for (const char* table : {"search_steps", "search_candidates", "search_internal_steps"}) {
    SCOPED_TRACE(table);
    EXPECT_NO_THROW(db.exec(std::string("INSERT INTO ") + table + " (" + table +
                            ", rank) VALUES ('integrity-check', 1)"));
  }
}

}  // namespace
}  // namespace agentvcr::store
