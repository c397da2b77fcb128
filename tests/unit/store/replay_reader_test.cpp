// The ArchiveReader queries replay loads from: forEachReplayStep, exchangesOfRoute,
// recordedResponse.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

/// Two recorded sessions:
///   A: r1 (two inputs: source 1 with two candidates, source 2 with one), /health,
///      r2 (an env step continuing source 1's first candidate, answered 500),
///      r3 (a root whose response is not JSON: response_valid = false, no candidates);
///   B: /health, r4 (one root with one candidate).
class ReplayReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      Recorder a(path_, testSession("a"), testOptions());
      session_a_ = a.sessionId();
      submit(a, magmaExchange(request("r1", {input(1, "user", "press sw1", memoryOf("a", 0), 2),
                                             input(2, "user", "press sw2", memoryOf("b", 0))}),
                              Json::array({sayOutput("r1", 1, 0, memoryOf("a", 2), "x"),
                                           sayOutput("r1", 1, 1, memoryOf("a", 3), "y"),
                                           sayOutput("r1", 2, 0, memoryOf("b", 2), "z")})));
      submit(a, httpExchange("GET", "/health", "", 200, R"({"status":"ready","from":"a"})"));
      protocol::Exchange failed =
          magmaExchange(request("r2", {input(1, "env", "[SUCCESS] done", memoryOf("a", 2))}),
                        Json{{"detail", "boom"}}, 500);
      failed.response_headers.push_back({"Set-Cookie", "session=abc"});
      submit(a, std::move(failed));
      protocol::Exchange invalid =
          magmaExchange(request("r3", {input(5, "user", "press sw3", memoryOf("c", 0))}), Json{});
      invalid.response_body = "not json";
      submit(a, std::move(invalid));
    }
    {
      Recorder b(path_, testSession("b"), testOptions());
      session_b_ = b.sessionId();
      submit(b, httpExchange("GET", "/health", "", 200, R"({"status":"ready","from":"b"})"));
      submit(b, magmaExchange(request("r4", {input(1, "user", "press sw4", memoryOf("d", 0))}),
                              Json::array({sayOutput("r4", 1, 0, memoryOf("d", 2), "w")})));
    }
  }

  std::vector<ReplayStepRef> stepsOf(const ReplaySelection& selection) const {
    ArchiveReader reader(path_);
    std::vector<ReplayStepRef> steps;
    reader.forEachReplayStep(selection, [&](const ReplayStepRef& s) { steps.push_back(s); });
    return steps;
  }

  static std::vector<std::string> contents(const std::vector<ReplayStepRef>& steps) {
    std::vector<std::string> out;
    for (const ReplayStepRef& s : steps) {
      out.push_back(s.instruction_content);
    }
    return out;
  }

  /// The step of session A recorded with this instruction.
  StepRow stepWith(const std::string& content) const {
    ArchiveReader reader(path_);
    for (const ConversationRow& c : reader.conversations(session_a_)) {
      for (StepRow& s : reader.steps(c.id)) {
        if (s.instruction_content == content) {
          return s;
        }
      }
    }
    ADD_FAILURE() << "no step " << content;
    return StepRow{};
  }

  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
  std::int64_t session_a_ = 0;
  std::int64_t session_b_ = 0;
};

