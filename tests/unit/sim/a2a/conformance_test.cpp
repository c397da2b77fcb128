// The standard profile against the specification's text (a2a-v1.md, JSON-RPC 2.0): the
// precedence of the JSON-RPC errors, batches, the task lifecycle, and the v1.0 wire (ProtoJSON,
// the A2A-Version header, ListTasks, the extended card). Each behaviour is tested in v0.3 and
// in v1.0 where both versions have it.

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using namespace std::chrono_literals;
using testing::Dialect;
using testing::Harness;
using testing::kV03;
using testing::kV10;
using testing::parse;
using testing::request;
using testing::withErrorInfo;

class Conformance : public ::testing::TestWithParam<Dialect> {
 protected:
  Harness mock_{testing::standardConfig()};
  const Dialect& wire_ = GetParam();

  protocol::HttpReply post(const std::string& body) { return mock_.postAs(wire_, body); }

  Json call(const std::string& body) { return parse(post(body).body); }

  Json errorOf(const std::string& body) {
    Json response = call(body);
    EXPECT_TRUE(response.contains("error")) << response.dump();
    return response["error"];
  }

  /// The task a send answers: unwrapped from v1.0's `{"task": …}`.
  Json send(const Json& params, const Json& id = 1) {
    Json response = call(request(id, wire_.send, params));
    EXPECT_TRUE(response.contains("result")) << response.dump();
    Json result = response["result"];
    if (wire_.v10()) {
      EXPECT_TRUE(result.contains("task")) << result.dump();
      return result["task"];
    }
    EXPECT_EQ(result["kind"], "task");
    return result;
  }

  Json sendText(const std::string& text, const std::string& message_id = "m-1") {
    return send({{"message", wire_.message(text, message_id)}});
  }

  Json continued(const std::string& text, const Json& task, const std::string& message_id) {
    Json message = wire_.message(text, message_id);
    message["taskId"] = task["id"];
    return send({{"message", message}});
  }

  Json taskCall(const char* method, const Json& task_id, const Json& extra = Json::object()) {
    Json params = {{"id", task_id}};
    params.update(extra);
    return call(request(2, method, params));
  }
};

// ----- JSON-RPC 2.0 precedence ----------------------------------------------------------------

TEST_P(Conformance, BodyThatIsNotJsonIsParseError) {
  for (const char* body : {"{", "", "{\"jsonrpc\":\"2.0\",", "nul"}) {
    EXPECT_EQ(call(body),
              (Json{{"jsonrpc", "2.0"},
                    {"id", nullptr},
                    {"error", wire_.error(parse(R"({"code":-32700,"message":"Parse error"})"),
                                          "JSON_PARSE")}}))
        << body;
  }
}

TEST_P(Conformance, InvalidRequestObjectIs32600) {
  const std::string method = wire_.get;
  const std::pair<std::string, Json> cases[] = {
      {R"({"jsonrpc":"1.0","id":1,"method":")" + method + R"(","params":{"id":"x"}})", 1},
      {R"({"id":1,"method":")" + method + R"(","params":{"id":"x"}})", 1},
      {R"({"jsonrpc":2.0,"id":1,"method":")" + method + R"(","params":{"id":"x"}})", 1},
      {R"({"jsonrpc":"2.0","id":1,"params":{"id":"x"}})", 1},
      {R"({"jsonrpc":"2.0","id":1,"method":7,"params":{"id":"x"}})", 1},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":")" + method + R"(","params":{"id":"x"}})",
       nullptr},
      {R"({"jsonrpc":"2.0","id":[1],"method":")" + method + R"(","params":{"id":"x"}})", nullptr},
      {R"({"jsonrpc":"2.0","id":true,"method":")" + method + R"(","params":{"id":"x"}})", nullptr},
      {R"({"jsonrpc":"2.0","id":1,"method":")" + method + R"(","params":"x"})", 1},
      {R"("just a string")", nullptr},
      {R"(42)", nullptr},
  };
  for (const auto& [body, id] : cases) {
    Json response = call(body);
    EXPECT_EQ(response["error"]["code"], -32600) << body;
    EXPECT_EQ(response["id"], id) << body;
  }
}

TEST_P(Conformance, UnknownMethodIs32601WhateverItsParams) {
  for (const char* params : {R"({})", R"({"":"not_a_dict"})", R"([1,2])", R"({"id":5})"}) {
    const std::string body =
        std::string(R"({"jsonrpc":"2.0","id":3,"method":"message/ssend","params":)") + params + "}";
    EXPECT_EQ(errorOf(body),
              wire_.error(parse(R"({"code":-32601,"message":"Method not found: message/ssend"})"),
                          "METHOD_NOT_FOUND"))
        << params;
  }
  EXPECT_EQ(errorOf(R"({"jsonrpc":"2.0","id":3,"method":"message/ssend"})")["code"], -32601)
      << "no params at all";
}

