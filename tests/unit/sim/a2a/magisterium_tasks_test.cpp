// What the Magisterium profile does with valid requests: terminal tasks, history, contexts,
// failures, 24-hour retention, quotas, no-auth, and byte-reproducible output.

#include <regex>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using namespace std::chrono_literals;
using testing::Harness;
using testing::header;
using testing::parse;
using testing::request;
using testing::sendRequest;
using testing::taskRequest;
using testing::userMessage;
using testing::withSkill;

bool isUuid(const Json& value) {
  static const std::regex uuid(
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  return value.is_string() && std::regex_match(value.get<std::string>(), uuid);
}

class MagisteriumTasks : public ::testing::Test {
 protected:
  Harness mock_{testing::magisteriumConfig()};
};

TEST_F(MagisteriumTasks, SendReturnsACompletedTaskWithArtifactsAndHistory) {
  Json task = mock_.send(userMessage("What is grace?"));
  EXPECT_EQ(task["kind"], "task");
  EXPECT_TRUE(isUuid(task["id"])) << task["id"];
  EXPECT_TRUE(isUuid(task["contextId"])) << "minted when absent";
  EXPECT_NE(task["id"], task["contextId"]);
  EXPECT_EQ(task["status"],
            parse(R"({"state":"completed","timestamp":"2025-01-01T00:00:00.000Z"})"));
  ASSERT_EQ(task["artifacts"].size(), 1u);
  const Json& artifact = task["artifacts"][0];
  EXPECT_TRUE(isUuid(artifact["artifactId"]));
  EXPECT_EQ(artifact["name"], "answer");
  ASSERT_EQ(artifact["parts"].size(), 2u);
  EXPECT_EQ(artifact["parts"][0]["kind"], "text");
  EXPECT_EQ(artifact["parts"][0]["text"].get<std::string>().rfind("Grace is favour", 0), 0u);
  EXPECT_EQ(artifact["parts"][1]["kind"], "data");
  EXPECT_EQ(artifact["parts"][1]["data"]["citations"][0]["reference"], "CCC 1996");
  ASSERT_EQ(task["history"].size(), 2u);
  Json user = userMessage("What is grace?");
  user["contextId"] = task["contextId"];
  user["taskId"] = task["id"];
  EXPECT_EQ(task["history"][0], user) << "the user's message, stamped with the task's ids";
  const Json& agent = task["history"][1];
  EXPECT_EQ(agent["role"], "agent");
  EXPECT_EQ(agent["kind"], "message");
  EXPECT_TRUE(isUuid(agent["messageId"]));
  EXPECT_EQ(agent["parts"][0]["text"], artifact["parts"][0]["text"]);
  EXPECT_EQ(agent["taskId"], task["id"]);
  EXPECT_EQ(task["metadata"], parse(R"({"skillId":"catholic_qa"})"));
}

TEST_F(MagisteriumTasks, ChosenSkillAnswersAndKeepsTheClientsContext) {
  Json message = withSkill(userMessage("encyclicals on work"), "document_search");
  message["contextId"] = "ctx-client";
  Json task = mock_.send(message);
  EXPECT_EQ(task["contextId"], "ctx-client");
  EXPECT_EQ(task["metadata"]["skillId"], "document_search");
  EXPECT_EQ(task["artifacts"][0]["name"], "search_results");
  EXPECT_EQ(task["artifacts"][0]["parts"][0]["text"], "2 documents match: encyclicals on work");
  EXPECT_EQ(task["artifacts"][0]["parts"][1]["data"]["results"][0]["title"], "Rerum Novarum");
  Json again = withSkill(userMessage("liturgy", "m-2"), "liturgical_readings");
  again["contextId"] = "ctx-client";
  Json second = mock_.send(again);
  EXPECT_EQ(second["contextId"], "ctx-client");
  EXPECT_NE(second["id"], task["id"]);
  EXPECT_EQ(second["history"].size(), 2u) << "history is per task";
}

TEST_F(MagisteriumTasks, EmptyContextIdCountsAsAbsent) {
  Json message = userMessage("What is grace?");
  message["contextId"] = "";
  EXPECT_TRUE(isUuid(mock_.send(message)["contextId"]));
}

TEST_F(MagisteriumTasks, FailingSkillGivesAFailedTaskWithTheReason) {
  Json task = mock_.send(userMessage("What is grace? [fail]"));
  EXPECT_EQ(task["status"]["state"], "failed");
  const Json& reason = task["status"]["message"];
  EXPECT_EQ(reason["role"], "agent");
  EXPECT_EQ(reason["parts"][0]["text"],
            "The answer could not be generated. Please try again later.");
  EXPECT_EQ(reason["taskId"], task["id"]);
  EXPECT_FALSE(task.contains("artifacts"));
  ASSERT_EQ(task["history"].size(), 1u);
  EXPECT_EQ(task["history"][0]["role"], "user");
  Json fetched = mock_.call(taskRequest("tasks/get", task["id"]))["result"];
  EXPECT_EQ(fetched, task);
  Json missing = mock_.send(withSkill(userMessage("doc missing-7"), "document_fetch"));
  EXPECT_EQ(missing["status"]["message"]["parts"][0]["text"], "Document not found.");
}

TEST_F(MagisteriumTasks, GetReturnsTheStoredTaskAndHonoursHistoryLength) {
  Json task = mock_.send(userMessage("What is grace?"));
  EXPECT_EQ(mock_.call(taskRequest("tasks/get", task["id"], 2))["result"], task);
  Json last = mock_.call(request(3, "tasks/get", {{"id", task["id"]}, {"historyLength", 1}}));
  ASSERT_EQ(last["result"]["history"].size(), 1u);
  EXPECT_EQ(last["result"]["history"][0]["role"], "agent");
  Json none = mock_.call(request(4, "tasks/get", {{"id", task["id"]}, {"historyLength", 0}}));
  EXPECT_EQ(none["result"]["history"], Json::array());
  Json all = mock_.call(request(5, "tasks/get", {{"id", task["id"]}, {"historyLength", 1000}}));
  EXPECT_EQ(all["result"]["history"].size(), 2u);
}

TEST_F(MagisteriumTasks, SendIgnoresTheReservedConfiguration) {
  Json params = {{"message", userMessage("What is grace?")},
                 {"configuration", {{"historyLength", -4}}}};
  Json response = mock_.call(request(1, "message/send", params));
  EXPECT_EQ(response["result"]["history"].size(), 2u);
}

TEST_F(MagisteriumTasks, TasksExpireTwentyFourHoursAfterCreation) {
  Json task = mock_.send(userMessage("What is grace?"));
  mock_.clock().advance(23h + 59min + 59s);
  Json found = mock_.call(taskRequest("tasks/get", task["id"]));
  EXPECT_EQ(found["result"]["id"], task["id"]) << "still there at 23:59:59";
  EXPECT_EQ(found["result"]["status"]["timestamp"], "2025-01-01T00:00:00.000Z");
  mock_.clock().advance(1s);
  protocol::HttpReply gone = mock_.post(taskRequest("tasks/get", task["id"], 9));
  EXPECT_EQ(gone.status, 200);
  EXPECT_EQ(gone.body,
            R"({"jsonrpc":"2.0","id":9,"error":{"code":-32001,"message":"Task not found"}})")
      << "gone at 24:00:00";
  EXPECT_EQ(parse(mock_.post(taskRequest("tasks/cancel", task["id"])).body)["error"]["code"],
            -32001);
}

TEST_F(MagisteriumTasks, StatusTimestampFollowsTheClock) {
  mock_.clock().advance(90min + 1500ms);
  EXPECT_EQ(mock_.send(userMessage("What is grace?"))["status"]["timestamp"],
            "2025-01-01T01:30:01.500Z");
}

TEST_F(MagisteriumTasks, ExpensiveSkillIsLimitedToTwoAMinuteWithRetryAfter) {
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200);
  mock_.clock().advance(10s);
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200);
  mock_.clock().advance(5s);
  protocol::HttpReply refused = mock_.post(sendRequest(userMessage("What is grace?"), "q-3"));
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.body,
            R"({"jsonrpc":"2.0","id":"q-3","error":{"code":-32003,"message":"Rate limit exceeded",)"
            R"("data":{"retryAfter":45}}})");
  EXPECT_EQ(header(refused, "Retry-After"), "<absent>") << "only behind the switch";
  mock_.clock().advance(44s);
  EXPECT_EQ(parse(mock_.post(sendRequest(userMessage("x"))).body)["error"]["data"]["retryAfter"],
            1);
  mock_.clock().advance(1s);
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200)
      << "a new window after 60 s";
}

