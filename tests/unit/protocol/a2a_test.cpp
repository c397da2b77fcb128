#include "agentvcr/protocol/a2a.hpp"

#include <cctype>
#include <string>

#include <gtest/gtest.h>

namespace agentvcr::protocol::a2a {
namespace {

constexpr std::string_view kSend = R"({"id":1,"jsonrpc":"2.0","method":"message/send","params":{
  "message":{"kind":"message","messageId":"m-1","role":"user","contextId":"c-0",
  "parts":[{"kind":"text","text":"What is grace?"}],"metadata":{"skillId":"catholic_qa"}},
  "configuration":{"blocking":true}}})";

constexpr std::string_view kTaskAnswer = R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task",
  "id":"t-1","contextId":"c-1","status":{"state":"completed","timestamp":"2025-01-01T00:00:00Z"},
  "history":[{"kind":"message","role":"user","messageId":"m-1","parts":[{"kind":"text","text":"q"}]},
             {"kind":"message","role":"agent","messageId":"r-1","parts":[{"kind":"text","text":"from history"}]}],
  "artifacts":[{"artifactId":"a-0","name":"answer","parts":[{"kind":"text","text":"Grace is a gift."},
               {"kind":"data","data":{"citations":[]}}]}]}})";

CallExchange post(std::string_view request, std::string_view response) {
  return CallExchange{"POST", "/api/v1/a2a", "", request, response, {}};
}

TEST(A2aRecognition, KnowsJsonRpcBodiesBatchesAndCardPaths) {
  EXPECT_TRUE(isJsonRpc(Json::parse(kSend)));
  EXPECT_TRUE(isJsonRpc(Json::parse(R"([{"jsonrpc":"2.0","method":"a","id":1}])")));
  EXPECT_FALSE(isJsonRpc(Json::parse(R"([])")));
  EXPECT_FALSE(isJsonRpc(Json::parse(R"({"jsonrpc":2.0,"method":"a"})")));
  EXPECT_FALSE(isJsonRpc(Json::parse(R"([{"jsonrpc":"2.0"},{"input":[]}])")));
  EXPECT_FALSE(isJsonRpc(Json::parse(R"({"input":[]})")));
  EXPECT_TRUE(isAgentCardPath("/.well-known/agent.json"));
  EXPECT_TRUE(isAgentCardPath("/.well-known/agent-card.json?x=1"));
  EXPECT_TRUE(isAgentCardPath("http://host:9/.well-known/agent-card.json"));
  EXPECT_FALSE(isAgentCardPath("/.well-known/agent"));
  EXPECT_TRUE(isV10Method("SendMessage"));
  EXPECT_FALSE(isV10Method("message/send"));
}

TEST(A2aWire, NamesEachMethodInBothVersions) {
  EXPECT_EQ(v10MethodName("message/send"), "SendMessage");
  EXPECT_EQ(v10MethodName("tasks/resubscribe"), "SubscribeToTask");
  EXPECT_EQ(v10MethodName("tasks/pushNotificationConfig/list"), "ListTaskPushNotificationConfigs");
  EXPECT_EQ(v10MethodName("agent/getAuthenticatedExtendedCard"), "GetExtendedAgentCard");
  EXPECT_EQ(v10MethodName("SendMessage"), "") << "not a v0.3 name";
  EXPECT_EQ(v10MethodName("ListTasks"), "") << "v0.3 has no ListTasks";
  for (const char* v10 : {"ListTasks", "ListTaskPushNotificationConfigs",
                          "ListTaskPushNotificationConfig", "GetExtendedAgentCard"}) {
    EXPECT_TRUE(isV10Method(v10)) << v10;
  }
  EXPECT_TRUE(asksForV10("1.0"));
  EXPECT_TRUE(asksForV10("1.1"));
  EXPECT_FALSE(asksForV10("0.3"));
  EXPECT_FALSE(asksForV10(""));
}

