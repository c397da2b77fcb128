// Every JSON-RPC error and HTTP status of the Magisterium profile, the request id each error
// echoes, and the order in which the checks decide which error wins.

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using testing::Harness;
using testing::parse;
using testing::request;
using testing::sendRequest;
using testing::taskRequest;
using testing::userMessage;

/// The error object of a JSON-RPC reply, checking its HTTP status and echoed id.
Json errorOf(const protocol::HttpReply& reply, int http_status, const Json& id) {
  EXPECT_EQ(reply.status, http_status) << reply.body;
  EXPECT_EQ(reply.content_type, "application/json");
  Json body = parse(reply.body);
  EXPECT_EQ(body["jsonrpc"], "2.0");
  EXPECT_EQ(body["id"], id) << reply.body;
  EXPECT_TRUE(body["id"].is_string() == id.is_string() &&
              body["id"].is_number() == id.is_number() && body["id"].is_null() == id.is_null())
      << "the id keeps its JSON type: " << reply.body;
  EXPECT_FALSE(body.contains("result"));
  return body.contains("error") ? body["error"] : Json();
}

Json message(const std::string& text, const std::string& field, const Json& value) {
  Json built = userMessage(text);
  built[field] = value;
  return built;
}

class MagisteriumErrors : public ::testing::Test {
 protected:
  Harness mock_{testing::magisteriumConfig()};

  Json invalidParams(const std::string& body) {
    Json error = errorOf(mock_.post(body), 200, 1);
    EXPECT_EQ(error["code"], -32602) << body;
    return error["message"];
  }
};

TEST_F(MagisteriumErrors, ParseErrorIs32700WithNullId) {
  for (const char* body : {"{", "", "{\"jsonrpc\":\"2.0\",\"id\":1,", "NaN", "{} trailing"}) {
    protocol::HttpReply reply = mock_.post(body);
    EXPECT_EQ(reply.status, 200);
    EXPECT_EQ(reply.body,
              R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})")
        << body;
  }
}

TEST_F(MagisteriumErrors, InvalidRequestIs32600EchoingAReadableId) {
  const auto invalid = [&](const std::string& body, const Json& id) {
    Json error = errorOf(mock_.post(body), 200, id);
    EXPECT_EQ(error, parse(R"({"code":-32600,"message":"Invalid Request"})")) << body;
  };
  invalid(R"([{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}])", nullptr);
  invalid("42", nullptr);
  invalid(R"({"id":7,"method":"tasks/get","params":{"id":"x"}})", 7);
  invalid(R"({"jsonrpc":"1.0","id":"seven","method":"tasks/get","params":{"id":"x"}})", "seven");
  invalid(R"({"jsonrpc":"2.0","id":8})", 8);
  invalid(R"({"jsonrpc":"2.0","id":9,"method":5})", 9);
  invalid(R"({"jsonrpc":"2.0","method":"tasks/get","params":{"id":"x"}})", nullptr);
  invalid(R"({"jsonrpc":"2.0","id":{"a":1},"method":"tasks/get","params":{"id":"x"}})", nullptr);
  invalid(R"({"jsonrpc":"2.0","id":[1],"method":"tasks/get","params":{"id":"x"}})", nullptr);
  invalid(R"({"jsonrpc":"2.0","id":true,"method":"tasks/get","params":{"id":"x"}})", nullptr);
  invalid(R"({"jsonrpc":"2.0","id":10,"method":"tasks/get","params":"x"})", 10);
}

TEST_F(MagisteriumErrors, UnknownAndStreamingAndV1MethodsAre32601) {
  for (const char* method :
       {"tasks/list", "message/stream", "tasks/resubscribe", "tasks/pushNotificationConfig/set",
        "agent/getAuthenticatedExtendedCard", "SendMessage", "GetTask", "", "MESSAGE/SEND"}) {
    Json error = errorOf(mock_.post(request(3, method, Json::object())), 200, 3);
    EXPECT_EQ(error, parse(R"({"code":-32601,"message":"Method not found"})")) << method;
  }
}

