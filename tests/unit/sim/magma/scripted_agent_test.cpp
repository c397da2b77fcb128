#include "agentvcr/sim/magma/scripted_agent.hpp"

#include <gtest/gtest.h>

#include "agentvcr/protocol/python_json.hpp"
#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using protocol::Json;
namespace magma = protocol::magma;

ScriptedAgent demoAgent() {
  ScriptedAgent::Load load =
      ScriptedAgent::fromText(testing::readFixture("demo/agent-script.json"));
  EXPECT_TRUE(load.agent) << load.error;
  return load.agent ? std::move(*load.agent) : ScriptedAgent(Script{});
}

/// A BENCH-formatted request body (Python json.dumps spacing) for the given inputs.
std::string requestBody(const std::string& request_id,
                        const std::vector<magma::AgentInput>& inputs) {
  nlohmann::ordered_json request = nlohmann::ordered_json::object();
  request["request_id"] = request_id;
  request["inputs"] = nlohmann::ordered_json::array();
  for (const magma::AgentInput& input : inputs) {
    nlohmann::ordered_json item = nlohmann::ordered_json::object();
    item["id"] = input.id;
    item["instruction"] = {
        {"type", input.instruction.type == magma::InstructionType::User ? "user" : "env"},
        {"content", input.instruction.content}};
    item["tools"] = input.tools;
    item["attributes"] = input.attributes;
    item["memory"] = input.memory;
    item["num_outputs"] = input.num_outputs;
    item["extra_keys"] = input.extra_keys;
    request["inputs"].push_back(std::move(item));
  }
  return protocol::pythonJsonDumps(request, protocol::kPythonDefaultStyle);
}

Json reply(const protocol::HttpReply& http) {
  EXPECT_EQ(http.content_type, "application/json");
  return testing::parse(http.body);
}

TEST(ScriptedAgent, HealthAndInfo) {
  const ScriptedAgent agent = demoAgent();
  EXPECT_EQ(agent.health(),
            (protocol::HttpReply{200, "application/json", {}, R"({"status":"ready"})", {}}));
  const protocol::HttpReply info = agent.info();
  EXPECT_EQ(info.status, 200);
  EXPECT_EQ(
      info.body,
      R"({"protocol_version":"2.0","agent_id":"agentvcr-scripted-demo","agent_version":"1.0.0",)"
      R"("specialized_coaching":[],"coaching_resume":false,"coaching_session_version":null,)"
      R"("coaching_unavailable_reason":"Coaching is not available in the scripted agent",)"
      R"("capabilities":{"inference":true,"coaching":false}})");
  EXPECT_TRUE(magma::parseAgentInfo(testing::parse(info.body)).ok());
}

TEST(ScriptedAgent, EpisodeA1ToolCallAndMemory) {
  const ScriptedAgent agent = demoAgent();
  const std::string id = "9c1e4f0a2b7d4c0e8f3a6b5d1e2c7f90";
  const protocol::HttpReply http =
      agent.respond(requestBody(id, {testing::userInput("Please press sw1")}));
  ASSERT_EQ(http.status, 200) << http.body;
  const Json body = reply(http);
  ASSERT_EQ(body.size(), 1u);
  const Json& out = body[0];
  EXPECT_EQ(out["request_id"], id);
  EXPECT_EQ(out["status"], "completed");
  EXPECT_EQ(out["memory"],
            testing::parse(R"({"history":[{"author":"USER","content":"Please press sw1"},
    {"author":"MODEL","content":"{\"say\": \"\", \"action\": {\"panda\": {\"name\": \"press_button\", \"arguments\": {\"id\": \"sw1\"}}}}"}]})"));
  EXPECT_NE(
      http.body.find(
          R"("output":{"say":"","tool_calls":[{"name":"press_button","arguments":{"id":"sw1"},"target_robot_name":"panda"}]},"error":null})"),
      std::string::npos);
  // Model order and a bare array, like FastAPI.
  EXPECT_EQ(
      http.body.rfind(
          R"([{"request_id":"9c1e4f0a2b7d4c0e8f3a6b5d1e2c7f90","source_id":0,"candidate_index":0,"status":"completed","memory":)",
          0),
      0u);
}