TEST_P(Conformance, BadParamsOfAKnownMethodAre32602) {
  const std::string send = wire_.send;
  const std::string get = wire_.get;
  const std::pair<std::string, std::string> cases[] = {
      {R"({"jsonrpc":"2.0","id":1,"method":")" + send + R"(","params":{"":"not_a_dict"}})",
       "message must be an object"},
      {R"({"jsonrpc":"2.0","id":1,"method":")" + send + R"("})", "params must be an object"},
      {R"({"jsonrpc":"2.0","id":1,"method":")" + send + R"(","params":[1]})",
       "params must be an object"},
      {R"({"jsonrpc":"2.0","id":1,"method":")" + send + R"(","params":{"message":"hi"}})",
       "message must be an object"},
      {R"({"jsonrpc":"2.0","id":1,"method":")" + get + R"(","params":{"id":5}})",
       "id must be a string"},
      {R"({"jsonrpc":"2.0","id":1,"method":")" + get +
           R"(","params":{"id":"t","historyLength":-2}})",
       "historyLength must be a non-negative integer"},
  };
  for (const auto& [body, message] : cases) {
    EXPECT_EQ(errorOf(body),
              wire_.error({{"code", -32602}, {"message", message}}, "INVALID_PARAMS"))
        << body;
  }
  Json no_parts = wire_.message("x");
  no_parts["parts"] = Json::array();
  EXPECT_EQ(errorOf(request(1, wire_.send, {{"message", no_parts}}))["message"],
            "message.parts must be a non-empty array");
  Json agent = wire_.message("x");
  agent["role"] = wire_.v10() ? "ROLE_AGENT" : "agent";
  EXPECT_EQ(errorOf(request(1, wire_.send, {{"message", agent}}))["code"], -32602);
}

TEST_P(Conformance, ThePrecedenceHoldsBetweenRows) {
  // -32600 before -32601: an invalid envelope naming an unknown method.
  EXPECT_EQ(errorOf(R"({"jsonrpc":"1.0","id":1,"method":"nope","params":{}})")["code"], -32600);
  // -32601 before -32602: an unknown method with invalid params.
  EXPECT_EQ(errorOf(R"({"jsonrpc":"2.0","id":1,"method":"nope","params":{"id":5}})")["code"],
            -32601);
  // -32602 before the A2A errors: bad params naming an unknown task.
  EXPECT_EQ(errorOf(request(1, wire_.get, {{"id", "nope"}, {"historyLength", "x"}}))["code"],
            -32602);
  // Then the A2A error.
  EXPECT_EQ(errorOf(request(1, wire_.get, {{"id", "nope"}}))["code"], -32001);
}

TEST_P(Conformance, RequestWithoutIdIsAnsweredWithIdNull) {
  Json body = {{"jsonrpc", "2.0"}, {"method", wire_.send}};
  body["params"] = {{"message", wire_.message("hi")}};
  Json response = call(dumpJson(body));
  EXPECT_TRUE(response.contains("id"));
  EXPECT_TRUE(response["id"].is_null());
  EXPECT_TRUE(response.contains("result")) << "A2A has no notifications: the call runs";
}

TEST_P(Conformance, BatchAnswersEachElementOnItsOwnInOrder) {
  Json first = {{"jsonrpc", "2.0"}, {"id", "a"}, {"method", wire_.send}};
  first["params"] = {{"message", wire_.message("one [complete]")}};
  Json batch = Json::array({first, Json(5), parse(R"({"jsonrpc":"2.0","id":"c","method":"nope"})"),
                            parse(std::string(R"({"jsonrpc":"2.0","id":"d","method":")") +
                                  wire_.get + R"(","params":{}})")});
  protocol::HttpReply reply = post(dumpJson(batch));
  EXPECT_EQ(reply.status, 200);
  Json answers = parse(reply.body);
  ASSERT_TRUE(answers.is_array());
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[0]["id"], "a");
  EXPECT_TRUE(answers[0].contains("result"));
  EXPECT_TRUE(answers[1]["id"].is_null());
  EXPECT_EQ(answers[1]["error"]["code"], -32600);
  EXPECT_EQ(answers[2]["id"], "c");
  EXPECT_EQ(answers[2]["error"]["code"], -32601);
  EXPECT_EQ(answers[3]["id"], "d");
  EXPECT_EQ(
      answers[3]["error"],
      wire_.error(parse(R"({"code":-32602,"message":"id must be a string"})"), "INVALID_PARAMS"));

  // Elements run in order: the second sees the task the first created.
  Json task = wire_.v10() ? answers[0]["result"]["task"] : answers[0]["result"];
  Json pair =
      Json::array({parse(std::string(R"({"jsonrpc":"2.0","id":1,"method":")") + wire_.cancel +
                         R"(","params":{"id":")" + task["id"].get<std::string>() + R"("}})"),
                   parse(std::string(R"({"jsonrpc":"2.0","id":2,"method":")") + wire_.get +
                         R"(","params":{"id":")" + task["id"].get<std::string>() + R"("}})")});
  Json answered = call(dumpJson(pair));
  EXPECT_EQ(answered[0]["error"]["code"], -32002) << "completed: not cancelable";
  EXPECT_EQ(answered[1]["result"]["status"]["state"], wire_.state("completed"));
}