TEST(A2aCalls, DecodesAMessageSendAndItsTask) {
  auto calls = decodeCalls(post(kSend, kTaskAnswer));
  ASSERT_EQ(calls.size(), 1u);
  const Call& call = calls[0];
  EXPECT_EQ(call.wire_version, WireVersion::V03);
  EXPECT_EQ(call.method, "message/send");
  EXPECT_EQ(call.rpc_id, "1");
  EXPECT_EQ(call.message_id, "m-1");
  EXPECT_EQ(call.skill_id, "catholic_qa");
  EXPECT_EQ(call.task_id, "t-1");
  EXPECT_EQ(call.context_id, "c-1");  // the server's id wins over the one the caller sent
  EXPECT_EQ(call.task_state, "completed");
  EXPECT_EQ(call.result_kind, "task");
  EXPECT_EQ(call.request_text, "What is grace?");
  EXPECT_EQ(call.response_text, "Grace is a gift.");
  ASSERT_TRUE(call.artifacts);
  EXPECT_EQ(Json::parse(*call.artifacts)[0]["artifactId"], "a-0");
  ASSERT_TRUE(call.history);
  EXPECT_EQ(Json::parse(*call.history).size(), 2u);
  EXPECT_FALSE(call.error_code);
  EXPECT_NE(call.replay_key, 0u);
}

TEST(A2aCalls, DecodesErrorsWithRetryAfterAndTaskIdsOfTaskMethods) {
  auto calls = decodeCalls(post(
      R"({"jsonrpc":"2.0","id":"abc","method":"tasks/get","params":{"id":"t-9"}})",
      R"({"jsonrpc":"2.0","id":"abc","error":{"code":-32003,"message":"Rate limit exceeded","data":{"retryAfter":42}}})"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].rpc_id, "\"abc\"");
  EXPECT_EQ(calls[0].task_id, "t-9");
  EXPECT_EQ(calls[0].error_code, -32003);
  EXPECT_EQ(calls[0].error_message, "Rate limit exceeded");
  EXPECT_EQ(calls[0].error_data, R"({"retryAfter":42})");
  EXPECT_EQ(calls[0].retry_after, 42.0);
}

TEST(A2aCalls, AFailedTaskTellsWhyInItsStatusMessage) {
  auto calls = decodeCalls(post(kSend, R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task",
    "id":"t-2","contextId":"c-2","status":{"state":"failed","message":{"kind":"message",
    "role":"agent","messageId":"e","parts":[{"kind":"text","text":"backend down"}]}}}})"));
  EXPECT_EQ(calls[0].task_state, "failed");
  EXPECT_EQ(calls[0].response_text, "backend down");
  EXPECT_FALSE(calls[0].artifacts);
}

TEST(A2aCalls, RecognisesV10ByMethodOrHeaderAndUnwrapsItsResults) {
  auto calls = decodeCalls(post(
      R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}})",
      R"({"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}})"));
  EXPECT_EQ(calls[0].wire_version, WireVersion::V10);
  EXPECT_EQ(calls[0].result_kind, "task");
  EXPECT_EQ(calls[0].task_state, "TASK_STATE_COMPLETED");
  EXPECT_EQ(calls[0].request_text, "hi");

  CallExchange with_header = post(R"({"jsonrpc":"2.0","id":1,"method":"message/send"})", "");
  with_header.a2a_version_header = "1.0";
  EXPECT_EQ(decodeCalls(with_header)[0].wire_version, WireVersion::V10);
}

TEST(A2aCalls, DecodesEachCallOfABatchWithItsOwnAnswer) {
  auto calls = decodeCalls(post(
      R"([{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"a"}},
          {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"b"}}])",
      R"([{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found"}},
          {"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"a","contextId":"c","status":{"state":"completed"}}}])"));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].position, 0u);
  EXPECT_EQ(calls[0].task_state, "completed");
  EXPECT_FALSE(calls[0].error_code);
  EXPECT_EQ(calls[1].position, 1u);
  EXPECT_EQ(calls[1].error_code, -32001);
  EXPECT_NE(calls[0].replay_key, calls[1].replay_key);
}

