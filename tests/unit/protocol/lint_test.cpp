// The lint rules of protocol/lint.hpp, one at a time, each with a passing and a failing case.

#include "agentvcr/protocol/lint.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::protocol::lint {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Json benchInput() {
  return Json::parse(R"({"id":1,"instruction":{"type":"user","content":"press sw1"},
    "tools":[{"name":"cancel_current_action","description":"Cancel.","arguments":{}},
             {"name":"press_button","description":"Press a button.",
              "arguments":{"id":{"description":"Name of the button.","type":"str"}}}],
    "attributes":{"known_robots":["panda"]},"memory":{},"num_outputs":1,"extra_keys":{}})");
}

Json outputWith(const std::string& say, Json tool_calls) {
  return Json{{"request_id", "r"},
              {"source_id", 1},
              {"candidate_index", 0},
              {"status", "completed"},
              {"memory", Json::object()},
              {"internal_steps", Json::array()},
              {"output", {{"say", say}, {"tool_calls", std::move(tool_calls)}}},
              {"error", nullptr}};
}

Json call(const std::string& name, Json arguments, const std::string& robot = "panda") {
  return Json{{"name", name}, {"arguments", std::move(arguments)}, {"target_robot_name", robot}};
}

TEST(LintCandidate, AcceptsAValidCallAndAPlainSay) {
  EXPECT_TRUE(lintCandidate(benchInput(),
                            outputWith("", Json::array({call("press_button", {{"id", "sw1"}})})))
                  .empty());
  EXPECT_TRUE(lintCandidate(benchInput(), outputWith("Done.", Json::array())).empty());
}

TEST(LintCandidate, FlagsSayTogetherWithToolCalls) {
  auto findings =
      lintCandidate(benchInput(), outputWith("Sure", Json::array({call("press_button", {})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kSayWithToolCalls);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/say");
}

TEST(LintCandidate, FlagsAnUndeclaredTool) {
  auto findings = lintCandidate(
      benchInput(), outputWith("", Json::array({call("press_button", {}), call("fly", {})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUndeclaredTool);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/tool_calls/1/name");
}

TEST(LintCandidate, FlagsARobotNotInKnownRobotsOnlyWhenTheListExists) {
  Json output = outputWith("", Json::array({call("press_button", {}, "arm9")}));
  auto findings = lintCandidate(benchInput(), output);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUnknownRobot);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/tool_calls/0/target_robot_name");

  Json no_robots = benchInput();
  no_robots["attributes"] = Json::object();
  EXPECT_TRUE(lintCandidate(no_robots, output).empty());
}

TEST(LintCandidate, FlagsArgumentsTheToolDoesNotDeclare) {
  auto findings = lintCandidate(
      benchInput(),
      outputWith("", Json::array({call("press_button", {{"id", "a"}, {"force", 2}})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUnknownArgument);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/tool_calls/0/arguments/force");
}

TEST(LintCandidate, ReadsParametersBeforeArgumentsAndJsonSchemaProperties) {
  Json input = benchInput();
  input["tools"] = Json::parse(R"([{"name":"move","parameters":{"type":"object",
      "properties":{"to":{"type":"string"}}},"arguments":{"other":{}}}])");
  EXPECT_TRUE(
      lintCandidate(input, outputWith("", Json::array({call("move", {{"to", "x"}})}))).empty());
  auto findings =
      lintCandidate(input, outputWith("", Json::array({call("move", {{"other", "x"}})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUnknownArgument);
}

TEST(LintCandidate, IgnoresErrorCandidates) {
  Json output = outputWith("", Json::array());
  output["status"] = "error";
  output["output"] = nullptr;
  EXPECT_TRUE(lintCandidate(benchInput(), output).empty());
}

std::vector<std::string> rulesOf(const std::vector<LintFinding>& findings) {
  std::vector<std::string> rules;
  for (const auto& f : findings) {
    rules.push_back(f.rule + " " + toJsonPointer(f.path));
  }
  return rules;
}

TEST(LintA2a, AcceptsAWellFormedCall) {
  Json request = Json::parse(R"({"jsonrpc":"2.0","id":7,"method":"message/send","params":{}})");
  Json response = Json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"kind":"task"}})");
  EXPECT_TRUE(lintA2aRequest(request).empty());
  EXPECT_TRUE(lintA2aExchange(request, response).empty());
  Json error = Json::parse(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}})");
  EXPECT_TRUE(lintA2aExchange(request, error).empty());
}

TEST(LintA2a, FlagsRequestEnvelopeErrors) {
  EXPECT_EQ(rulesOf(lintA2aRequest(Json::parse(R"({"jsonrpc":"1.0","id":{},"method":3})"))),
            (std::vector<std::string>{"a2a_jsonrpc_version /jsonrpc", "a2a_method /method",
                                      "a2a_id /id"}));
  EXPECT_EQ(rulesOf(lintA2aRequest(Json::parse(R"([{"jsonrpc":"2.0","method":"a"},[]])"))),
            (std::vector<std::string>{"a2a_envelope /1"}));
}

TEST(LintA2a, FlagsResponseEnvelopeErrors) {
  EXPECT_EQ(rulesOf(lintA2aResponse(Json::parse(R"({"jsonrpc":"2.0","id":1,"result":1,
      "error":{"code":1}})"))),
            (std::vector<std::string>{"a2a_result_or_error "}));
  EXPECT_EQ(rulesOf(lintA2aResponse(Json::parse(R"({"jsonrpc":"2.0","id":[1]})"))),
            (std::vector<std::string>{"a2a_id /id", "a2a_result_or_error "}));
  EXPECT_EQ(rulesOf(lintA2aResponse(
                Json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":"-32600"}})"))),
            (std::vector<std::string>{"a2a_error_code /error/code"}));
  EXPECT_EQ(rulesOf(lintA2aResponse(Json::parse(R"({"jsonrpc":"2.0","result":{}})"))),
            (std::vector<std::string>{"a2a_id /id"}));
}

TEST(LintA2a, FlagsAResponseIdOfAnotherValueOrType) {
  Json request = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tasks/get"})");
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, Json::parse(R"({"jsonrpc":"2.0","id":"1","result":{}})"))),
      (std::vector<std::string>{"a2a_id_mismatch /id"}));
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, Json::parse(R"({"jsonrpc":"2.0","id":2,"result":{}})"))),
      (std::vector<std::string>{"a2a_id_mismatch /id"}));
  // null answers a request whose id could not be read: not a mismatch.
  EXPECT_TRUE(lintA2aExchange(request,
                              Json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})"))
                  .empty());
}