TEST_P(Conformance, EmptyBatchIsOneInvalidRequest) {
  EXPECT_EQ(call("[]"),
            (Json{{"jsonrpc", "2.0"},
                  {"id", nullptr},
                  {"error", wire_.error(parse(R"({"code":-32600,"message":"Invalid Request"})"),
                                        "INVALID_REQUEST")}}));
}

TEST_P(Conformance, StreamingMethodsCannotBeBatched) {
  Json stream = {{"jsonrpc", "2.0"},
                 {"id", 1},
                 {"method", wire_.v10() ? "SendStreamingMessage" : "message/stream"}};
  stream["params"] = {{"message", wire_.message("hi")}};
  Json answers = call(dumpJson(Json::array({stream})));
  ASSERT_TRUE(answers.is_array());
  EXPECT_EQ(answers[0]["error"]["code"], -32004);
}

// ----- Task lifecycle -------------------------------------------------------------------------

TEST_P(Conformance, PlainMessageLeavesTheTaskWaitingForInput) {
  Json task = sendText("hello");
  EXPECT_EQ(task["status"]["state"], wire_.state("input-required"));
  EXPECT_EQ(task["history"].size(), 2u) << "the message and the agent's answer";
  EXPECT_EQ(task["artifacts"].size(), 1u);
}

// Receivers ignore the fields they do not know: never stored, never echoed.
TEST_P(Conformance, UnknownFieldsOfAMessageAreIgnored) {
  Json message = wire_.message("hello");
  message["tckUnknownField"] = "must not come back";
  message["parts"][0]["unknownPartField"] = 1;
  const Json task = send({{"message", message}});
  const Json stored = taskCall(wire_.get, task["id"])["result"];
  ASSERT_TRUE(stored.contains("history")) << stored.dump();
  const Json& asked = stored["history"][0];
  EXPECT_EQ(asked["messageId"], "m-1");
  EXPECT_FALSE(asked.contains("tckUnknownField")) << asked.dump();
  EXPECT_FALSE(asked["parts"][0].contains("unknownPartField")) << asked.dump();
  EXPECT_EQ(asked["parts"][0]["text"], "hello");
  EXPECT_EQ(task.dump().find("unknown"), std::string::npos) << task.dump();
  EXPECT_EQ(task.dump().find("tckUnknownField"), std::string::npos) << task.dump();
  if (wire_.v10()) {
    const Json listed = call(request(3, "ListTasks", {{"historyLength", 5}}))["result"];
    EXPECT_EQ(listed.dump().find("tckUnknownField"), std::string::npos) << listed.dump();
  }
}

TEST_P(Conformance, ContinuationAppendsToTheSameTask) {
  Json task = sendText("hello");
  Json again = continued("and more", task, "m-2");
  EXPECT_EQ(again["id"], task["id"]);
  EXPECT_EQ(again["contextId"], task["contextId"]);
  EXPECT_EQ(again["status"]["state"], wire_.state("input-required"));
  ASSERT_EQ(again["history"].size(), 4u);
  EXPECT_EQ(again["history"][2]["messageId"], "m-2");
  EXPECT_EQ(again["artifacts"].size(), 2u) << "one answer per turn";
}

TEST_P(Conformance, CancelMovesAWaitingTaskToCanceledOnce) {
  Json task = sendText("hello");
  mock_.clock().advance(3s);
  Json canceled = taskCall(wire_.cancel, task["id"])["result"];
  EXPECT_EQ(canceled["id"], task["id"]);
  EXPECT_EQ(canceled["status"]["state"], wire_.state("canceled"));
  EXPECT_EQ(canceled["status"]["timestamp"], "2025-01-01T00:00:03.000Z");
  EXPECT_EQ(taskCall(wire_.cancel, task["id"])["error"],
            wire_.error(parse(R"({"code":-32002,"message":"Task not cancelable: )" +
                              task["id"].get<std::string>() + R"("})"),
                        "TASK_NOT_CANCELABLE"));
  Json message = wire_.message("more", "m-2");
  message["taskId"] = task["id"];
  EXPECT_EQ(errorOf(request(3, wire_.send, {{"message", message}}))["code"], -32004);
  EXPECT_EQ(taskCall(wire_.subscribe, task["id"])["error"]["code"], -32004);
  EXPECT_EQ(taskCall(wire_.get, task["id"])["result"]["status"]["state"], wire_.state("canceled"));
}

