// The standard profile on the v0.3 wire: its error codes, tasks that wait in input-required,
// cancel, continuation by taskId and contextId, historyLength, and streaming. The same
// profile's JSON-RPC rules, lifecycle and v1.0 wire are in conformance_test.cpp.

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

/// The JSON-RPC responses a stream carries, with a check of the SSE framing.
std::vector<Json> events(const protocol::HttpReply& reply, const Json& id) {
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "text/event-stream");
  EXPECT_EQ(header(reply, "Cache-Control"), "no-cache");
  EXPECT_EQ(header(reply, "X-Accel-Buffering"), "no");
  EXPECT_EQ(reply.body, "");
  std::vector<Json> parsed;
  for (const protocol::StreamPiece& event : reply.stream) {
    const bool is_error = event.bytes.rfind("event: error\n", 0) == 0;
    const std::string data = is_error ? event.bytes.substr(13) : event.bytes;
    EXPECT_EQ(data.rfind("data: ", 0), 0u) << event.bytes;
    EXPECT_EQ(data.substr(data.size() - 2), "\n\n");
    EXPECT_EQ(data.find('\n'), data.size() - 2) << "one line of JSON per event";
    Json response = parse(data.substr(6, data.size() - 8));
    EXPECT_EQ(response["id"], id);
    EXPECT_EQ(is_error, response.contains("error")) << event.bytes;
    parsed.push_back(response);
  }
  return parsed;
}

std::string streamRequest(const Json& message, const Json& id = 1) {
  return request(id, "message/stream", Json{{"message", message}});
}

Json followUp(const std::string& text, const Json& task_id, const std::string& message_id) {
  Json message = userMessage(text, message_id);
  message["taskId"] = task_id;
  return message;
}

class StandardProfile : public ::testing::Test {
 protected:
  Harness mock_{testing::standardConfig()};

  Json errorOf(const std::string& body) {
    protocol::HttpReply reply = mock_.post(body, "");
    EXPECT_EQ(reply.status, 200) << "the standard profile sends every error with 200";
    EXPECT_TRUE(reply.stream.empty());
    return parse(reply.body)["error"];
  }
};

TEST_F(StandardProfile, NeedsNoTokenAndFallsBackToTheDefaultSkill) {
  Json task = mock_.send(withSkill(userMessage("hi"), "tarot"), "");
  EXPECT_EQ(task["status"]["state"], "input-required");
  EXPECT_EQ(task["metadata"]["skillId"], "echo");
  EXPECT_EQ(
      task["artifacts"][0]["parts"],
      parse(R"([{"kind":"text","text":"You said: hi"},{"kind":"data","data":{"echoed":true}}])"));
}

TEST_F(StandardProfile, StandardErrorCodes) {
  Json task = mock_.send(userMessage("hi [complete]"), "");
  const std::string id = task["id"];
  EXPECT_EQ(errorOf(taskRequest("tasks/cancel", id)),
            parse(R"({"code":-32002,"message":"Task not cancelable: )" + id + R"("})"));
  EXPECT_EQ(errorOf(taskRequest("tasks/get", "nope")),
            parse(R"({"code":-32001,"message":"Task not found: nope"})"));
  for (const char* method :
       {"tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete"}) {
    EXPECT_EQ(errorOf(request(1, method, {{"id", id}})),
              parse(R"({"code":-32003,"message":"Push Notification is not supported"})"))
        << method;
  }
  EXPECT_EQ(errorOf(request(1, "agent/getAuthenticatedExtendedCard", Json::object())),
            parse(R"({"code":-32007,"message":"Authenticated Extended Card is not configured"})"));
  EXPECT_EQ(errorOf(request(1, "tasks/list", Json::object())),
            parse(R"({"code":-32601,"message":"Method not found: tasks/list"})"));
  EXPECT_EQ(errorOf(request(1, "SendMessage", Json::object()))["code"], -32601);
  EXPECT_EQ(errorOf("{")["code"], -32700);
  EXPECT_EQ(errorOf("[]")["code"], -32600);
  EXPECT_EQ(errorOf(sendRequest(userMessage("[internal-error]"))),
            parse(R"({"code":-32603,"message":"Internal error"})"));
  EXPECT_EQ(errorOf(sendRequest(userMessage("hi", ""))),
            parse(R"({"code":-32602,"message":"message.messageId must be a non-empty string"})"));
}