TEST(LintA2a, MatchesBatchResponsesByIdInAnyOrder) {
  Json request = Json::parse(R"([{"jsonrpc":"2.0","id":1,"method":"a"},
                                 {"jsonrpc":"2.0","id":"b","method":"b"}])");
  EXPECT_TRUE(lintA2aExchange(request, Json::parse(R"([{"jsonrpc":"2.0","id":"b","result":1},
                                                       {"jsonrpc":"2.0","id":1,"result":2}])"))
                  .empty());
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, Json::parse(R"([{"jsonrpc":"2.0","id":3,"result":1}])"))),
      (std::vector<std::string>{"a2a_id_mismatch /0/id"}));
}

// --- A2A v1.0 shapes (a2a-v1.md) ---

Json v10Request(const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}};
}

Json v10Answer(Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", std::move(result)}};
}

Json userMessage() {
  return Json::parse(R"({"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]})");
}

Json completedTask() {
  return Json::parse(R"({"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED",
    "message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"done"}]}},
    "history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}],
    "artifacts":[{"artifactId":"a1","name":"out","parts":[{"text":"done"},{"data":[1,"x"]},
      {"url":"https://example.com/f.pdf","mediaType":"application/pdf","filename":"f.pdf"},
      {"raw":"aGk="}]}]})");
}

/// The one finding of a check, or a failure naming all of them.
LintFinding onlyFinding(const std::vector<LintFinding>& findings) {
  EXPECT_EQ(findings.size(), 1u) << ::testing::PrintToString(rulesOf(findings));
  return findings.empty() ? LintFinding{} : findings[0];
}