TEST_P(Conformance, MessagesThatFinishATaskOnPurpose) {
  EXPECT_EQ(sendText("x [complete]")["status"]["state"], wire_.state("completed"));
  Json failed = sendText("x [fail]", "m-2");
  EXPECT_EQ(failed["status"]["state"], wire_.state("failed"));
  EXPECT_EQ(failed["status"]["message"]["parts"][0]["text"], "The echo skill was told to fail.");
  Json rejected = sendText("x [reject]", "m-3");
  EXPECT_EQ(rejected["status"]["state"], wire_.state("rejected"));
  EXPECT_EQ(rejected["status"]["message"]["parts"][0]["text"],
            "The echo skill was told to reject this task.");
  Json story = wire_.message("tell", "m-4");
  story["metadata"] = {{"skillId", "story"}};
  EXPECT_EQ(send({{"message", story}})["status"]["state"], wire_.state("completed"));
  EXPECT_EQ(taskCall(wire_.cancel, rejected["id"])["error"]["code"], -32002);
}

TEST_P(Conformance, BlockingSendNeverReturnsWorking) {
  Json params = {{"message", wire_.message("hello")}};
  Json immediate = params;
  immediate["configuration"] =
      wire_.v10() ? Json{{"returnImmediately", true}} : Json{{"blocking", false}};
  Json task = send(immediate);
  EXPECT_EQ(task["status"]["state"], wire_.state("working"));
  EXPECT_EQ(task["history"].size(), 1u) << "the agent has not answered yet";
  EXPECT_FALSE(task.contains("artifacts"));
  EXPECT_EQ(taskCall(wire_.get, task["id"])["result"]["status"]["state"],
            wire_.state("input-required"))
      << "the turn is done by the next read";

  Json blocking = params;
  blocking["configuration"] =
      wire_.v10() ? Json{{"returnImmediately", false}} : Json{{"blocking", true}};
  EXPECT_EQ(send(blocking)["status"]["state"], wire_.state("input-required"));
  Json wrong = params;
  wrong["configuration"] = wire_.v10() ? Json{{"returnImmediately", "yes"}} : Json{{"blocking", 1}};
  EXPECT_EQ(errorOf(request(1, wire_.send, wrong))["code"], -32602);
}