TEST(ScriptedAgent, InternalStepIsInternalStepShaped) {
  const ScriptedAgent agent = demoAgent();
  const Json body =
      reply(agent.respond(requestBody("r", {testing::userInput("Please press sw1")})));
  const Json& steps = body[0]["internal_steps"];
  ASSERT_EQ(steps.size(), 1u);
  const Json& step = steps[0];
  EXPECT_EQ(step["id"], "step-0");
  EXPECT_EQ(step["component"], "scripted");
  EXPECT_EQ(step["origin"], "model");
  EXPECT_EQ(step["full_prompt"], "user: Please press sw1\nassistant:");
  EXPECT_EQ(step["output_raw"], body[0]["memory"]["history"][1]["content"]);
  EXPECT_EQ(step["input_elements"]["rule"], "press-named-button");
  EXPECT_EQ(step["input_elements"]["tools"], (Json{"cancel_current_action", "press_button"}));
  EXPECT_EQ(step.size(), 6u);
}

TEST(ScriptedAgent, MemoryEvolvesOverAnEpisode) {
  const ScriptedAgent agent = demoAgent();
  const Json first =
      reply(agent.respond(requestBody("r1", {testing::userInput("Please press sw1")})));
  magma::AgentInput env = testing::envInput(
      R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
  env.memory = first[0]["memory"];
  const Json second = reply(agent.respond(requestBody("r2", {env})));
  EXPECT_EQ(second[0]["output"],
            (Json{{"say", "Done, sw1 is pressed."}, {"tool_calls", Json::array()}}));
  const Json& history = second[0]["memory"]["history"];
  ASSERT_EQ(history.size(), 4u);
  EXPECT_EQ(history[2], (Json{{"author", "SYSTEM"}, {"content", env.instruction.content}}));
  EXPECT_EQ(history[3], (Json{{"author", "MODEL"},
                              {"content", R"({"say": "Done, sw1 is pressed.", "action": {}})"}}));
  EXPECT_EQ(second[0]["internal_steps"][0]["full_prompt"],
            "user: Please press sw1\nassistant: " + history[1]["content"].get<std::string>() +
                "\nenv: " + env.instruction.content + "\nassistant:");
}

TEST(ScriptedAgent, MemoryListIsKept) {
  const ScriptedAgent agent = demoAgent();
  magma::AgentInput input = testing::userInput("Please press sw2");
  input.memory = testing::parse(
      R"({"memory_list": ["Each time you are asked to press a button, press sw0 first"], "history": []})");
  const Json body = reply(agent.respond(requestBody("r", {input})));
  EXPECT_EQ(body[0]["memory"]["memory_list"], input.memory["memory_list"]);
  EXPECT_EQ(body[0]["output"]["tool_calls"].size(), 2u);  // the rule applies: sw0 first
}

TEST(ScriptedAgent, ErrorCandidateKeepsInputMemory) {
  const ScriptedAgent agent = demoAgent();
  magma::AgentInput input = testing::userInput("Please self-destruct");
  input.memory =
      testing::parse(R"({"history": [{"author": "USER", "content": "earlier"}], "x": 1})");
  const protocol::HttpReply http = agent.respond(requestBody("r", {input}));
  ASSERT_EQ(http.status, 200);
  const Json body = reply(http);
  EXPECT_EQ(body[0]["status"], "error");
  EXPECT_EQ(body[0]["memory"], input.memory);
  EXPECT_TRUE(body[0]["output"].is_null());
  EXPECT_EQ(
      body[0]["error"],
      testing::parse(
          R"({"code":"invalid_output","message":"Model parser rejected its raw response","component":"scripted"})"));
  EXPECT_EQ(body[0]["internal_steps"][0]["output_raw"], "I will press <tool_call>{bad json");
  EXPECT_NE(
      http.body.find(
          R"("output":null,"error":{"code":"invalid_output","message":"Model parser rejected its raw response","component":"scripted"}}])"),
      std::string::npos);
}

TEST(ScriptedAgent, CandidateOrderFollowsTheRequest) {
  const ScriptedAgent agent = demoAgent();
  magma::AgentInput seven = testing::makeInput(7, magma::InstructionType::User, "Please press sw1",
                                               {{"history", Json::array()}}, 2);
  magma::AgentInput three = testing::makeInput(3, magma::InstructionType::User, "Please press sw2");
  const std::string body = requestBody("demo", {seven, three});
  const protocol::HttpReply http = agent.respond(body);
  ASSERT_EQ(http.status, 200) << http.body;
  const Json out = reply(http);
  ASSERT_EQ(out.size(), 3u);
  const std::vector<std::pair<int, int>> expected = {{7, 0}, {7, 1}, {3, 0}};
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i]["request_id"], "demo");
    EXPECT_EQ(out[i]["source_id"], expected[i].first);
    EXPECT_EQ(out[i]["candidate_index"], expected[i].second);
  }
  const auto request = magma::parseAgentRequest(testing::parse(body));
  ASSERT_TRUE(request.ok());
  EXPECT_TRUE(magma::parseAgentResponse(out, &*request.value).ok());
}