TEST_F(MagisteriumErrors, MessageSendParamsAre32602WithTheReason) {
  EXPECT_EQ(invalidParams(R"({"jsonrpc":"2.0","id":1,"method":"message/send"})"),
            "params must be an object");
  EXPECT_EQ(invalidParams(request(1, "message/send", Json::array())), "params must be an object");
  EXPECT_EQ(invalidParams(request(1, "message/send", Json::object())), "message must be an object");
  EXPECT_EQ(invalidParams(request(1, "message/send", {{"message", "hi"}})),
            "message must be an object");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "role", "agent"))),
            "message.role must be \"user\"");
  Json no_role = userMessage("hi");
  no_role.erase("role");
  EXPECT_EQ(invalidParams(sendRequest(no_role)), "message.role must be \"user\"");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "kind", "task"))),
            "message.kind must be \"message\"");
  for (const Json& id : {Json(""), Json(5), Json(nullptr)}) {
    EXPECT_EQ(invalidParams(sendRequest(message("hi", "messageId", id))),
              "message.messageId must be a non-empty string");
  }
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "parts", Json::array()))),
            "message.parts must be a non-empty array");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "parts", "hi"))),
            "message.parts must be a non-empty array");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "parts", parse(R"([{"kind":"image"}])")))),
            "message.parts[0].kind must be \"text\", \"data\" or \"file\"");
  EXPECT_EQ(invalidParams(sendRequest(
                message("hi", "parts", parse(R"([{"kind":"text","text":"a"},{"kind":"text"}])")))),
            "message.parts[1].text must be a string");
  EXPECT_EQ(
      invalidParams(sendRequest(message("hi", "parts", parse(R"([{"kind":"data","data":[]}])")))),
      "message.parts[0].data must be an object");
  EXPECT_EQ(invalidParams(sendRequest(message(
                "hi", "parts", parse(R"([{"kind":"file","file":{"bytes":"AA==","uri":"x:"}}])")))),
            "message.parts[0].file must hold exactly one of bytes and uri, as a string");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "contextId", 12))),
            "message.contextId must be a string");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "taskId", false))),
            "message.taskId must be a string");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "metadata", "x"))),
            "message.metadata must be an object");
  EXPECT_EQ(invalidParams(sendRequest(message("hi", "metadata", {{"skillId", 3}}))),
            "message.metadata.skillId must be a string");
}

TEST_F(MagisteriumErrors, TaskParamsAre32602) {
  EXPECT_EQ(invalidParams(request(1, "tasks/get", Json::object())), "id must be a string");
  EXPECT_EQ(invalidParams(request(1, "tasks/get", {{"id", 4}})), "id must be a string");
  EXPECT_EQ(invalidParams(request(1, "tasks/cancel", {{"id", nullptr}})), "id must be a string");
  EXPECT_EQ(invalidParams(R"({"jsonrpc":"2.0","id":1,"method":"tasks/cancel"})"),
            "params must be an object");
  for (const Json& length : {Json(-1), Json(1.5), Json("3"), Json(1e300)}) {
    EXPECT_EQ(invalidParams(request(1, "tasks/get", {{"id", "x"}, {"historyLength", length}})),
              "historyLength must be a non-negative integer")
        << length.dump();
  }
}

TEST_F(MagisteriumErrors, CancelOfATerminalTaskIs32602InvalidStateTransition) {
  Json task = mock_.send(userMessage("What is grace?"));
  protocol::HttpReply reply = mock_.post(taskRequest("tasks/cancel", task["id"], "c-1"));
  Json error = errorOf(reply, 200, "c-1");
  EXPECT_EQ(error, parse(R"({"code":-32602,"message":"Invalid state transition"})"));
  EXPECT_EQ(mock_.call(taskRequest("tasks/get", task["id"]))["result"]["status"]["state"],
            "completed");
}

TEST_F(MagisteriumErrors, FollowUpToAFinishedTaskIsAnInvalidStateTransition) {
  Json task = mock_.send(userMessage("What is grace?"));
  Json error = errorOf(mock_.post(sendRequest(message("more", "taskId", task["id"]))), 200, 1);
  EXPECT_EQ(error, parse(R"({"code":-32602,"message":"Invalid state transition"})"));
}