TEST_F(MagisteriumTasks, DefaultTierAllowsFifteenAMinuteIncludingExpensiveCalls) {
  const Json search = withSkill(userMessage("work"), "document_search");
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200);
  for (int i = 0; i < 14; ++i) {
    EXPECT_EQ(mock_.post(sendRequest(search)).status, 200) << i;
  }
  mock_.clock().advance(20s);
  protocol::HttpReply refused = mock_.post(sendRequest(search));
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(parse(refused.body)["error"]["data"], parse(R"({"retryAfter":40})"));
  EXPECT_EQ(mock_.post(sendRequest(search), "org").status, 200) << "another token, other counters";
  mock_.clock().advance(40s);
  EXPECT_EQ(mock_.post(sendRequest(search)).status, 200);
}

TEST_F(MagisteriumTasks, OnlyMessageSendCountsTowardTheQuota) {
  Json task = mock_.send(userMessage("What is grace?"));
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(mock_.post(taskRequest("tasks/get", task["id"])).status, 200);
    mock_.post(taskRequest("tasks/cancel", task["id"]));
    mock_.get("/.well-known/agent.json");
  }
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200);
}

TEST_F(MagisteriumTasks, RetryAfterHeaderBehindTheSwitch) {
  MockConfig config = testing::magisteriumConfig();
  config.retry_after_header = true;
  config.limits.expensive_pool = {1, 60s};
  Harness mock(std::move(config));
  mock.post(sendRequest(userMessage("What is grace?")));
  mock.clock().advance(18s);
  protocol::HttpReply refused = mock.post(sendRequest(userMessage("What is grace?")));
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(header(refused, "Retry-After"), "42");
  EXPECT_EQ(parse(refused.body)["error"]["data"]["retryAfter"], 42);
}