TEST_P(Conformance, HistoryLengthIsHonouredOnSendAndGet) {
  Json task = sendText("hello");
  Json message = wire_.message("more", "m-2");
  message["taskId"] = task["id"];
  Json cut = send({{"message", message}, {"configuration", {{"historyLength", 1}}}});
  ASSERT_EQ(cut["history"].size(), 1u);
  EXPECT_EQ(cut["history"][0]["role"], wire_.v10() ? "ROLE_AGENT" : "agent");
  EXPECT_EQ(taskCall(wire_.get, task["id"], {{"historyLength", 0}})["result"]["history"],
            Json::array());
  EXPECT_EQ(taskCall(wire_.get, task["id"], {{"historyLength", 3}})["result"]["history"].size(),
            3u);
  EXPECT_EQ(taskCall(wire_.get, task["id"])["result"]["history"].size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(BothVersions, Conformance, ::testing::Values(kV03, kV10),
                         [](const ::testing::TestParamInfo<Dialect>& dialect) {
                           return dialect.param.v10() ? "v10" : "v03";
                         });

// ----- The v1.0 wire --------------------------------------------------------------------------

/// True when `value` or anything inside it has a member named `kind`.
bool hasKind(const Json& value) {
  if (value.is_object()) {
    if (value.contains("kind")) {
      return true;
    }
    for (const auto& [key, member] : value.items()) {
      if (hasKind(member)) {
        return true;
      }
    }
  }
  if (value.is_array()) {
    for (const Json& element : value) {
      if (hasKind(element)) {
        return true;
      }
    }
  }
  return false;
}

class V10 : public ::testing::Test {
 protected:
  Harness mock_{testing::standardConfig()};

  Json call(const std::string& method, const Json& params, const Json& id = 1) {
    return parse(mock_
                     .post(request(id, method, params), "",
                           {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}})
                     .body);
  }

  Json sendText(const std::string& text, const Json& extra_message = Json::object()) {
    Json message = kV10.message(text);
    message.update(extra_message);
    return call("SendMessage", {{"message", message}})["result"]["task"];
  }
};

TEST_F(V10, AnswersAreProtoJson) {
  Json file_message = kV10.message("look");
  file_message["parts"].push_back(
      parse(R"({"raw":"aGk=","filename":"hi.txt","mediaType":"text/plain"})"));
  file_message["parts"].push_back(parse(R"({"url":"https://example.test/a.png"})"));
  file_message["parts"].push_back(parse(R"({"data":[1,2]})"));
  Json result = call("SendMessage", {{"message", file_message}})["result"];
  ASSERT_EQ(result.size(), 1u);
  ASSERT_TRUE(result.contains("task")) << "results are wrapped";
  const Json& task = result["task"];
  EXPECT_FALSE(hasKind(result)) << result.dump();
  EXPECT_EQ(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
  EXPECT_EQ(task["history"][0]["role"], "ROLE_USER");
  EXPECT_EQ(task["history"][1]["role"], "ROLE_AGENT");
  EXPECT_EQ(task["history"][0]["parts"],
            parse(R"([{"text":"look"},{"raw":"aGk=","filename":"hi.txt","mediaType":"text/plain"},
                      {"url":"https://example.test/a.png"},{"data":[1,2]}])"))
      << "the user's parts come back as sent";
  EXPECT_EQ(task["artifacts"][0]["parts"],
            parse(R"([{"text":"You said: look"},{"data":{"echoed":true}}])"));

  // The same task read on the v0.3 wire: one store, two spellings.
  Json v03 = parse(mock_.post(testing::taskRequest("tasks/get", task["id"]), "").body)["result"];
  EXPECT_EQ(v03["kind"], "task");
  EXPECT_EQ(v03["status"]["state"], "input-required");
  EXPECT_EQ(
      v03["history"][0]["parts"][1],
      parse(R"({"kind":"file","file":{"bytes":"aGk=","name":"hi.txt","mimeType":"text/plain"}})"));
}

TEST_F(V10, PartsMustHoldExactlyOneContent) {
  Json message = kV10.message("x");
  message["parts"] = parse(R"([{"text":"a","url":"b"}])");
  EXPECT_EQ(
      call("SendMessage", {{"message", message}})["error"],
      withErrorInfo(parse(R"({"code":-32602,"message":"message.parts[0] must hold exactly one of )"
                          R"(text, raw, url and data"})"),
                    "INVALID_PARAMS"));
  message["parts"] = parse(R"([{"raw":7}])");
  EXPECT_EQ(call("SendMessage", {{"message", message}})["error"]["message"],
            "message.parts[0].raw must be a string");
  message = kV10.message("x");
  message["role"] = "user";
  EXPECT_EQ(call("SendMessage", {{"message", message}})["error"]["message"],
            "message.role must be \"ROLE_USER\"");
}

TEST_F(V10, StreamEventsAreWrappedAndEndTheStream) {
  Json message = kV10.message("tell");
  message["metadata"] = {{"skillId", "story"}};
  protocol::HttpReply reply =
      mock_.post(request("s", "SendStreamingMessage", {{"message", message}}), "",
                 {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}});
  ASSERT_EQ(reply.stream.size(), 6u);
  std::vector<std::string> wrappers;
  for (const protocol::StreamPiece& event : reply.stream) {
    Json response = parse(event.bytes.substr(6, event.bytes.size() - 8));
    EXPECT_EQ(response["id"], "s");
    EXPECT_FALSE(hasKind(response)) << event.bytes;
    ASSERT_EQ(response["result"].size(), 1u);
    wrappers.push_back(response["result"].begin().key());
  }
  EXPECT_EQ(wrappers,
            (std::vector<std::string>{"task", "statusUpdate", "artifactUpdate", "artifactUpdate",
                                      "artifactUpdate", "statusUpdate"}));
  Json last = parse(reply.stream[5].bytes.substr(6, reply.stream[5].bytes.size() - 8));
  EXPECT_EQ(last["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_FALSE(last["result"]["statusUpdate"].contains("final")) << "v1.0 has no `final`";
}

TEST_F(V10, SubscribeToTaskStreamsAWaitingTaskAndRefusesUnknownOnes) {
  Json task = sendText("hello");
  protocol::HttpReply reply =
      mock_.post(request(4, "SubscribeToTask", {{"id", task["id"]}}), "",
                 {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}});
  ASSERT_EQ(reply.stream.size(), 2u);
  EXPECT_EQ(parse(reply.stream[0].bytes.substr(6))["result"]["task"], task);
  EXPECT_EQ(
      call("SubscribeToTask", {{"id", "nope"}})["error"],
      withErrorInfo(parse(R"({"code":-32001,"message":"Task not found: nope"})"), "TASK_NOT_FOUND"))
      << "a plain error before the stream, which the client can read";
}

TEST_F(V10, TheHeaderOrQueryParameterSelectsTheVersion) {
  const std::string body = request(1, "SendMessage", {{"message", kV10.message("hi")}});
  EXPECT_EQ(
      parse(mock_.post(body, "").body)["error"],
      (Json{{"code", -32601},
            {"message", "Method not found: SendMessage (a v1.0 method: send A2A-Version: 1.0)"}}))
      << "no header means 0.3";
  protocol::HttpReply by_query = mock_.engine().handle(
      {"POST", "/api/v1/a2a?x=1&A2A-Version=1.0", {{"Content-Type", "application/json"}}, body});
  EXPECT_TRUE(parse(by_query.body)["result"].contains("task"));
  EXPECT_TRUE(
      parse(mock_.post(body, "", {{"Content-Type", "application/json"}, {"a2a-version", " 1.0.3 "}})
                .body)["result"]
          .contains("task"))
      << "a patch number is allowed";
  EXPECT_EQ(parse(mock_
                      .post(testing::taskRequest("tasks/get", "x"), "",
                            {{"Content-Type", "application/json"}, {"A2A-Version", "0.3"}})
                      .body)["error"]["code"],
            -32001);
  for (const char* asked : {"2.0", "0.2", "one"}) {
    EXPECT_EQ(
        parse(mock_.post(body, "", {{"Content-Type", "application/json"}, {"A2A-Version", asked}})
                  .body)["error"],
        std::string(asked) == "0.2"
            ? parse(std::string(R"({"code":-32009,"message":"A2A version not supported: )") +
                    asked + R"(","data":{"supportedVersions":["0.3","1.0"]}})")
            : withErrorInfo(
                  parse(std::string(R"({"code":-32009,"message":"A2A version not supported: )") +
                        asked + R"("})"),
                  "VERSION_NOT_SUPPORTED", {{"supportedVersions", "0.3,1.0"}}))
        << asked << ": an older version gets v0.3's shape, a newer or unknown one v1.0's";
  }
}