TEST_F(StandardProfile, NonJsonContentTypeIs32005) {
  protocol::HttpReply reply = mock_.post(sendRequest(userMessage("hi"), 6), "",
                                         {{"Content-Type", "text/plain; charset=utf-8"}});
  EXPECT_EQ(
      reply.body,
      R"({"jsonrpc":"2.0","id":6,"error":{"code":-32005,"message":"Incompatible content types"}})");
  EXPECT_EQ(mock_
                .post(sendRequest(userMessage("hi")), "",
                      {{"content-type", "Application/JSON; charset=utf-8"}})
                .status,
            200);
  EXPECT_EQ(parse(mock_.post(sendRequest(userMessage("hi")), "", {}).body)["result"]["kind"],
            "task")
      << "no Content-Type at all is accepted";
}

TEST_F(StandardProfile, WaitingTaskCanBeCanceledOnce) {
  Json task = mock_.send(withSkill(userMessage("start"), "long_task"), "");
  EXPECT_EQ(task["status"]["state"], "input-required");
  EXPECT_EQ(task["status"]["message"]["parts"][0]["text"],
            "Tell me more. Send another message on this task to finish it.");
  EXPECT_FALSE(task.contains("artifacts"));
  EXPECT_EQ(task["history"].size(), 1u);
  EXPECT_EQ(mock_.call(taskRequest("tasks/get", task["id"]), "")["result"]["status"]["state"],
            "input-required");
  mock_.clock().advance(5s);
  Json canceled = mock_.call(taskRequest("tasks/cancel", task["id"]), "")["result"];
  EXPECT_EQ(canceled["status"],
            parse(R"({"state":"canceled","timestamp":"2025-01-01T00:00:05.000Z"})"));
  EXPECT_EQ(canceled["id"], task["id"]);
  EXPECT_EQ(errorOf(taskRequest("tasks/cancel", task["id"]))["code"], -32002);
  EXPECT_EQ(mock_.call(taskRequest("tasks/get", task["id"]), "")["result"]["status"]["state"],
            "canceled");
}

TEST_F(StandardProfile, FollowUpByTaskIdFinishesAWaitingTask) {
  Json task = mock_.send(withSkill(userMessage("start"), "long_task"), "");
  Json done = mock_.send(followUp("go on", task["id"], "m-2"), "");
  EXPECT_EQ(done["id"], task["id"]);
  EXPECT_EQ(done["contextId"], task["contextId"]);
  EXPECT_EQ(done["status"]["state"], "completed");
  EXPECT_FALSE(done["status"].contains("message"));
  ASSERT_EQ(done["history"].size(), 3u);
  EXPECT_EQ(done["history"][0]["messageId"], "m-1");
  EXPECT_EQ(done["history"][1]["messageId"], "m-2");
  EXPECT_EQ(done["history"][1]["contextId"], task["contextId"]);
  EXPECT_EQ(done["history"][2]["role"], "agent");
  EXPECT_EQ(done["artifacts"][0]["name"], "result");
  EXPECT_EQ(done["artifacts"][0]["parts"][0]["text"], "Finished after: go on");

  Json error = errorOf(sendRequest(followUp("more", task["id"], "m-3")));
  EXPECT_EQ(error, parse(R"({"code":-32004,"message":"Task )" + task["id"].get<std::string>() +
                         R"( is in a terminal state (completed) and cannot be modified"})"));
}

TEST_F(StandardProfile, FollowUpChecksTheContextAndTheTask) {
  Json task = mock_.send(withSkill(userMessage("start"), "long_task"), "");
  Json wrong_context = followUp("go on", task["id"], "m-2");
  wrong_context["contextId"] = "other";
  EXPECT_EQ(
      errorOf(sendRequest(wrong_context)),
      parse(
          R"({"code":-32602,"message":"message.contextId does not match the contextId of the task"})"));
  EXPECT_EQ(errorOf(sendRequest(followUp("go on", "nope", "m-2"))),
            parse(R"({"code":-32001,"message":"Task not found: nope"})"));
  Json right_context = followUp("go on", task["id"], "m-2");
  right_context["contextId"] = task["contextId"];
  EXPECT_EQ(mock_.send(right_context, "")["status"]["state"], "completed");
}

TEST_F(StandardProfile, ContextIdAloneStartsANewTaskInThatContext) {
  Json first = mock_.send(userMessage("one"), "");
  Json next = userMessage("two", "m-2");
  next["contextId"] = first["contextId"];
  Json second = mock_.send(next, "");
  EXPECT_NE(second["id"], first["id"]);
  EXPECT_EQ(second["contextId"], first["contextId"]);
}

