// A2A exchanges as the writer stores them: a2a_calls rows, conversations by contextId,
// stream events with their arrival times, agent cards, redaction.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using testing::a2aSend;
using testing::a2aTask;
using ::testing::HasSubstr;
using testing::httpExchange;
using ::testing::Not;
using testing::queryInt;
using testing::queryText;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

class A2aDecodingTest : public ::testing::Test {
 protected:
  void record(std::vector<protocol::Exchange> exchanges) {
    Recorder recorder(path_, testSession(), testOptions());
    for (auto& ex : exchanges) {
      submit(recorder, std::move(ex));
    }
    recorder.flush();
  }

  TempDir dir_;
  std::string path_ = dir_.file("a2a.sqlite");
};

TEST_F(A2aDecodingTest, RecordsEachCallWithItsFieldsAndRoute) {
  auto ex = httpExchange("POST", "/api/v1/a2a", a2aSend(1, "m-1", "What is grace?"), 200,
                         a2aTask(1, "t-1", "c-1", "completed", "A gift."));
  ex.request_headers.push_back({"Authorization", "Bearer tok-secret-123"});
  record({ex});
  EXPECT_EQ(queryText(path_, "SELECT protocol || ' ' || route FROM exchanges"), "a2a a2a.jsonrpc");
  EXPECT_EQ(queryText(path_, R"sql(SELECT wire_version || '|' || method || '|' || rpc_id || '|' ||
      task_id || '|' || context_id || '|' || skill_id || '|' || message_id || '|' || task_state ||
      '|' || result_kind || '|' || request_text || '|' || response_text FROM a2a_calls)sql"),
            "0.3|message/send|1|t-1|c-1|catholic_qa|m-1|completed|task|What is grace?|A gift.");
  EXPECT_THAT(queryText(path_, "SELECT request_headers FROM exchanges"),
              Not(HasSubstr("tok-secret-123")));
  EXPECT_THAT(queryText(path_, "SELECT request_headers FROM exchanges"), HasSubstr("REDACTED-"));
  EXPECT_EQ(queryInt(path_, "SELECT decoder_version FROM exchanges"), 2);
}

TEST_F(A2aDecodingTest, ThreadsCallsByContextIdAndTasksGetByTaskId) {
  record({
      httpExchange("POST", "/api/v1/a2a", a2aSend(1, "m-1", "first question"), 200,
                   a2aTask(1, "t-1", "c-1", "completed", "one")),
      httpExchange("POST", "/api/v1/a2a", a2aSend(2, "m-2", "other topic"), 200,
                   a2aTask(2, "t-2", "c-2", "failed", "")),
      httpExchange("POST", "/api/v1/a2a", a2aSend(3, "m-3", "follow-up", "c-1"), 200,
                   a2aTask(3, "t-3", "c-1", "completed", "three")),
      httpExchange(
          "POST", "/api/v1/a2a",
          R"({"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"id":"t-1"}})", 200,
          R"({"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid state transition"}})"),
  });
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM conversations WHERE protocol = 'a2a'"), 2);
  EXPECT_EQ(queryInt(path_, "SELECT conversation_count FROM sessions"), 2);
  EXPECT_EQ(queryText(path_, R"sql(SELECT context_id || '|' || title || '|' || step_count || '|' ||
      error_candidates || '|' || ended_in FROM conversations ORDER BY id LIMIT 1)sql"),
            "c-1|first question|3|1|error");
  EXPECT_EQ(queryInt(path_, R"sql(SELECT count(DISTINCT conversation_id) FROM a2a_calls
      WHERE task_id IN ('t-1', 't-3'))sql"),
            1);
  EXPECT_EQ(queryText(path_, "SELECT ended_in FROM conversations WHERE context_id = 'c-2'"),
            "failed");
}

TEST_F(A2aDecodingTest, KeepsErrorsWithRetryAfterAndAgentCards) {
  record({
      httpExchange(
          "POST", "/api/v1/a2a", a2aSend(1, "m-1", "q"), 429,
          R"({"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Rate limit exceeded","data":{"retryAfter":42}}})"),
      httpExchange("GET", "/.well-known/agent.json", "", 200, R"({"name":"mock"})"),
      httpExchange(
          "POST", "/api/v1/a2a", "{broken", 200,
          R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})"),
      httpExchange("POST", "/v2/other", R"({"hello":"world"})", 200, "{}"),
  });
  EXPECT_EQ(queryText(path_, R"sql(SELECT error_code || '|' || error_message || '|' ||
      error_data || '|' || retry_after FROM a2a_calls WHERE error_code = -32003)sql"),
            R"(-32003|Rate limit exceeded|{"retryAfter":42}|42.0)");
  EXPECT_EQ(queryText(path_, "SELECT route FROM exchanges WHERE target LIKE '/.well-known%'"),
            "a2a.agent_card");
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM a2a_calls WHERE error_code = -32700"), 1);
  EXPECT_EQ(queryText(path_, "SELECT protocol FROM exchanges WHERE target = '/v2/other'"), "http");
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM a2a_calls"), 2);
}