TEST(ScriptedAgent, EmptyBatchGivesAnEmptyArray) {
  const protocol::HttpReply http = demoAgent().respond(R"({"request_id": "r", "inputs": []})");
  EXPECT_EQ(http.status, 200);
  EXPECT_EQ(http.body, "[]");
}

TEST(ScriptedAgent, GenLikeInputGetsDistinctCandidatesWithDistinctMemories) {
  const ScriptedAgent agent = demoAgent();
  magma::AgentInput input = testing::makeInput(
      41, magma::InstructionType::User, "Please move every damaged fruit to the mutual zone.",
      testing::parse(R"({"memory_list": ["Only arm1 can inspect objects."], "history": []})"), 2);
  input.tools = testing::parse(R"([{"name": "cancel_current_action", "arguments": {}},
    {"name": "get_objects_state", "arguments": {}}, {"name": "deplace", "arguments": {}}])");
  input.attributes = testing::parse(R"({"zones": ["left_zone", "mutual_zone", "right_zone"],
    "objects": ["apple_0", "banana_1", "orange_2"], "known_robots": ["arm1", "arm2"]})");
  input.extra_keys = Json{{"inference_mode", false}};
  const Json out = reply(agent.respond(requestBody("gen-0007", {input})));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["output"]["tool_calls"],
            testing::parse(
                R"([{"name":"get_objects_state","arguments":{},"target_robot_name":"arm1"}])"));
  EXPECT_EQ(
      out[1]["output"]["tool_calls"],
      testing::parse(
          R"([{"name":"deplace","arguments":{"object":"banana_1","target_area":"mutual_zone"},"target_robot_name":"arm1"}])"));
  EXPECT_NE(out[0]["memory"], out[1]["memory"]);
  EXPECT_EQ(out[1]["internal_steps"][0]["input_elements"]["alternative"], 1);
}

TEST(ScriptedAgent, SameRequestSameBytes) {
  const std::string body = requestBody(
      "r", {testing::makeInput(1, magma::InstructionType::User, "Please press sw4",
                               {{"history", Json::array()}}, 3),
            testing::makeInput(2, magma::InstructionType::User,
                               "Each time you are asked to press a button, press sw0 first")});
  const protocol::HttpReply first = demoAgent().respond(body);
  const protocol::HttpReply second = demoAgent().respond(body);
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first, second);
  EXPECT_EQ(demoAgent().respond(body), first);
}

TEST(ScriptedAgent, InvalidJsonIs422JsonInvalid) {
  const protocol::HttpReply http = demoAgent().respond("{\"request_id\": ");
  EXPECT_EQ(http.status, 422);
  const Json body = reply(http);
  ASSERT_EQ(body["detail"].size(), 1u);
  const Json& item = body["detail"][0];
  EXPECT_EQ(item["type"], "json_invalid");
  EXPECT_EQ(item["loc"][0], "body");
  EXPECT_TRUE(item["loc"][1].is_number_unsigned());
  EXPECT_EQ(item["msg"], "JSON decode error");
  EXPECT_EQ(item["input"], Json::object());
  EXPECT_TRUE(item["ctx"]["error"].is_string());
  EXPECT_EQ(http.body.rfind(R"({"detail":[{"type":"json_invalid","loc":["body",)", 0), 0u);
  EXPECT_EQ(demoAgent().respond("[NaN]").status, 422);
}

TEST(ScriptedAgent, EmptyBodyIs422Missing) {
  const protocol::HttpReply http = demoAgent().respond("");
  EXPECT_EQ(http.status, 422);
  EXPECT_EQ(
      http.body,
      R"({"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]})");
}