TEST_F(V10, OneVersionOnlyRefusesTheOther) {
  MockConfig only_v10 = testing::standardConfig();
  only_v10.a2a_versions = {WireVersion::V10};
  Harness v10(std::move(only_v10));
  EXPECT_EQ(parse(v10.post(testing::taskRequest("tasks/get", "x"), "").body)["error"]["code"],
            -32009)
      << "no header asks for 0.3, which is not served";
  Json card = parse(v10.get("/.well-known/agent-card.json").body);
  EXPECT_FALSE(card.contains("protocolVersion"));
  EXPECT_FALSE(card.contains("url"));
  EXPECT_EQ(card["supportedInterfaces"],
            parse(R"([{"url":"http://mock.test/api/v1/a2a","protocolBinding":"JSONRPC",)"
                  R"("protocolVersion":"1.0"},{"url":"http://mock.test/api/v1/rest",)"
                  R"("protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}])"));

  MockConfig only_v03 = testing::standardConfig();
  only_v03.a2a_versions = {WireVersion::V03};
  Harness v03(std::move(only_v03));
  EXPECT_EQ(parse(v03.post(request(1, "GetTask", {{"id", "x"}}), "",
                           {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}})
                      .body)["error"],
            withErrorInfo(parse(R"({"code":-32009,"message":"A2A version not supported: 1.0"})"),
                          "VERSION_NOT_SUPPORTED", {{"supportedVersions", "0.3"}}));
  Json old_card = parse(v03.get("/.well-known/agent-card.json").body);
  EXPECT_EQ(old_card["protocolVersion"], "0.3.0");
  EXPECT_FALSE(old_card.contains("supportedInterfaces"));
  EXPECT_FALSE(old_card["capabilities"].contains("extendedAgentCard"));
}

TEST_F(V10, TheCardDeclaresBothVersions) {
  Json card = parse(mock_.get("/.well-known/agent-card.json").body);
  EXPECT_EQ(card["protocolVersion"], "0.3.0");
  EXPECT_EQ(card["url"], "http://mock.test/api/v1/a2a");
  EXPECT_EQ(card["supportedInterfaces"],
            parse(R"([{"url":"http://mock.test/api/v1/a2a","protocolBinding":"JSONRPC",)"
                  R"("protocolVersion":"1.0"},{"url":"http://mock.test/api/v1/rest",)"
                  R"("protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},)"
                  R"({"url":"http://mock.test/api/v1/a2a","protocolBinding":"JSONRPC",)"
                  R"("protocolVersion":"0.3"}])"));
  EXPECT_EQ(card["capabilities"]["extendedAgentCard"], false);
}