TEST(A2aCalls, FoldsAStreamIntoTheFinalStateAndMergedArtifacts) {
  CallExchange stream = post(
      R"({"jsonrpc":"2.0","id":5,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"go"}]}}})",
      "");
  stream.stream_data = {
      R"({"jsonrpc":"2.0","id":5,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}})",
      R"({"jsonrpc":"2.0","id":5,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}})",
      R"({"jsonrpc":"2.0","id":5,"result":{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"part 1"}]}}})",
      R"({"jsonrpc":"2.0","id":5,"result":{"kind":"artifact-update","taskId":"t","contextId":"c","append":true,"artifact":{"artifactId":"a","parts":[{"kind":"text","text":"part 2"}]}}})",
      R"({"jsonrpc":"2.0","id":5,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}})",
  };
  auto calls = decodeCalls(stream);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task_id, "t");
  EXPECT_EQ(calls[0].task_state, "completed");
  EXPECT_EQ(calls[0].result_kind, "status-update");
  EXPECT_EQ(calls[0].response_text, "part 1\npart 2");
  EXPECT_EQ(Json::parse(*calls[0].artifacts)[0]["parts"].size(), 2u);
}

TEST(A2aCalls, AnAnswerToAnUnreadableRequestIsStillRecorded) {
  auto calls = decodeCalls(
      post("{not json",
           R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].method);
  EXPECT_EQ(calls[0].error_code, -32700);
}

TEST(A2aCalls, WrongTypesAreLeftEmptyNotThrown) {
  auto calls = decodeCalls(post(
      R"({"jsonrpc":"2.0","id":{"x":1},"method":7,"params":{"message":{"messageId":3,"parts":"no"}}})",
      R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":5,"status":"done","artifacts":{"a":1}}})"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].method);
  EXPECT_EQ(calls[0].rpc_id, R"({"x":1})");
  EXPECT_FALSE(calls[0].message_id);
  EXPECT_FALSE(calls[0].task_id);
  EXPECT_FALSE(calls[0].task_state);
  EXPECT_FALSE(calls[0].artifacts);
}

TEST(A2aKey, IgnoresTheRpcIdAndOptionallyTheMessageId) {
  Json one = Json::parse(kSend);
  Json two = one;
  two["id"] = "other";
  EXPECT_EQ(callKey("POST", "/api/v1/a2a", one), callKey("POST", "/api/v1/a2a?x", two));
  two["params"]["message"]["messageId"] = "m-2";
  EXPECT_NE(callKey("POST", "/api/v1/a2a", one), callKey("POST", "/api/v1/a2a", two));
  EXPECT_EQ(callKey("POST", "/api/v1/a2a", one, {.ignore_message_id = true}),
            callKey("POST", "/api/v1/a2a", two, {.ignore_message_id = true}));
  EXPECT_NE(callKey("POST", "/api/v1/a2a", one), callKey("POST", "/other", one));
  two = one;
  two["params"]["message"]["parts"][0]["text"] = "What is sin?";
  EXPECT_NE(callKey("POST", "/api/v1/a2a", one), callKey("POST", "/api/v1/a2a", two));
}

TEST(A2aRestamp, PutsTheLiveIdInKeepingItsTypeAndTheMemberOrder) {
  Json recorded = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tasks/get"})");
  Json live = Json::parse(R"({"jsonrpc":"2.0","id":"x-7","method":"tasks/get"})");
  auto out = restampIds(R"({"jsonrpc":"2.0","id":1,"result":{"z":1,"a":2}})", recorded, live);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, R"({"jsonrpc":"2.0","id":"x-7","result":{"z":1,"a":2}})");
  live["id"] = 12;
  EXPECT_EQ(*restampIds(R"({"jsonrpc":"2.0","id":"r","error":{"code":-32001}})", recorded, live),
            R"({"jsonrpc":"2.0","id":12,"error":{"code":-32001}})");
  EXPECT_FALSE(restampIds("<html>", recorded, live));
}