TEST_F(StandardProfile, HistoryLengthOnSendAndGet) {
  Json task = mock_.send(withSkill(userMessage("start"), "long_task"), "");
  Json params = {{"message", followUp("go on", task["id"], "m-2")},
                 {"configuration", {{"historyLength", 1}}}};
  Json done = mock_.call(request(1, "message/send", params), "")["result"];
  ASSERT_EQ(done["history"].size(), 1u);
  EXPECT_EQ(done["history"][0]["role"], "agent");
  Json two = mock_.call(request(2, "tasks/get", {{"id", task["id"]}, {"historyLength", 2}}), "");
  ASSERT_EQ(two["result"]["history"].size(), 2u);
  EXPECT_EQ(two["result"]["history"][0]["messageId"], "m-2");
  Json bad = {{"message", userMessage("x")}, {"configuration", {{"historyLength", -1}}}};
  EXPECT_EQ(
      errorOf(request(3, "message/send", bad)),
      parse(
          R"({"code":-32602,"message":"configuration.historyLength must be a non-negative integer"})"));
  EXPECT_EQ(errorOf(request(4, "message/send",
                            {{"message", userMessage("x")}, {"configuration", 3}}))["message"],
            "configuration must be an object");
}

TEST_F(StandardProfile, StreamTellsTheTaskInEventsOneAfterAnother) {
  protocol::HttpReply reply =
      mock_.post(streamRequest(withSkill(userMessage("tell"), "story"), "s"), "");
  ASSERT_EQ(reply.stream.size(), 6u);
  EXPECT_EQ(reply.stream[0].delay, 0ms);
  for (std::size_t i = 1; i < reply.stream.size(); ++i) {
    EXPECT_EQ(reply.stream[i].delay, 25ms);
  }
  std::vector<Json> results = events(reply, "s");
  const Json& task = results[0]["result"];
  EXPECT_EQ(task["kind"], "task");
  EXPECT_EQ(task["status"]["state"], "submitted");
  EXPECT_EQ(task["history"].size(), 1u);
  const Json& working = results[1]["result"];
  EXPECT_EQ(working["kind"], "status-update");
  EXPECT_EQ(working["taskId"], task["id"]);
  EXPECT_EQ(working["contextId"], task["contextId"]);
  EXPECT_EQ(working["status"]["state"], "working");
  EXPECT_EQ(working["final"], false);
  const char* const chunks[] = {"Once upon a time, ", "a mock agent ", "answered in pieces."};
  for (int i = 0; i < 3; ++i) {
    const Json& update = results[static_cast<std::size_t>(2 + i)]["result"];
    EXPECT_EQ(update["kind"], "artifact-update");
    EXPECT_EQ(update["taskId"], task["id"]);
    EXPECT_EQ(update["artifact"]["name"], "story");
    EXPECT_EQ(update["artifact"]["parts"],
              Json::array({Json{{"kind", "text"}, {"text", chunks[i]}}}));
    EXPECT_EQ(update["append"], i > 0);
    EXPECT_EQ(update["lastChunk"], i == 2);
  }
  EXPECT_EQ(results[2]["result"]["artifact"]["artifactId"],
            results[4]["result"]["artifact"]["artifactId"]);
  const Json& final = results[5]["result"];
  EXPECT_EQ(final["kind"], "status-update");
  EXPECT_EQ(final["status"]["state"], "completed");
  EXPECT_EQ(final["final"], true);

  Json stored = mock_.call(taskRequest("tasks/get", task["id"]), "")["result"];
  EXPECT_EQ(stored["status"]["state"], "completed");
  EXPECT_EQ(stored["artifacts"][0]["parts"][0]["text"],
            "Once upon a time, a mock agent answered in pieces.");
  EXPECT_EQ(stored["artifacts"][0]["artifactId"], results[2]["result"]["artifact"]["artifactId"]);
}

TEST_F(StandardProfile, StreamSendsTheDataPartAsTheLastChunk) {
  std::vector<Json> results = events(mock_.post(streamRequest(userMessage("hi"), 2), ""), 2);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[3]["result"]["lastChunk"], false);
  EXPECT_EQ(results[4]["result"]["artifact"]["parts"],
            parse(R"([{"kind":"data","data":{"echoed":true}}])"));
  EXPECT_EQ(results[4]["result"]["append"], true);
  EXPECT_EQ(results[4]["result"]["lastChunk"], true);
}