TEST_F(ReplayReaderTest, AllStepsInRecordingOrderWithWhatReplayNeeds) {
  std::vector<ReplayStepRef> steps = stepsOf(ReplaySelection{});
  ASSERT_EQ(contents(steps), (std::vector<std::string>{"press sw1", "press sw2", "[SUCCESS] done",
                                                       "press sw3", "press sw4"}));
  EXPECT_TRUE(std::is_sorted(
      steps.begin(), steps.end(),
      [](const ReplayStepRef& x, const ReplayStepRef& y) { return x.step_id < y.step_id; }));

  // Every field agrees with the step and exchange rows.
  ArchiveReader reader(path_);
  for (const ReplayStepRef& ref : steps) {
    SCOPED_TRACE(ref.instruction_content);
    std::optional<StepRow> step = reader.step(ref.step_id);
    ASSERT_TRUE(step.has_value());
    EXPECT_EQ(ref.exchange_id, step->exchange_id);
    EXPECT_EQ(ref.session_id, step->session_id);
    EXPECT_EQ(ref.conversation_id, step->conversation_id);
    EXPECT_EQ(ref.position, step->position);
    EXPECT_EQ(ref.source_id, step->source_id);
    EXPECT_EQ(ref.replay_key, step->replay_key);
    EXPECT_EQ(ref.instruction_type, step->instruction_type);
    EXPECT_EQ(ref.memory_hash, step->memory_hash);
    EXPECT_EQ(ref.tools_hash, step->tools_hash);
    EXPECT_EQ(ref.attributes_hash, step->attributes_hash);
    EXPECT_EQ(ref.extra_keys_hash, step->extra_keys_hash);
    EXPECT_EQ(ref.num_outputs, step->num_outputs);
    EXPECT_EQ(ref.candidate_count, step->candidate_count);
    std::optional<ExchangeRow> exchange = reader.exchange(ref.exchange_id);
    ASSERT_TRUE(exchange.has_value());
    EXPECT_EQ(ref.exchange_status, exchange->status);
    EXPECT_EQ(ref.response_valid, exchange->response_valid);
  }

  const ReplayStepRef& sw1 = steps[0];
  EXPECT_EQ(sw1.session_id, session_a_);
  EXPECT_EQ(sw1.replay_key,
            protocol::magma::replayKey(input(1, "user", "press sw1", memoryOf("a", 0), 2)));
  EXPECT_EQ(sw1.source_id, 1);
  EXPECT_EQ(sw1.position, 0);
  EXPECT_EQ(sw1.instruction_type, "user");
  EXPECT_EQ(sw1.num_outputs, 2);
  EXPECT_EQ(sw1.candidate_count, 2);
  EXPECT_EQ(sw1.exchange_status, 200);
  EXPECT_EQ(sw1.response_valid, std::optional<bool>(true));

  const ReplayStepRef& sw2 = steps[1];
  EXPECT_EQ(sw2.exchange_id, sw1.exchange_id);
  EXPECT_EQ(sw2.position, 1);
  EXPECT_EQ(sw2.candidate_count, 1);

  const ReplayStepRef& env = steps[2];  // answered 500: no validation applies
  EXPECT_EQ(env.instruction_type, "env");
  EXPECT_EQ(env.conversation_id, sw1.conversation_id);
  EXPECT_EQ(env.candidate_count, 0);
  EXPECT_EQ(env.exchange_status, 500);
  EXPECT_FALSE(env.response_valid.has_value());

  const ReplayStepRef& sw3 = steps[3];  // 200 with a body that is not JSON
  EXPECT_EQ(sw3.candidate_count, 0);
  EXPECT_EQ(sw3.exchange_status, 200);
  EXPECT_EQ(sw3.response_valid, std::optional<bool>(false));

  EXPECT_EQ(steps[4].session_id, session_b_);
}

TEST_F(ReplayReaderTest, SelectsStepsBySessionAndConversation) {
  const StepRow sw1 = stepWith("press sw1");
  const StepRow sw2 = stepWith("press sw2");
  ASSERT_NE(sw1.conversation_id, sw2.conversation_id);

  EXPECT_EQ(contents(stepsOf(ReplaySelection{{session_b_}, {}})),
            (std::vector<std::string>{"press sw4"}));
  EXPECT_EQ(contents(stepsOf(ReplaySelection{{session_a_}, {}})),
            (std::vector<std::string>{"press sw1", "press sw2", "[SUCCESS] done", "press sw3"}));
  EXPECT_EQ(contents(stepsOf(ReplaySelection{{session_a_, session_b_}, {}})).size(), 5u);
  // A conversation brings its whole tree, and only it.
  EXPECT_EQ(contents(stepsOf(ReplaySelection{{}, {sw1.conversation_id}})),
            (std::vector<std::string>{"press sw1", "[SUCCESS] done"}));
  // Sessions and conversations add up, in recording order, each step once.
  EXPECT_EQ(contents(stepsOf(ReplaySelection{{session_b_}, {sw2.conversation_id}})),
            (std::vector<std::string>{"press sw2", "press sw4"}));
  EXPECT_EQ(contents(stepsOf(ReplaySelection{{session_a_}, {sw2.conversation_id}})).size(), 4u);
  EXPECT_TRUE(stepsOf(ReplaySelection{{999}, {}}).empty());
  EXPECT_TRUE(stepsOf(ReplaySelection{{}, {999}}).empty());
}