TEST_F(V10, ListTasksPagesFiltersAndCuts) {
  Json first = sendText("one");
  mock_.clock().advance(1s);
  Json second = sendText("two [complete]", {{"contextId", first["contextId"]}});
  mock_.clock().advance(1s);
  Json third = sendText("three");

  Json page = call("ListTasks", {{"pageSize", 2}})["result"];
  ASSERT_EQ(page["tasks"].size(), 2u);
  EXPECT_EQ(page["tasks"][0]["id"], third["id"]) << "the most recently changed first";
  EXPECT_EQ(page["tasks"][1]["id"], second["id"]);
  EXPECT_EQ(page["nextPageToken"], "2");
  EXPECT_EQ(page["pageSize"], 2);
  EXPECT_EQ(page["totalSize"], 3);
  EXPECT_FALSE(page["tasks"][0].contains("artifacts")) << "only with includeArtifacts";
  Json rest = call("ListTasks", {{"pageSize", 2}, {"pageToken", "2"}})["result"];
  ASSERT_EQ(rest["tasks"].size(), 1u);
  EXPECT_EQ(rest["tasks"][0]["id"], first["id"]);
  EXPECT_EQ(rest["nextPageToken"], "");

  Json context = call("ListTasks", {{"contextId", first["contextId"]}})["result"];
  EXPECT_EQ(context["totalSize"], 2);
  Json done = call("ListTasks", {{"status", "TASK_STATE_COMPLETED"}})["result"];
  ASSERT_EQ(done["tasks"].size(), 1u);
  EXPECT_EQ(done["tasks"][0]["id"], second["id"]);
  Json recent = call("ListTasks", {{"statusTimestampAfter", "2025-01-01T00:00:01.5Z"}})["result"];
  ASSERT_EQ(recent["tasks"].size(), 1u);
  EXPECT_EQ(recent["tasks"][0]["id"], third["id"]);
  Json cut = call("ListTasks", {{"historyLength", 1}, {"includeArtifacts", true}})["result"];
  EXPECT_EQ(cut["tasks"][0]["history"].size(), 1u);
  EXPECT_EQ(cut["tasks"][0]["artifacts"].size(), 1u);
  EXPECT_EQ(call("ListTasks", Json::object())["result"]["totalSize"], 3);

  const std::pair<Json, const char*> bad[] = {
      {{{"pageSize", 0}}, "pageSize must be an integer from 1 to 100"},
      {{{"pageSize", 101}}, "pageSize must be an integer from 1 to 100"},
      {{{"pageToken", "abc"}}, "pageToken is not one this server issued"},
      {{{"status", "completed"}}, "status must be a TASK_STATE_* name"},
      {{{"statusTimestampAfter", "yesterday"}},
       "statusTimestampAfter must be an RFC 3339 timestamp"},
      {{{"includeArtifacts", "yes"}}, "includeArtifacts must be a boolean"},
  };
  for (const auto& [params, message] : bad) {
    EXPECT_EQ(call("ListTasks", params)["error"],
              withErrorInfo({{"code", -32602}, {"message", message}}, "INVALID_PARAMS"))
        << params.dump();
  }
}

TEST_F(V10, PushConfigsAreNotSupportedAndTheExtendedCardIsNotConfigured) {
  for (const char* method :
       {"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig"}) {
    EXPECT_EQ(
        call(method, {{"taskId", "t"}})["error"],
        withErrorInfo(parse(R"({"code":-32003,"message":"Push Notification is not supported"})"),
                      "PUSH_NOTIFICATION_NOT_SUPPORTED"))
        << method;
  }
  EXPECT_EQ(call("GetExtendedAgentCard", Json::object())["error"]["code"], -32007);
}