TEST(A2aRestamp, MapsBatchIdsByPosition) {
  Json recorded = Json::parse(R"([{"jsonrpc":"2.0","id":1},{"jsonrpc":"2.0","id":2}])");
  Json live = Json::parse(R"([{"jsonrpc":"2.0","id":"a"},{"jsonrpc":"2.0","id":"b"}])");
  auto out =
      restampIds(R"([{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}])",
                 recorded, live);
  EXPECT_EQ(*out,
            R"([{"jsonrpc":"2.0","id":"b","result":{}},{"jsonrpc":"2.0","id":"a","result":{}}])");
}

TEST(A2aRestamp, RestampsEventData) {
  EXPECT_EQ(restampEventData(R"({"jsonrpc":"2.0","id":1,"result":{}})", Json(3)),
            R"({"jsonrpc":"2.0","id":3,"result":{}})");
  EXPECT_EQ(restampEventData("not json", Json(3)), "not json");
}

TEST(A2aRestamp, EveryByteButTheIdsIsTheAgents) {
  const Json recorded = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  const Json live = Json::parse(R"({"jsonrpc":"2.0","id":"live","method":"m"})");
  // Whitespace, number spellings and escapes a serialiser would write otherwise.
  const std::string result =
      "{\"version\": 1.10, \"serial\": 12345678901234567890123,\n"
      "   \"ratio\": 1E+2, \"name\": \"caf\\u00e9 \\/ \\ud83d\\ude00\"}";
  EXPECT_EQ(
      *restampIds("{\n  \"jsonrpc\": \"2.0\",\n  \"id\" : 1,\n  \"result\": " + result + "\n}\n",
                  recorded, live),
      "{\n  \"jsonrpc\": \"2.0\",\n  \"id\" : \"live\",\n  \"result\": " + result + "\n}\n");
  const Json recorded_batch = Json::parse(R"([{"id":1},{"id":2}])");
  const Json live_batch = Json::parse(R"([{"id":"a"},{"id":"b"}])");
  EXPECT_EQ(
      *restampIds("[ {\"id\": 2, \"result\": " + result + "},\n  {\"id\":1.0, \"result\":0.50} ]",
                  recorded_batch, live_batch),
      "[ {\"id\": \"b\", \"result\": " + result + "},\n  {\"id\":\"a\", \"result\":0.50} ]");
  EXPECT_EQ(restampEventData("{\"id\": 1, \"result\": " + result + "}", Json(7)),
            "{\"id\": 7, \"result\": " + result + "}");
  EXPECT_EQ(restampEventData("{\"result\": 1.10}", Json(7)), "{\"result\": 1.10}");
  // The id the parser reads, however its name is spelled, wherever it comes last.
  EXPECT_EQ(*restampIds(R"({"\u0069d":1,"result":1.10})", recorded, live),
            R"({"\u0069d":"live","result":1.10})");
  EXPECT_EQ(*restampIds(R"({"id":1,"result":1.10,"id":2})", recorded, live),
            R"({"id":1,"result":1.10,"id":"live"})");
}