TEST_F(A2aDecodingTest, StoresEachStreamEventWithTheTimeItArrived) {
  const std::string first =
      R"(data: {"jsonrpc":"2.0","id":7,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}})"
      "\n\n";
  const std::string second =
      R"(event: update)"
      "\n"
      R"(data: {"jsonrpc":"2.0","id":7,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}})"
      "\n\n";
  auto ex = httpExchange(
      "POST", "/",
      R"({"jsonrpc":"2.0","id":7,"method":"message/stream","params":{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"go"}]}}})",
      200, first + second);
  ex.response_headers = {{"Content-Type", "text/event-stream"}};
  // The first event came whole in the first piece; the second in two pieces, 300 ms later.
  ex.response_arrivals = {{first.size(), 1'000'000'000},
                          {first.size() + 10, 1'200'000'000},
                          {first.size() + second.size(), 1'300'000'000}};
  record({ex});
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM stream_events"), 2);
  EXPECT_EQ(queryInt(path_, "SELECT at_ns FROM stream_events WHERE position = 0"), 1'000'000'000);
  EXPECT_EQ(queryInt(path_, "SELECT at_ns FROM stream_events WHERE position = 1"), 1'300'000'000);
  EXPECT_EQ(queryText(path_, "SELECT event FROM stream_events WHERE position = 1"), "update");
  EXPECT_EQ(queryText(path_, "SELECT task_state || '|' || method FROM a2a_calls"),
            "completed|message/stream");
}

TEST_F(A2aDecodingTest, RecordsEveryCallOfABatch) {
  record({httpExchange(
      "POST", "/api/v1/a2a",
      R"([{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"a"}},{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"b"}}])",
      200,
      R"([{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}])")});
  EXPECT_EQ(queryText(path_, R"sql(SELECT group_concat(position || ':' || wire_version || ':' ||
      error_code, ' ') FROM (SELECT * FROM a2a_calls ORDER BY position))sql"),
            "0:0.3:-32001 1:1.0:-32601");
}

TEST_F(A2aDecodingTest, TheReaderListsCallsOfAConversationAndEventsOfAnExchange) {
  auto stream = httpExchange("POST", "/", a2aSend(2, "m-2", "more", "c-1"), 200,
                             "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":"
                             "\"status-update\",\"taskId\":\"t-2\",\"contextId\":\"c-1\","
                             "\"status\":{\"state\":\"completed\"},\"final\":true}}\n\n");
  stream.response_headers = {{"Content-Type", "text/event-stream"}};
  record({httpExchange("POST", "/api/v1/a2a", a2aSend(1, "m-1", "first"), 200,
                       a2aTask(1, "t-1", "c-1", "completed", "one")),
          stream});
  ArchiveReader reader(path_);
  auto conversations = reader.conversations(1);
  ASSERT_EQ(conversations.size(), 1u);
  EXPECT_EQ(conversations[0].protocol, "a2a");
  EXPECT_EQ(conversations[0].context_id, "c-1");
  auto calls = reader.a2aCalls(conversations[0].id);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].task_id, "t-1");
  EXPECT_EQ(calls[0].status, 200);
  EXPECT_EQ(calls[0].stream_event_count, 0);
  EXPECT_EQ(calls[1].task_state, "completed");
  EXPECT_EQ(calls[1].stream_event_count, 1);
  auto events = reader.streamEvents(calls[1].exchange_id);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THAT(events[0].data, HasSubstr("status-update"));
  EXPECT_EQ(reader.a2aCallsOfExchange(calls[0].exchange_id).size(), 1u);

  std::vector<std::string> methods;
  reader.forEachA2aCall(ReplaySelection{{1}, {}},
                        [&](const A2aCallRow& call) { methods.push_back(*call.method); });
  EXPECT_EQ(methods, (std::vector<std::string>{"message/send", "message/send"}));
  methods.clear();
  reader.forEachA2aCall(ReplaySelection{{2}, {}},
                        [&](const A2aCallRow& call) { methods.push_back(*call.method); });
  EXPECT_TRUE(methods.empty());
}

}  // namespace
}  // namespace agentvcr::store