// The card is negotiated on its GET: v1.0's for A2A-Version 1.0, v0.3's (with the v1.0
// interfaces listed) otherwise; each with its own validator, revalidated with a 304.
TEST_F(V10, TheCardIsNegotiatedByA2aVersionWithValidatorsOfItsOwn) {
  const auto get = [&](protocol::Headers headers) {
    return mock_.engine().handle({"GET", "/.well-known/agent-card.json", std::move(headers), ""});
  };
  const protocol::HttpReply v03 = get({});
  const protocol::HttpReply v10 = get({{"A2A-Version", "1.0"}});
  EXPECT_EQ(get({{"A2A-Version", "0.3"}}).body, v03.body);
  const Json old_card = parse(v03.body);
  EXPECT_EQ(old_card["protocolVersion"], "0.3.0");
  EXPECT_EQ(old_card["url"], "http://mock.test/api/v1/a2a");
  EXPECT_EQ(old_card["supportedInterfaces"].size(), 3u);

  const Json card = parse(v10.body);
  for (const char* v03_only : {"protocolVersion", "url", "preferredTransport",
                               "supportsAuthenticatedExtendedCard", "additionalInterfaces"}) {
    EXPECT_FALSE(card.contains(v03_only)) << v03_only;
  }
  EXPECT_FALSE(card["capabilities"].contains("stateTransitionHistory"));
  EXPECT_EQ(card["capabilities"]["streaming"], true);
  // Every member the v1.0 AgentCard requires.
  for (const char* required :
       {"name", "description", "supportedInterfaces", "version", "capabilities",
        "defaultInputModes", "defaultOutputModes", "skills"}) {
    EXPECT_TRUE(card.contains(required)) << required;
  }
  EXPECT_EQ(card["supportedInterfaces"][0],
            parse(R"({"url":"http://mock.test/api/v1/a2a","protocolBinding":"JSONRPC",)"
                  R"("protocolVersion":"1.0"})"));

  const std::string v03_etag = testing::header(v03, "ETag");
  const std::string v10_etag = testing::header(v10, "ETag");
  EXPECT_NE(v03_etag, v10_etag);
  EXPECT_EQ(v03_etag.front(), '"');
  EXPECT_EQ(testing::header(v10, "Vary"), "A2A-Version");
  EXPECT_EQ(testing::header(v10, "Last-Modified"), "Wed, 01 Jan 2025 00:00:00 GMT");

  const protocol::HttpReply revalidated =
      get({{"A2A-Version", "1.0"}, {"If-None-Match", v10_etag}});
  EXPECT_EQ(revalidated.status, 304);
  EXPECT_TRUE(revalidated.body.empty());
  EXPECT_EQ(testing::header(revalidated, "ETag"), v10_etag);
  EXPECT_EQ(get({{"If-None-Match", "\"other\", W/" + v03_etag}}).status, 304)
      << "a list, and the weak comparison";
  EXPECT_EQ(get({{"If-None-Match", "*"}}).status, 304);
  EXPECT_EQ(get({{"If-None-Match", v10_etag}}).status, 200)
      << "the v0.3 card is not the one the v1.0 tag names";
}

TEST_F(V10, AFixtureCanConfigureTheExtendedCard) {
  MockConfig config = testing::standardConfig();
  config.fixtures.extended_card =
      parse(R"({"description":"For signed-in callers","skills":[{"id":"secret","name":"Secret",)"
            R"("description":"Only on the extended card","tags":[]}]})");
  Harness mock(std::move(config));
  Json card = parse(mock.get("/.well-known/agent-card.json").body);
  EXPECT_EQ(card["capabilities"]["extendedAgentCard"], true);
  EXPECT_EQ(card["supportsAuthenticatedExtendedCard"], true);
  Json extended = parse(mock.post(request(1, "GetExtendedAgentCard", Json::object()), "",
                                  {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}})
                            .body)["result"];
  EXPECT_EQ(extended["description"], "For signed-in callers");
  EXPECT_EQ(extended["skills"].size(), card["skills"].size() + 1);
  EXPECT_EQ(extended["skills"].back()["id"], "secret");
  EXPECT_FALSE(extended.contains("url")) << "a v1.0 caller gets v1.0's card";
  EXPECT_FALSE(extended.contains("supportsAuthenticatedExtendedCard"));
  const Json v03 =
      parse(mock.post(request(1, "agent/getAuthenticatedExtendedCard", Json::object()), "")
                .body)["result"];
  EXPECT_EQ(v03["protocolVersion"], "0.3.0");
  EXPECT_EQ(v03["skills"], extended["skills"]);
  EXPECT_EQ(v03["description"], "For signed-in callers");
}

TEST_F(V10, SameSeedAndClockGiveTheSameBytes) {
  const auto run = [] {
    Harness mock(testing::standardConfig());
    const protocol::Headers headers = {{"Content-Type", "application/json"},
                                       {"A2A-Version", "1.0"}};
    std::string transcript =
        mock.post(request(1, "SendMessage", {{"message", kV10.message("hi")}}), "", headers).body;
    const std::string id = parse(transcript)["result"]["task"]["id"];
    transcript += mock.post(request(2, "GetTask", {{"id", id}}), "", headers).body;
    transcript += mock.post(request(3, "CancelTask", {{"id", id}}), "", headers).body;
    return transcript;
  };
  const std::string first = run();
  EXPECT_EQ(first, run());
  EXPECT_NE(first.find("TASK_STATE_CANCELED"), std::string::npos);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