TEST(ScriptedAgent, InvalidRequestIs422WithFastApiDetail) {
  const protocol::HttpReply http = demoAgent().respond(R"({"inputs": [], "extra": 1})");
  EXPECT_EQ(http.status, 422);
  const Json body = reply(http);
  ASSERT_TRUE(body["detail"].is_array());
  ASSERT_FALSE(body["detail"].empty());
  bool saw_missing = false;
  for (const Json& item : body["detail"]) {
    EXPECT_EQ(item.size(), 4u);
    EXPECT_EQ(item["loc"][0], "body");
    EXPECT_TRUE(item["msg"].is_string());
    EXPECT_TRUE(item.contains("input"));
    saw_missing =
        saw_missing || (item["type"] == "missing" && item["loc"] == Json{"body", "request_id"});
  }
  EXPECT_TRUE(saw_missing) << http.body;
  EXPECT_EQ(http.body.rfind(R"({"detail":[{"type":)", 0), 0u);
}

TEST(ScriptedAgent, WrongTypesDeepInsideAre422WithTheirPath) {
  const protocol::HttpReply http = demoAgent().respond(
      R"({"request_id": "r", "inputs": [{"id": "7", "instruction": {"type": "user", "content": "x"}}]})");
  EXPECT_EQ(http.status, 422);
  const Json body = reply(http);
  EXPECT_EQ(body["detail"][0]["loc"], (Json{"body", "inputs", 0, "id"}));
  EXPECT_EQ(body["detail"][0]["input"], "7");
}

TEST(ScriptedAgent, FullHistoryMemoryChecksAre422WithAStringDetail) {
  magma::AgentInput input = testing::userInput("x");
  input.memory = testing::parse(R"({"history": "oops"})");
  const protocol::HttpReply http = demoAgent().respond(requestBody("r", {input}));
  EXPECT_EQ(http.status, 422);
  EXPECT_EQ(http.body, R"({"detail":"inputs[0].memory.history must be a list of objects"})");
}

TEST(ScriptedAgent, TooManyCandidatesIs422) {
  const magma::AgentInput input =
      testing::makeInput(0, magma::InstructionType::User, "x", {{"history", Json::array()}},
                         kMaxCandidatesPerRequest + 1);
  const protocol::HttpReply http = demoAgent().respond(requestBody("r", {input}));
  EXPECT_EQ(http.status, 422);
  EXPECT_EQ(http.body, R"({"detail":"A request may ask for at most 1024 candidates in total"})");
}

TEST(ScriptedAgent, ScriptErrorsAreValues) {
  const ScriptedAgent::Load load = ScriptedAgent::fromText(R"({"rules": 3})");
  EXPECT_FALSE(load.agent);
  EXPECT_EQ(load.error, "/rules: expected a list");
}

TEST(ScriptedAgent, CoachingPayloadsWhenEnabled) {
  ScriptedAgent::Load load =
      ScriptedAgent::fromText(R"({"coaching_payloads": true, "default": {"say": "model"}})");
  ASSERT_TRUE(load.agent);
  magma::AgentInput input = testing::userInput("x");
  input.extra_keys["coaching"] =
      testing::parse(R"({"kind": "replace_decision", "decision": {"say": "",
    "tool_calls": [{"name": "press_button", "arguments": {"id": "sw2"}, "target_robot_name": "panda"}]}})");
  Json out = reply(load.agent->respond(requestBody("r", {input})));
  EXPECT_EQ(out[0]["internal_steps"][0]["origin"], "coaching");
  EXPECT_EQ(out[0]["output"]["tool_calls"][0]["arguments"]["id"], "sw2");

  input.extra_keys["coaching"] = testing::parse(R"({"kind": "replace_say", "text": "Coached."})");
  out = reply(load.agent->respond(requestBody("r", {input})));
  EXPECT_EQ(out[0]["output"]["say"], "Coached.");

  input.extra_keys["coaching"] = testing::parse(R"({"kind": "replace_say", "text": ""})");
  out = reply(load.agent->respond(requestBody("r", {input})));
  EXPECT_EQ(out[0]["status"], "error");
  EXPECT_EQ(out[0]["error"]["code"], "invalid_output");

  // Off by default: the payload is ignored and the script decides.
  out = reply(demoAgent().respond(requestBody("r", {input})));
  EXPECT_EQ(out[0]["status"], "completed");
  EXPECT_EQ(out[0]["internal_steps"][0]["origin"], "model");
}

}  // namespace
}  // namespace agentvcr::sim::magma