TEST_F(StandardProfile, StreamOfAMultiTurnTaskEndsWaitingAndResumesOnFollowUp) {
  std::vector<Json> first =
      events(mock_.post(streamRequest(withSkill(userMessage("start"), "long_task")), ""), 1);
  ASSERT_EQ(first.size(), 3u);
  const Json task_id = first[0]["result"]["id"];
  EXPECT_EQ(first[2]["result"]["status"]["state"], "input-required");
  EXPECT_EQ(first[2]["result"]["status"]["message"]["parts"][0]["text"],
            "Tell me more. Send another message on this task to finish it.");
  EXPECT_EQ(first[2]["result"]["final"], true);

  std::vector<Json> second =
      events(mock_.post(streamRequest(followUp("go", task_id, "m-2")), ""), 1);
  ASSERT_EQ(second.size(), 5u);
  EXPECT_EQ(second[0]["result"]["kind"], "task");
  EXPECT_EQ(second[0]["result"]["status"]["state"], "input-required") << "as it waited";
  EXPECT_EQ(second[0]["result"]["history"].size(), 2u) << "both user messages";
  EXPECT_EQ(second[1]["result"]["status"]["state"], "working");
  EXPECT_EQ(second[2]["result"]["kind"], "artifact-update");
  EXPECT_EQ(second[4]["result"]["status"]["state"], "completed");
}

TEST_F(StandardProfile, StreamOfAFailingSkillEndsFailed) {
  std::vector<Json> results = events(mock_.post(streamRequest(userMessage("[fail]")), ""), 1);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2]["result"]["status"]["state"], "failed");
  EXPECT_EQ(results[2]["result"]["status"]["message"]["parts"][0]["text"],
            "The echo skill was told to fail.");
  EXPECT_EQ(results[2]["result"]["final"], true);
}

TEST_F(StandardProfile, FaultDuringAStreamIsAnErrorEvent) {
  protocol::HttpReply reply = mock_.post(streamRequest(userMessage("[internal-error]"), 8), "");
  std::vector<Json> results = events(reply, 8);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(reply.stream[2].bytes,
            "event: error\ndata: "
            R"({"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"Internal error"}})"
            "\n\n");
}

TEST_F(StandardProfile, InvalidStreamRequestIsAPlainJsonError) {
  protocol::HttpReply reply = mock_.post(streamRequest(userMessage("hi", "")), "");
  EXPECT_TRUE(reply.stream.empty());
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(parse(reply.body)["error"]["code"], -32602);
  protocol::HttpReply unknown = mock_.post(streamRequest(followUp("go", "nope", "m-2")), "");
  EXPECT_TRUE(unknown.stream.empty());
  EXPECT_EQ(parse(unknown.body)["error"]["code"], -32001);
}

TEST_F(StandardProfile, ResubscribeStreamsTheTaskOrAnErrorEvent) {
  Json task = mock_.send(withSkill(userMessage("start"), "long_task"), "");
  std::vector<Json> results =
      events(mock_.post(taskRequest("tasks/resubscribe", task["id"], 4), ""), 4);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["result"], task);
  EXPECT_EQ(results[1]["result"]["kind"], "status-update");
  EXPECT_EQ(results[1]["result"]["status"], task["status"]);
  EXPECT_EQ(results[1]["result"]["final"], true);

  protocol::HttpReply unknown = mock_.post(taskRequest("tasks/resubscribe", "nope", 5), "");
  ASSERT_EQ(unknown.stream.size(), 1u);
  EXPECT_EQ(unknown.stream[0].bytes,
            "event: error\ndata: "
            R"({"jsonrpc":"2.0","id":5,"error":{"code":-32001,"message":"Task not found: nope"}})"
            "\n\n");
}

TEST_F(StandardProfile, WithoutStreamingInTheCardStreamsAreUnsupported) {
  MockConfig config = testing::standardConfig();
  config.fixtures.card_template["capabilities"]["streaming"] = false;
  Harness mock(std::move(config));
  for (const std::string& body :
       {streamRequest(userMessage("hi")), taskRequest("tasks/resubscribe", "x")}) {
    protocol::HttpReply reply = mock.post(body, "");
    EXPECT_TRUE(reply.stream.empty());
    EXPECT_EQ(parse(reply.body)["error"],
              parse(R"({"code":-32004,"message":"Streaming is not supported by this agent"})"));
  }
}

TEST_F(StandardProfile, StreamsAreByteReproducible) {
  const auto run = [] {
    Harness mock(testing::standardConfig());
    std::string transcript;
    for (const protocol::StreamPiece& event :
         mock.post(streamRequest(withSkill(userMessage("tell"), "story")), "").stream) {
      transcript += event.bytes;
    }
    return transcript;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace agentvcr::sim::a2a