TEST_F(MagisteriumTasks, QuotaCanBeTurnedOff) {
  MockConfig config = testing::magisteriumConfig();
  config.quota = false;
  Harness mock(std::move(config));
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?"))).status, 200) << i;
  }
}

TEST_F(MagisteriumTasks, NoAuthLetsRequestsWithoutATokenActAsAProUser) {
  MockConfig config = testing::magisteriumConfig();
  config.no_auth = true;
  Harness mock(std::move(config));
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?")), "").status, 200);
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?")), "").status, 200);
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?")), "").status, 429)
      << "the anonymous user has quotas too";
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?")), "nope").status, 401)
      << "a token that is sent is still checked";
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?")), "free").status, 403);
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?")), "good").status, 200);
}

TEST_F(MagisteriumTasks, SameSeedSameBytesOtherSeedOtherIds) {
  const auto run = [](std::uint64_t seed) {
    MockConfig config = testing::magisteriumConfig();
    config.seed = seed;
    Harness mock(std::move(config));
    std::string transcript;
    transcript += mock.post(sendRequest(userMessage("What is grace?"))).body;
    mock.clock().advance(3s);
    transcript += mock.post(sendRequest(withSkill(userMessage("[fail]"), "document_search"))).body;
    transcript += mock.post(sendRequest(userMessage("hope"), "x")).body;
    return transcript;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

}  // namespace
}  // namespace agentvcr::sim::a2a