TEST_F(MagisteriumErrors, UnknownTaskIs32001) {
  for (const char* method : {"tasks/get", "tasks/cancel"}) {
    Json error = errorOf(mock_.post(taskRequest(method, "no-such-task", 5)), 200, 5);
    EXPECT_EQ(error, parse(R"({"code":-32001,"message":"Task not found"})")) << method;
  }
  Json error = errorOf(mock_.post(sendRequest(message("hi", "taskId", "no-such-task"))), 200, 1);
  EXPECT_EQ(error["code"], -32001);
}

TEST_F(MagisteriumErrors, UnknownSkillIs32002SkillNotFound) {
  Json error =
      errorOf(mock_.post(sendRequest(testing::withSkill(userMessage("hi"), "tarot"))), 200, 1);
  EXPECT_EQ(error, parse(R"({"code":-32002,"message":"Skill not found"})"));
  error = errorOf(mock_.post(sendRequest(testing::withSkill(userMessage("hi"), ""))), 200, 1);
  EXPECT_EQ(error["code"], -32002);
}

TEST_F(MagisteriumErrors, UnexpectedFaultIs32603AndStoresNothing) {
  protocol::HttpReply reply = mock_.post(sendRequest(userMessage("please [internal-error]"), 11));
  EXPECT_EQ(reply.body,
            R"({"jsonrpc":"2.0","id":11,"error":{"code":-32603,"message":"Internal error"}})");
  // The ids the failed call would have used were not handed out as a task.
  Json error = errorOf(mock_.post(taskRequest("tasks/get", "anything")), 200, 1);
  EXPECT_EQ(error["code"], -32001);
}

TEST_F(MagisteriumErrors, MissingOrInvalidTokenIs401Unauthorized) {
  const std::string body = sendRequest(userMessage("What is grace?"), 21);
  const std::string expected =
      R"({"jsonrpc":"2.0","id":21,"error":{"code":-32004,"message":"Unauthorized"}})";
  EXPECT_EQ(mock_.post(body, "").body, expected);
  EXPECT_EQ(mock_.post(body, "").status, 401);
  EXPECT_EQ(mock_.post(body, "nope").status, 401);
  EXPECT_EQ(mock_.post(body, "nope").body, expected);
  for (const char* authorization : {"Basic good", "Bearer", "Bearer  ", "good", "Bearer good x"}) {
    protocol::HttpReply reply = mock_.post(body, "", {{"Authorization", authorization}});
    EXPECT_EQ(reply.status, 401) << authorization;
    EXPECT_EQ(reply.body, expected) << authorization;
  }
  EXPECT_EQ(mock_.post(body, "", {{"authorization", "bearer   good  "}}).status, 200)
      << "header name and scheme are case-insensitive";
}

TEST_F(MagisteriumErrors, FreePlanIs403PaidPlanRequired) {
  protocol::HttpReply reply = mock_.post(sendRequest(userMessage("What is grace?"), "f"), "free");
  EXPECT_EQ(reply.status, 403);
  EXPECT_EQ(reply.body,
            R"({"jsonrpc":"2.0","id":"f","error":{"code":-32005,"message":"Paid plan required"}})");
  EXPECT_EQ(mock_.post(taskRequest("tasks/get", "x"), "free").status, 403);
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?")), "org").status, 200);
}

TEST_F(MagisteriumErrors, IdsAreEchoedWithTheirJsonType) {
  for (const char* id : {"7", "\"7\"", "null", "-3", "1.5", "18446744073709551615"}) {
    const std::string body = std::string(R"({"jsonrpc":"2.0","method":"tasks/get","id":)") + id +
                             R"(,"params":{"id":"unknown"}})";
    protocol::HttpReply reply = mock_.post(body);
    EXPECT_NE(reply.body.find(std::string(R"({"jsonrpc":"2.0","id":)") + id + ","),
              std::string::npos)
        << id << " -> " << reply.body;
  }
  const std::string result = mock_.post(sendRequest(userMessage("What is grace?"), "s-1")).body;
  EXPECT_EQ(result.rfind(R"({"jsonrpc":"2.0","id":"s-1","result":{"kind":"task",)", 0), 0u)
      << result;
}

TEST_F(MagisteriumErrors, UnicodePassesThroughUnchanged) {
  const std::string query = "Qu'est-ce que la grâce ? 恩典 🙏";
  Json task = mock_.send(testing::withSkill(userMessage(query), "document_search"));
  EXPECT_EQ(task["history"][0]["parts"][0]["text"], query);
  EXPECT_EQ(task["artifacts"][0]["parts"][0]["text"], "2 documents match: " + query);
}