TEST(A2aRestamp, ARecordedTaskAnswersATasksGetInTheAgentsBytes) {
  const std::string task =
      "{\"id\": \"t\", \"n\": 1.10,\n \"history\": [ {\"m\": 1}, {\"m\": 2.0} ,{\"m\": 3E1} ]}";
  const std::string answer = "{\"jsonrpc\": \"2.0\", \"id\": 4, \"result\": " + task + "}";
  EXPECT_EQ(*recordedTaskAnswer(answer, 0, Json("live"), std::nullopt),
            R"({"jsonrpc":"2.0","id":"live","result":)" + task + "}");
  EXPECT_EQ(*recordedTaskAnswer(answer, 0, Json(5), 2),
            R"({"jsonrpc":"2.0","id":5,"result":{"id": "t", "n": 1.10,)"
            "\n \"history\": [{\"m\": 2.0},{\"m\": 3E1}]}}");
  EXPECT_EQ(*recordedTaskAnswer(answer, 0, Json(5), 0),
            R"({"jsonrpc":"2.0","id":5,"result":{"id": "t", "n": 1.10,)"
            "\n \"history\": []}}");
  EXPECT_EQ(*recordedTaskAnswer(answer, 0, Json(5), 9),
            R"({"jsonrpc":"2.0","id":5,"result":)" + task + "}");
  // In a batch, the answer at the call's position; an error or no JSON holds no task.
  const std::string batch = "[{\"id\": 1, \"error\": {}}, {\"id\": 2, \"result\": " + task + "}]";
  EXPECT_EQ(*recordedTaskAnswer(batch, 1, Json(nullptr), std::nullopt),
            R"({"jsonrpc":"2.0","id":null,"result":)" + task + "}");
  EXPECT_FALSE(recordedTaskAnswer(batch, 0, Json(1), std::nullopt));
  EXPECT_FALSE(recordedTaskAnswer("<html>", 0, Json(1), std::nullopt));
}

TEST(A2aTaskStates, BothDialectsNormaliseToTheSameName) {
  for (const std::string v03 : {"submitted", "working", "input-required", "auth-required",
                                "completed", "failed", "canceled", "rejected"}) {
    // v1.0 spells each state in upper case with `_` for `-`, behind TASK_STATE_.
    std::string v10 = "TASK_STATE_";
    for (const char c : v03) {
      v10 += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    EXPECT_EQ(normalTaskState(v03), v03);
    EXPECT_EQ(normalTaskState(v10), v03) << v10;
  }
}

TEST(A2aTaskStates, WhatNeitherDialectNamesIsUnknown) {
  for (const char* state : {"unknown", "TASK_STATE_UNSPECIFIED", "cancelled", "COMPLETED",
                            "Completed", "task_state_completed", ""}) {
    EXPECT_EQ(normalTaskState(state), "unknown") << state;
  }
}

}  // namespace
}  // namespace agentvcr::protocol::a2a