TEST(LintA2aV1, AcceptsWellFormedV10Calls) {
  Json send = v10Request("SendMessage",
                         {{"message", userMessage()},
                          {"configuration", {{"historyLength", 0}, {"returnImmediately", true}}}});
  EXPECT_TRUE(lintA2aRequest(send, "1.0").empty());
  EXPECT_TRUE(lintA2aExchange(send, v10Answer({{"task", completedTask()}})).empty());
  EXPECT_TRUE(lintA2aExchange(send, v10Answer(Json::parse(R"({"message":{"messageId":"m2",
      "role":"ROLE_AGENT","parts":[{"data":{"x":1}}]}})")))
                  .empty());

  Json stream = v10Request("SendStreamingMessage", {{"message", userMessage()}});
  EXPECT_TRUE(lintA2aRequest(stream).empty());
  EXPECT_TRUE(lintA2aExchange(stream, v10Answer(Json::parse(R"({"statusUpdate":{"taskId":"t1",
      "contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}})")))
                  .empty());
  EXPECT_TRUE(lintA2aExchange(stream, v10Answer(Json::parse(R"({"artifactUpdate":{"taskId":"t1",
      "contextId":"c1","artifact":{"artifactId":"a","parts":[{"text":"part 1"}]},"append":false,
      "lastChunk":true}})")))
                  .empty());

  for (const char* method : {"GetTask", "CancelTask"}) {
    Json by_id = v10Request(method, {{"id", "t1"}, {"historyLength", 1}});
    EXPECT_TRUE(lintA2aRequest(by_id).empty()) << method;
    EXPECT_TRUE(lintA2aExchange(by_id, v10Answer(completedTask())).empty()) << method;
  }
  EXPECT_TRUE(lintA2aRequest(v10Request("SubscribeToTask", {{"id", "t1"}})).empty());

  Json list = v10Request("ListTasks", {{"pageSize", 100}, {"status", "TASK_STATE_WORKING"}});
  EXPECT_TRUE(lintA2aRequest(list).empty());
  EXPECT_TRUE(lintA2aRequest(Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ListTasks"}}).empty());
  EXPECT_TRUE(lintA2aExchange(list, v10Answer({{"tasks", Json::array({completedTask()})},
                                               {"nextPageToken", ""},
                                               {"pageSize", 100},
                                               {"totalSize", 1}}))
                  .empty());
  // Errors carry no result to shape, and v1.0's details.
  EXPECT_TRUE(lintA2aExchange(send, Json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32001,
          "message":"Task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",
          "reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}})"))
                  .empty());
}

TEST(LintA2aV1, AV10ErrorWithoutErrorInfoDetailsIsAFinding) {
  const Json send = v10Request("GetTask", {{"id", "t"}});
  const auto rules = [&](const char* error) {
    return rulesOf(lintA2aExchange(
        send, Json::parse(std::string(R"({"jsonrpc":"2.0","id":1,"error":)") + error + "}")));
  };
  EXPECT_THAT(rules(R"({"code":-32001,"message":"Task not found"})"),
              ElementsAre("a2a_v1_error_details /error/data"));
  EXPECT_THAT(rules(R"({"code":-32009,"message":"no","data":{"supportedVersions":["0.3"]}})"),
              ElementsAre("a2a_v1_error_details /error/data"))
      << "v0.3's object is not v1.0's array";
  EXPECT_THAT(
      rules(R"({"code":-32001,"message":"x","data":[{"reason":"TASK_NOT_FOUND"}]})"),
      ElementsAre("a2a_v1_error_details /error/data/0", "a2a_v1_error_details /error/data"));
  EXPECT_THAT(rules(R"({"code":-32050,"message":"the agent's own"})"), IsEmpty());
  // A v0.3 call's error keeps v0.3's shape.
  const Json v03 =
      Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}})");
  EXPECT_THAT(
      rulesOf(lintA2aExchange(
          v03, Json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}})"))),
      IsEmpty());
}

TEST(LintA2aRest, RestCallsAreCheckedAsTheCallsTheyStandFor) {
  const Json send = Json::parse(R"({"method":"SendMessage","params":{"message":{
      "messageId":"m","role":"user","parts":[{"text":"hi"}]}}})");
  EXPECT_THAT(rulesOf(lintA2aRestRequest(send)), ElementsAre("a2a_v1_role /message/role"))
      << "paths start at the body, the params";
  const Json good = Json::parse(R"({"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}})");
  EXPECT_THAT(rulesOf(lintA2aRestResponse(send, 200, good)), IsEmpty());
  EXPECT_THAT(rulesOf(lintA2aRestResponse(send, 200, Json::parse(R"({"id":"t"})"))),
              ElementsAre("a2a_v1_result "));
  EXPECT_THAT(rulesOf(lintA2aRestResponse(send, 404,
                                          Json::parse(R"({"error":{"code":404,"message":"no"}})"))),
              ElementsAre("a2a_v1_error_details /error/details"));
  EXPECT_THAT(rulesOf(lintA2aRestResponse(send, 404, Json::parse(R"({"error":{"code":404,"details":[
          {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}})"))),
              IsEmpty());
}