TEST_F(ReplayReaderTest, ExchangesOfARouteInTheSelectedSessions) {
  ArchiveReader reader(path_);
  std::vector<ExchangeRow> health = reader.exchangesOfRoute(ReplaySelection{}, "health");
  ASSERT_EQ(health.size(), 2u);
  EXPECT_LT(health[0].id, health[1].id);
  EXPECT_EQ(health[0].session_id, session_a_);
  EXPECT_EQ(health[0].route, "health");
  EXPECT_TRUE(health[0].has_payload);
  EXPECT_EQ(health[0].method, "GET");
  EXPECT_EQ(health[0].target, "/health");
  EXPECT_EQ(health[0].status, 200);
  EXPECT_EQ(health[0].response_body, R"({"status":"ready","from":"a"})");
  EXPECT_FALSE(health[0].request_headers.empty());
  ASSERT_EQ(health[0].response_headers.size(), 1u);
  EXPECT_EQ(health[0].response_headers[0].name, "content-type");
  EXPECT_EQ(health[1].session_id, session_b_);
  EXPECT_EQ(health[1].response_body, R"({"status":"ready","from":"b"})");

  std::vector<ExchangeRow> only_b =
      reader.exchangesOfRoute(ReplaySelection{{session_b_}, {}}, "health");
  ASSERT_EQ(only_b.size(), 1u);
  EXPECT_EQ(only_b[0].session_id, session_b_);

  // A conversation selects its session's exchanges.
  const StepRow sw1 = stepWith("press sw1");
  std::vector<ExchangeRow> of_a =
      reader.exchangesOfRoute(ReplaySelection{{}, {sw1.conversation_id}}, "health");
  ASSERT_EQ(of_a.size(), 1u);
  EXPECT_EQ(of_a[0].session_id, session_a_);
  EXPECT_EQ(reader.exchangesOfRoute(ReplaySelection{{session_b_}, {sw1.conversation_id}}, "health")
                .size(),
            2u);

  std::vector<ExchangeRow> responses =
      reader.exchangesOfRoute(ReplaySelection{{session_a_}, {}}, "responses");
  ASSERT_EQ(responses.size(), 3u);
  EXPECT_EQ(responses[0].magma_request_id.value_or(""), "r1");
  EXPECT_EQ(responses[2].magma_request_id.value_or(""), "r3");
  EXPECT_EQ(responses[1].status, 500);

  EXPECT_TRUE(reader.exchangesOfRoute(ReplaySelection{}, "coaching").empty());
  EXPECT_TRUE(reader.exchangesOfRoute(ReplaySelection{{999}, {}}, "health").empty());
  EXPECT_TRUE(reader.exchangesOfRoute(ReplaySelection{}, "no-such-route").empty());
}

TEST_F(ReplayReaderTest, RecordedResponseIsWhatTheCallerReceived) {
  ArchiveReader reader(path_);
  const StepRow env = stepWith("[SUCCESS] done");
  std::optional<RecordedResponse> failed = reader.recordedResponse(env.exchange_id);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->status, 500);
  EXPECT_EQ(failed->body, R"({"detail":"boom"})");
  ASSERT_EQ(failed->headers.size(), 2u);
  EXPECT_EQ(failed->headers[0].name, "content-type");
  EXPECT_EQ(failed->headers[0].value, "application/json");
  EXPECT_EQ(failed->headers[1].name, "Set-Cookie");
  EXPECT_NE(failed->headers[1].value, "session=abc");  // redacted before storage

  std::optional<ExchangeRow> full = reader.exchange(stepWith("press sw1").exchange_id);
  ASSERT_TRUE(full.has_value());
  std::optional<RecordedResponse> ok = reader.recordedResponse(full->id);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, full->status);
  EXPECT_EQ(ok->body, full->response_body);
  EXPECT_EQ(ok->headers, full->response_headers);

  EXPECT_FALSE(reader.recordedResponse(9999).has_value());
}

TEST_F(ReplayReaderTest, TheVisitorMayQueryTheSameReader) {
  ArchiveReader reader(path_);
  std::size_t visited = 0;
  reader.forEachReplayStep(ReplaySelection{}, [&](const ReplayStepRef& ref) {
    ++visited;
    EXPECT_TRUE(reader.recordedResponse(ref.exchange_id).has_value());
    EXPECT_TRUE(reader.inputJson(ref.step_id).has_value());
  });
  EXPECT_EQ(visited, 5u);
}

}  // namespace
}  // namespace agentvcr::store