namespace agentvcr::protocol::a2a {
namespace {

TEST(A2aRest, EveryRouteOfTheBindingNamesItsCall) {
  const auto method = [](const char* http, const char* path) {
    const auto route = restRouteOf(http, path);
    return route ? std::string(route->method) : std::string("none");
  };
  EXPECT_EQ(method("POST", "/message:send"), "SendMessage");
  EXPECT_EQ(method("POST", "/message:stream"), "SendStreamingMessage");
  EXPECT_EQ(method("GET", "/tasks/t1"), "GetTask");
  EXPECT_EQ(method("POST", "/tasks/t1:cancel"), "CancelTask");
  EXPECT_EQ(method("GET", "/tasks"), "ListTasks");
  EXPECT_EQ(method("POST", "/tasks/t1:subscribe"), "SubscribeToTask");
  EXPECT_EQ(method("GET", "/tasks/t1:subscribe"), "SubscribeToTask");
  EXPECT_EQ(method("POST", "/tasks/t1/pushNotificationConfigs"),
            "CreateTaskPushNotificationConfig");
  EXPECT_EQ(method("GET", "/tasks/t1/pushNotificationConfigs"), "ListTaskPushNotificationConfigs");
  EXPECT_EQ(method("GET", "/tasks/t1/pushNotificationConfigs/c"), "GetTaskPushNotificationConfig");
  EXPECT_EQ(method("DELETE", "/tasks/t1/pushNotificationConfigs/c"),
            "DeleteTaskPushNotificationConfig");
  EXPECT_EQ(method("GET", "/extendedAgentCard"), "GetExtendedAgentCard");
  for (const auto& [http, path] :
       {std::pair{"GET", "/message:send"}, std::pair{"POST", "/tasks/t1"},
        std::pair{"GET", "/tasks/:cancel"}, std::pair{"PUT", "/tasks"}, std::pair{"GET", "/"},
        std::pair{"GET", "/tasks/t1/other"}, std::pair{"GET", "/a/b/tasks"}}) {
    EXPECT_EQ(method(http, path), "none") << http << " " << path;
  }
  const auto tenanted = restRouteOf("POST", "/acme%20co/tasks/t%2F1:cancel");
  ASSERT_TRUE(tenanted);
  EXPECT_EQ(tenanted->tenant, "acme co");
  EXPECT_EQ(tenanted->task_id, "t/1");
  EXPECT_TRUE(restRouteOf("POST", "/message:stream")->streams);
  EXPECT_EQ(percentDecoded("a+b%41%zz"), "a+bA%zz");
  EXPECT_EQ(percentDecoded("a+b", true), "a b");
  EXPECT_EQ(restStatusOf(-32001).http_status, 404);
  EXPECT_EQ(restStatusOf(-32009).name, "FAILED_PRECONDITION");
  EXPECT_EQ(restStatusOf(-32602).name, "INVALID_ARGUMENT");
  EXPECT_EQ(restStatusOf(-32603).http_status, 500);
}

std::string everyUrlTo(std::string_view card, std::string_view to) {
  auto rewrite = rebaseCard(card, CardCarrier{CardCarrier::Kind::Body}, {.from = "", .to = to});
  return rewrite.result == CardRewriteResult::Rewritten ? rewrite.body : "unchanged";
}

TEST(A2aCard, AnEmptyFromPointsEveryHttpInterfaceAtTheNewBaseKeepingPaths) {
  EXPECT_EQ(
      everyUrlTo(
          R"({"name":"m","url":"https://magisterium.com/api/v1/a2a",)"
          R"("additionalInterfaces":[{"url":"https://www.magisterium.com/api/v1/a2a?x=1","transport":"JSONRPC"}],)"
          R"("supportedInterfaces":[{"url":"http://10.0.0.1:9/rpc","protocolBinding":"JSONRPC"}]})",
          "http://127.0.0.1:8000/"),
      R"({"name":"m","url":"http://127.0.0.1:8000/api/v1/a2a",)"
      R"("additionalInterfaces":[{"url":"http://127.0.0.1:8000/api/v1/a2a?x=1","transport":"JSONRPC"}],)"
      R"("supportedInterfaces":[{"url":"http://127.0.0.1:8000/rpc","protocolBinding":"JSONRPC"}]})");
  EXPECT_EQ(everyUrlTo(R"({"url":"http://host"})", "http://b:1"), R"({"url":"http://b:1"})");
  EXPECT_EQ(everyUrlTo(R"({"name":"no url"})", "http://b:1"), "unchanged");
  EXPECT_EQ(everyUrlTo(R"({"url":"/relative"})", "http://b:1"), "unchanged");
  EXPECT_EQ(everyUrlTo("<html>", "http://b:1"), "unchanged");
  // What replay serves: gRPC interfaces and signed cards stay as recorded there too.
  EXPECT_EQ(everyUrlTo(R"({"supportedInterfaces":[{"url":"http://a/g","protocolBinding":"GRPC"}]})",
                       "http://b:1"),
            "unchanged");
  EXPECT_EQ(rebaseCard(R"({"url":"http://a/rpc","signatures":[{"signature":"s"}]})",
                       CardCarrier{CardCarrier::Kind::Body}, {.from = "", .to = "http://b:1"})
                .result,
            CardRewriteResult::Signed);
}

TEST(A2aCard, OnlyHttpInterfacesUnderTheAgentsBaseMove) {
  const std::string card =
      R"({"url":"HTTP://Agent:80/base/rpc","preferredTransport":"JSONRPC",)"
      R"("provider":{"url":"http://agent/base/about"},"iconUrl":"http://agent/base/icon.png",)"
      R"("documentationUrl":"http://agent/base/docs",)"
      R"("securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"authorizationCode":)"
      R"({"authorizationUrl":"http://agent/base/oauth"}}}}},)"
      R"("additionalInterfaces":[{"url":"http://agent/base/rest","transport":"HTTP+JSON"},)"
      R"({"url":"http://agent/base/grpc","transport":"GRPC"},)"
      R"({"url":"http://agent:81/base/rpc","transport":"JSONRPC"},)"
      R"({"url":"http://agent/other/rpc","transport":"JSONRPC"},)"
      R"({"url":"http://agent/basement","transport":"JSONRPC"},)"
      R"({"url":"http://agent/base?q=1","transport":"JSONRPC"}],)"
      R"("supportedInterfaces":[{"url":"http://agent/base/v1","protocolBinding":"HTTP+JSON"},)"
      R"({"url":"http://agent/base/g","protocolBinding":"GRPC"}]})";
  const auto rewrite = rebaseCard(card, CardCarrier{CardCarrier::Kind::Body},
                                  {.from = "http://agent/base/", .to = "http://127.0.0.1:8/"});
  ASSERT_EQ(rewrite.result, CardRewriteResult::Rewritten);
  const Json out = Json::parse(rewrite.body);
  EXPECT_EQ(out["url"], "http://127.0.0.1:8/rpc");
  EXPECT_EQ(out["additionalInterfaces"][0]["url"], "http://127.0.0.1:8/rest");
  EXPECT_EQ(out["additionalInterfaces"][1]["url"], "http://agent/base/grpc") << "gRPC stays";
  EXPECT_EQ(out["additionalInterfaces"][2]["url"], "http://agent:81/base/rpc") << "other port";
  EXPECT_EQ(out["additionalInterfaces"][3]["url"], "http://agent/other/rpc") << "outside base";
  EXPECT_EQ(out["additionalInterfaces"][4]["url"], "http://agent/basement") << "not below base";
  EXPECT_EQ(out["additionalInterfaces"][5]["url"], "http://127.0.0.1:8?q=1");
  EXPECT_EQ(out["supportedInterfaces"][0]["url"], "http://127.0.0.1:8/v1");
  EXPECT_EQ(out["supportedInterfaces"][1]["url"], "http://agent/base/g");
  EXPECT_EQ(out["provider"]["url"], "http://agent/base/about");
  EXPECT_EQ(out["iconUrl"], "http://agent/base/icon.png");
  EXPECT_EQ(out["documentationUrl"], "http://agent/base/docs");
  EXPECT_EQ(out["securitySchemes"].dump(), Json::parse(card)["securitySchemes"].dump());
  ASSERT_EQ(rewrite.urls.size(), 4u);
  EXPECT_EQ(rewrite.urls[0].from, "HTTP://Agent:80/base/rpc");
  EXPECT_EQ(Json::parse(rewrite.note())["urls"][0]["to"], "http://127.0.0.1:8/rpc");
}

TEST(A2aCard, ASignedCardIsLeftAsItIs) {
  const auto rewrite = rebaseCard(
      R"({"url":"http://agent/rpc","signatures":[{"protected":"x","signature":"y"}]})",
      CardCarrier{CardCarrier::Kind::Body}, {.from = "http://agent", .to = "http://127.0.0.1:8"});
  EXPECT_EQ(rewrite.result, CardRewriteResult::Signed);
  EXPECT_EQ(rewrite.note(), R"({"left":"signed"})");
  EXPECT_EQ(rebaseCard(R"({"url":"http://agent/rpc","signatures":[]})",
                       CardCarrier{CardCarrier::Kind::Body},
                       {.from = "http://agent", .to = "http://127.0.0.1:8"})
                .result,
            CardRewriteResult::Rewritten);
}

TEST(A2aCard, TheExtendedCardOfAJsonRpcAnswerIsItsResult) {
  const auto rewrite =
      rebaseCard(R"({"jsonrpc":"2.0","id":7,"result":{"url":"http://agent/rpc","name":"x"}})",
                 CardCarrier{CardCarrier::Kind::JsonRpcResult},
                 {.from = "http://agent", .to = "http://127.0.0.1:8"});
  ASSERT_EQ(rewrite.result, CardRewriteResult::Rewritten);
  EXPECT_EQ(rewrite.body,
            R"({"jsonrpc":"2.0","id":7,"result":{"url":"http://127.0.0.1:8/rpc","name":"x"}})");
  EXPECT_EQ(
      rebaseCard(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32007}})",
                 CardCarrier{CardCarrier::Kind::JsonRpcResult}, {.from = "", .to = "http://b"})
          .result,
      CardRewriteResult::Unchanged);
}

TEST(A2aCard, TheRequestsWhoseAnswerCarriesACard) {
  const auto kindOf = [](std::string_view method, std::string_view target, std::string_view body) {
    return cardCarrierOf(method, target, body).kind;
  };
  using Kind = CardCarrier::Kind;
  EXPECT_EQ(kindOf("GET", "/.well-known/agent-card.json?x", ""), Kind::Body);
  EXPECT_EQ(kindOf("GET", "/.well-known/agent.json", ""), Kind::Body);
  EXPECT_EQ(kindOf("GET", "/api/v1/rest/extendedAgentCard", ""), Kind::Body);
  EXPECT_EQ(kindOf("GET", "/v1/card", ""), Kind::Body);
  EXPECT_EQ(kindOf("HEAD", "/.well-known/agent-card.json", ""), Kind::Body);
  EXPECT_EQ(kindOf("POST", "/.well-known/agent-card.json", ""), Kind::None);
  EXPECT_EQ(kindOf("POST", "/", R"({"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"})"),
            Kind::JsonRpcResult);
  EXPECT_EQ(kindOf("POST", "/",
                   R"({"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"})"),
            Kind::JsonRpcResult);
  EXPECT_EQ(
      kindOf(
          "POST", "/",
          R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"text":"GetExtendedAgentCard"}})"),
      Kind::None);
  EXPECT_EQ(kindOf("GET", "/v1/responses", ""), Kind::None);
  EXPECT_TRUE(cardCarrierOf("GET", "/.well-known/agent.json", "").batch_card_ids.empty());
}