TEST(LintA2a, AnEchoedUnknownFieldAV03StateOrAnArtifactWithoutPartsIsAFinding) {
  const Json send = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{
      "message":{"kind":"message","role":"user","messageId":"m","tckUnknownField":"x",
                 "parts":[{"kind":"text","text":"hi"}]}}})");
  const Json answer = Json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t",
      "status":{"state":"TASK_STATE_COMPLETED"},
      "history":[{"kind":"message","role":"user","messageId":"m","tckUnknownField":"x",
                  "parts":[{"kind":"text","text":"hi"}]}],
      "artifacts":[{"artifactId":"a","parts":[]}]}})");
  EXPECT_THAT(
      rulesOf(lintA2aExchange(send, answer)),
      ElementsAre("a2a_task_state /result/status/state", "a2a_artifact /result/artifacts/0/parts",
                  "a2a_echoed_unknown_field /result/history/0/tckUnknownField"));
}

TEST(LintA2aV1, LeavesV03CallsToTheEnvelopeRules) {
  Json request = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{
      "message":{"kind":"message","role":"user","messageId":"m1",
                 "parts":[{"kind":"text","text":"hi"}]}}})");
  Json response = Json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1",
      "contextId":"c1","status":{"state":"completed"}}})");
  EXPECT_TRUE(lintA2aRequest(request).empty());
  EXPECT_TRUE(lintA2aExchange(request, response).empty());
}

TEST(LintA2aV1, FlagsAV03MethodUnderAV10Header) {
  Json request = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{}})");
  LintFinding finding = onlyFinding(lintA2aRequest(request, "1.0"));
  EXPECT_EQ(finding.rule, kA2aV1Method);
  EXPECT_EQ(toJsonPointer(finding.path), "/method");
  EXPECT_NE(finding.message.find("\"SendMessage\""), std::string::npos) << finding.message;
  EXPECT_TRUE(lintA2aRequest(request, "0.3").empty());
  // Both spellings of the push-config listing are v1.0 names.
  for (const char* method : {"ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfig"}) {
    EXPECT_TRUE(lintA2aRequest(v10Request(method, {{"id", "t1"}}), "1.0").empty()) << method;
  }
}

TEST(LintA2aV1, FlagsSendParamsWithoutAMessageObject) {
  EXPECT_EQ(rulesOf(lintA2aRequest(Json::parse(R"({"jsonrpc":"2.0","id":1,
      "method":"SendMessage"})"))),
            (std::vector<std::string>{"a2a_v1_params /params"}));
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendStreamingMessage", {{"message", "hi"}}))),
            (std::vector<std::string>{"a2a_v1_message /params/message"}));
}

TEST(LintA2aV1, FlagsAMessageIdThatIsMissingOrEmpty) {
  Json message = userMessage();
  message["messageId"] = "";
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendMessage", {{"message", message}}))),
            (std::vector<std::string>{"a2a_v1_message_id /params/message/messageId"}));
  message.erase("messageId");
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendMessage", {{"message", message}}))),
            (std::vector<std::string>{"a2a_v1_message_id /params/message/messageId"}));
}

TEST(LintA2aV1, FlagsARoleThatIsNotARoleName) {
  Json message = userMessage();
  message["role"] = "user";
  LintFinding finding =
      onlyFinding(lintA2aRequest(v10Request("SendMessage", {{"message", message}})));
  EXPECT_EQ(finding.rule, kA2aV1Role);
  EXPECT_EQ(toJsonPointer(finding.path), "/params/message/role");
  EXPECT_NE(finding.message.find("\"ROLE_USER\""), std::string::npos) << finding.message;
  message["role"] = "ROLE_UNSPECIFIED";
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendMessage", {{"message", message}}))),
            (std::vector<std::string>{"a2a_v1_role /params/message/role"}));
}

TEST(LintA2aV1, FlagsMissingOrEmptyParts) {
  Json message = userMessage();
  message["parts"] = Json::array();
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendMessage", {{"message", message}}))),
            (std::vector<std::string>{"a2a_v1_parts /params/message/parts"}));
  Json task = completedTask();
  task["artifacts"][0].erase("parts");
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer(task))),
            (std::vector<std::string>{"a2a_v1_parts /result/artifacts/0/parts"}));
}