TEST_F(MagisteriumErrors, ExtraFieldsAreAccepted) {
  Json extra = userMessage("What is grace?");
  extra["x-extension"] = {{"a", 1}};
  extra["parts"][0]["metadata"] = {{"lang", "en"}};
  Json params = {{"message", extra},
                 {"configuration", {{"blocking", true}, {"acceptedOutputModes", Json::array()}}},
                 {"metadata", {{"trace", "t"}}}};
  Json response = mock_.call(request(1, "message/send", params));
  EXPECT_EQ(response["result"]["status"]["state"], "completed");
  EXPECT_EQ(response["result"]["history"][0]["x-extension"], parse(R"({"a":1})"));
}

// --- Order of the checks -------------------------------------------------------------------

TEST_F(MagisteriumErrors, DefaultOrderParseBeforeAuthSoAuthErrorsEchoTheId) {
  EXPECT_EQ(parse(mock_.post("{", "nope").body)["error"]["code"], -32700);
  EXPECT_EQ(mock_.post("{", "nope").status, 200);
  EXPECT_EQ(parse(mock_.post(R"({"id":4})", "nope").body)["error"]["code"], -32600);
  protocol::HttpReply unauthorized = mock_.post(request(4, "no/such", Json::object()), "nope");
  EXPECT_EQ(unauthorized.status, 401) << "auth before method";
  EXPECT_EQ(parse(unauthorized.body)["id"], 4);
}

TEST_F(MagisteriumErrors, DefaultOrderPlanBeforeMethodBeforeParamsBeforeSkill) {
  EXPECT_EQ(mock_.post(request(1, "no/such", Json::object()), "free").status, 403);
  EXPECT_EQ(parse(mock_.post(request(1, "no/such", "bad"), "good").body)["error"]["code"], -32600)
      << "a non-structured params breaks the envelope";
  Json bad_params_unknown_skill = testing::withSkill(message("hi", "role", "agent"), "tarot");
  EXPECT_EQ(parse(mock_.post(sendRequest(bad_params_unknown_skill)).body)["error"]["code"], -32602);
}

TEST_F(MagisteriumErrors, ConfiguredOrderDecidesWhichErrorWins) {
  MockConfig config = testing::magisteriumConfig();
  std::string error;
  config.check_order =
      *parseCheckOrder("auth,plan,method,parse,envelope,params,quota,skill", error);
  Harness mock(std::move(config));
  protocol::HttpReply unauthorized = mock.post("{", "nope");
  EXPECT_EQ(unauthorized.status, 401) << "auth first, even before parsing";
  EXPECT_EQ(parse(unauthorized.body)["id"], nullptr);
  protocol::HttpReply readable = mock.post(R"({"id":"r","params":{}})", "nope");
  EXPECT_EQ(readable.status, 401);
  EXPECT_EQ(parse(readable.body)["id"], "r") << "the id is still echoed when it can be read";
  EXPECT_EQ(parse(mock.post(request(2, "no/such", Json::object()), "good").body)["error"]["code"],
            -32601);
}

TEST_F(MagisteriumErrors, AnUnknownSkillDoesNotSpendQuotaInTheDefaultOrder) {
  for (int i = 0; i < 5; ++i) {
    mock_.post(sendRequest(testing::withSkill(userMessage("hi"), "tarot")));
  }
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200);
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 200);
  EXPECT_EQ(mock_.post(sendRequest(userMessage("What is grace?"))).status, 429);
}

TEST_F(MagisteriumErrors, QuotaBeforeSkillSpendsItOnKnownSkillsOnly) {
  MockConfig config = testing::magisteriumConfig();
  std::string error;
  config.check_order =
      *parseCheckOrder("parse,envelope,auth,plan,method,params,quota,skill", error);
  Harness mock(std::move(config));
  EXPECT_EQ(parse(mock.post(sendRequest(testing::withSkill(userMessage("hi"), "tarot")))
                      .body)["error"]["code"],
            -32002);
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?"))).status, 200);
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?"))).status, 200);
  EXPECT_EQ(mock.post(sendRequest(userMessage("What is grace?"))).status, 429);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