TEST(A2aCard, ABatchCarriesTheCardsOfItsExtendedCardCallsThatHaveAnId) {
  const CardCarrier batch = cardCarrierOf(
      "POST", "/",
      R"([{"jsonrpc":"2.0","id":1,"method":"GetTask"},)"
      R"({"jsonrpc":"2.0","id":"c","method":"GetExtendedAgentCard"},)"
      R"({"jsonrpc":"2.0","method":"GetExtendedAgentCard"},)"
      R"({"jsonrpc":"2.0","id":null,"method":"agent/getAuthenticatedExtendedCard"}])");
  EXPECT_EQ(batch.kind, CardCarrier::Kind::JsonRpcResult);
  EXPECT_EQ(Json(batch.batch_card_ids), Json::parse(R"(["c",null])"));
  EXPECT_FALSE(cardCarrierOf("POST", "/", R"([{"jsonrpc":"2.0","method":"GetExtendedAgentCard"}])"))
      << "a notification is answered by nothing";

  // Answers come in any order; an error answers with no card, and another call's `url` stays.
  const auto rewrite = rebaseCard(
      R"([{"id":1,"result":{"url":"http://agent/rpc"}},)"
      R"( {"id":null,"error":{"code":-32007}}, {"id":"c","result":{"url":"http://agent/rpc"}}])",
      batch, {.from = "http://agent", .to = "http://127.0.0.1:8"});
  ASSERT_EQ(rewrite.result, CardRewriteResult::Rewritten);
  EXPECT_EQ(
      rewrite.body,
      R"([{"id":1,"result":{"url":"http://agent/rpc"}},)"
      R"( {"id":null,"error":{"code":-32007}}, {"id":"c","result":{"url":"http://127.0.0.1:8/rpc"}}])");
}

}  // namespace
}  // namespace agentvcr::protocol::a2a