TEST(LintA2aV1, FlagsAPartWithoutExactlyOneContent) {
  Json message = userMessage();
  message["parts"] = Json::parse(R"([{"text":"a","data":{}},{"mediaType":"text/plain"},
                                     {"url":7},"just text"])");
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendMessage", {{"message", message}}))),
            (std::vector<std::string>{
                "a2a_v1_part /params/message/parts/0", "a2a_v1_part /params/message/parts/1",
                "a2a_v1_part /params/message/parts/2/url", "a2a_v1_part /params/message/parts/3"}));
  // A v0.3 file part carries none of the v1.0 contents.
  message["parts"] = Json::parse(R"([{"file":{"uri":"https://example.com/f"}}])");
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SendMessage", {{"message", message}}))),
            (std::vector<std::string>{"a2a_v1_part /params/message/parts/0"}));
}

TEST(LintA2aV1, FlagsKindMembersInRequestsAndAnswers) {
  Json message = userMessage();
  message["kind"] = "message";
  message["parts"][0]["kind"] = "text";
  Json request = v10Request("SendMessage", {{"message", message}});
  EXPECT_EQ(rulesOf(lintA2aRequest(request)),
            (std::vector<std::string>{"a2a_v1_kind /params/message/kind",
                                      "a2a_v1_kind /params/message/parts/0/kind"}));
  Json task = completedTask();
  task["kind"] = "task";
  task["artifacts"][0]["kind"] = "artifact";
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("SendMessage", {{"message", userMessage()}}),
                                    v10Answer({{"task", task}}))),
            (std::vector<std::string>{"a2a_v1_kind /result/task/kind",
                                      "a2a_v1_kind /result/task/artifacts/0/kind"}));
}

TEST(LintA2aV1, FlagsAMistypedConfiguration) {
  Json request = v10Request(
      "SendMessage", {{"message", userMessage()},
                      {"configuration", {{"historyLength", -1}, {"returnImmediately", "yes"}}}});
  EXPECT_EQ(
      rulesOf(lintA2aRequest(request)),
      (std::vector<std::string>{"a2a_v1_configuration /params/configuration/historyLength",
                                "a2a_v1_configuration /params/configuration/returnImmediately"}));
  request["params"]["configuration"] = Json::array();
  EXPECT_EQ(rulesOf(lintA2aRequest(request)),
            (std::vector<std::string>{"a2a_v1_configuration /params/configuration"}));
}

TEST(LintA2aV1, FlagsATaskIdThatIsNotAString) {
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("GetTask", {{"id", 5}}))),
            (std::vector<std::string>{"a2a_v1_task_id /params/id"}));
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("SubscribeToTask", Json::object()))),
            (std::vector<std::string>{"a2a_v1_task_id /params/id"}));
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("CancelTask", "t1"))),
            (std::vector<std::string>{"a2a_v1_params /params"}));
  Json task = completedTask();
  task["id"] = 1;
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("CancelTask", {{"id", "t1"}}), v10Answer(task))),
            (std::vector<std::string>{"a2a_v1_task_id /result/id"}));
}

TEST(LintA2aV1, FlagsAListTasksPageSizeOutOfRange) {
  for (const Json& size : {Json(0), Json(101), Json("10"), Json(2.5)}) {
    EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("ListTasks", {{"pageSize", size}}))),
              (std::vector<std::string>{"a2a_v1_page_size /params/pageSize"}))
        << size.dump();
  }
  EXPECT_EQ(rulesOf(lintA2aRequest(v10Request("ListTasks", {{"status", "working"}}))),
            (std::vector<std::string>{"a2a_v1_task_state /params/status"}));
}

TEST(LintA2aV1, FlagsV03AndUnknownTaskStatesInV10Answers) {
  Json task = completedTask();
  task["status"]["state"] = "completed";
  LintFinding finding =
      onlyFinding(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer(task)));
  EXPECT_EQ(finding.rule, kA2aV1TaskState);
  EXPECT_EQ(toJsonPointer(finding.path), "/result/status/state");
  EXPECT_NE(finding.message.find("\"TASK_STATE_COMPLETED\""), std::string::npos) << finding.message;

  task["status"]["state"] = "input-required";
  finding = onlyFinding(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer(task)));
  EXPECT_NE(finding.message.find("\"TASK_STATE_INPUT_REQUIRED\""), std::string::npos)
      << finding.message;

  task["status"]["state"] = "TASK_STATE_UNSPECIFIED";
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer(task))),
            (std::vector<std::string>{"a2a_v1_task_state /result/status/state"}));
  task.erase("status");
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer(task))),
            (std::vector<std::string>{"a2a_v1_task_state /result/status"}));
  Json stream = v10Request("SubscribeToTask", {{"id", "t1"}});
  EXPECT_EQ(rulesOf(lintA2aExchange(stream, v10Answer(Json::parse(R"({"statusUpdate":{
      "taskId":"t1","status":{"state":"failed"}}})")))),
            (std::vector<std::string>{"a2a_v1_task_state /result/statusUpdate/status/state"}));
}

TEST(LintA2aV1, FlagsArtifactsThatAreNotObjects) {
  Json task = completedTask();
  task["artifacts"] = Json::array({"a1"});
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer(task))),
            (std::vector<std::string>{"a2a_v1_artifact /result/artifacts/0"}));
  Json stream = v10Request("SendStreamingMessage", {{"message", userMessage()}});
  EXPECT_EQ(rulesOf(lintA2aExchange(stream, v10Answer({{"artifactUpdate", {{"taskId", "t1"}}}}))),
            (std::vector<std::string>{"a2a_v1_artifact /result/artifactUpdate/artifact"}));
}

TEST(LintA2aV1, FlagsResultsNotShapedForTheirMethod) {
  Json send = v10Request("SendMessage", {{"message", userMessage()}});
  // A bare v0.3-style Task: not wrapped, and discriminated by kind.
  Json bare = completedTask();
  bare["kind"] = "task";
  auto findings = lintA2aExchange(send, v10Answer(bare));
  EXPECT_EQ(rulesOf(findings),
            (std::vector<std::string>{"a2a_v1_result /result", "a2a_v1_kind /result/kind"}));
  ASSERT_FALSE(findings.empty());
  EXPECT_NE(findings[0].message.find("{\"task\": ...} or {\"message\": ...}"), std::string::npos)
      << findings[0].message;
  EXPECT_EQ(rulesOf(lintA2aExchange(
                send, v10Answer({{"task", completedTask()}, {"message", userMessage()}}))),
            (std::vector<std::string>{"a2a_v1_result /result"}));
  // statusUpdate is a stream event, not a SendMessage result.
  EXPECT_EQ(rulesOf(lintA2aExchange(send, v10Answer({{"statusUpdate", Json::object()}}))),
            (std::vector<std::string>{"a2a_v1_result /result"}));
  EXPECT_EQ(rulesOf(lintA2aExchange(v10Request("GetTask", {{"id", "t1"}}), v10Answer("t1"))),
            (std::vector<std::string>{"a2a_v1_result /result"}));
  Json list = v10Request("ListTasks", Json::object());
  EXPECT_EQ(rulesOf(lintA2aExchange(list, v10Answer({{"tasks", {{"id", "t1"}}}}))),
            (std::vector<std::string>{"a2a_v1_result /result/tasks"}));
  EXPECT_EQ(
      rulesOf(lintA2aExchange(list, v10Answer({{"tasks", Json::array({completedTask(), 3})}}))),
      (std::vector<std::string>{"a2a_v1_result /result/tasks/1"}));
}

TEST(LintA2aV1, ChecksEachBatchAnswerAgainstTheRequestWithItsId) {
  Json request = Json::array({v10Request("GetTask", {{"id", "t1"}}),
                              v10Request("SendMessage", {{"message", userMessage()}})});
  request[1]["id"] = "s";
  Json response = Json::array({v10Answer({{"task", completedTask()}}), v10Answer(completedTask())});
  response[0]["id"] = "s";
  EXPECT_TRUE(lintA2aExchange(request, response).empty());
  // Swapped: the GetTask answer is a wrapped Task, the SendMessage answer a bare one.
  response[0]["id"] = 1;
  response[1]["id"] = "s";
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, response)),
      (std::vector<std::string>{"a2a_v1_task_id /0/result/id", "a2a_v1_task_state /0/result/status",
                                "a2a_v1_result /1/result"}));
}

}  // namespace
}  // namespace agentvcr::protocol::lint
