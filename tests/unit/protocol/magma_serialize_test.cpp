#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "magma_bodies.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol::magma {
namespace {

using test::json;
using test::kCompleted;
using test::kErrorCandidate;
using test::kFullHistoryInfo;
using test::kGptAgentInfo;
using test::summary;

// A GEN candidate whose decision is one tool call.
constexpr const char* kAction =
    R"([{"request_id":"gen-0007","source_id":41,"candidate_index":0,"status":"completed","memory":{"history":[]},"internal_steps":[],"output":{"say":"","tool_calls":[{"name":"get_objects_state","arguments":{},"target_robot_name":"arm1"}]},"error":null}])";

std::string roundTripResponse(const char* body) {
  auto parsed = parseAgentResponse(json(body));
  EXPECT_TRUE(parsed.ok()) << summary(parsed.findings);
  return serializeResponse(parsed.value.value_or(AgentResponse{}));
}

TEST(SerializeResponse, CompletedOutputIsByteIdenticalToFastApi) {
  EXPECT_EQ(roundTripResponse(kCompleted), kCompleted);
}

TEST(SerializeResponse, ErrorOutputIsByteIdenticalToFastApi) {
  EXPECT_EQ(roundTripResponse(kErrorCandidate), kErrorCandidate);
}

TEST(SerializeResponse, ActionOutputIsByteIdenticalToFastApi) {
  EXPECT_EQ(roundTripResponse(kAction), kAction);
}

TEST(SerializeResponse, EmptyResponse) {
  EXPECT_EQ(serializeResponse({}), "[]");
}

TEST(SerializeResponse, SeveralOutputsInOrder) {
  AgentResponse response = parseAgentResponse(json(kCompleted)).value.value();
  response.push_back(response[0]);
  response[1].candidate_index = 1;
  std::string single(kCompleted);
  std::string inner = single.substr(1, single.size() - 2);
  std::string second = inner;
  second.replace(second.find("\"candidate_index\":0"), 19, "\"candidate_index\":1");
  EXPECT_EQ(serializeResponse(response), "[" + inner + "," + second + "]");
}

TEST(SerializeOutput, EmitsNullsAndDefaults) {
  AgentOutput output;
  output.request_id = "r";
  output.source_id = 1;
  output.status = OutputStatus::Error;
  output.error = AgentError{"invalid_output", "bad", std::nullopt};
  EXPECT_EQ(serializeOutput(output),
            R"({"request_id":"r","source_id":1,"candidate_index":0,"status":"error","memory":{},)"
            R"("internal_steps":[],"output":null,)"
            R"("error":{"code":"invalid_output","message":"bad","component":null}})");
}

TEST(SerializeOutput, WritesRawUtf8AndPythonNumbers) {
  AgentOutput output;
  output.request_id = "r";
  output.output = AgentDecision{"caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\"\n", {}};
  output.memory = json(R"({"z": 1e16, "a": 1.0, "m": 1e15})");
  EXPECT_EQ(serializeOutput(output),
            "{\"request_id\":\"r\",\"source_id\":0,\"candidate_index\":0,\"status\":\"completed\","
            "\"memory\":{\"a\":1.0,\"m\":1000000000000000.0,\"z\":1e+16},\"internal_steps\":[],"
            "\"output\":{\"say\":\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\\"q\\\"\\n\",\"tool_calls\":[]},"
            "\"error\":null}");
}

TEST(SerializeOutput, ToolCallFieldOrder) {
  AgentOutput output;
  output.request_id = "r";
  ToolCall call;
  call.target_robot_name = "panda";
  call.name = "press_button";
  call.arguments = {{"id", "sw1"}};
  output.output = AgentDecision{"", {call}};
  std::string text = serializeOutput(output);
  EXPECT_NE(
      text.find(R"({"name":"press_button","arguments":{"id":"sw1"},"target_robot_name":"panda"})"),
      std::string::npos)
      << text;
}

TEST(SerializeInfo, FullHistoryInfoIsByteIdentical) {
  auto parsed = parseAgentInfo(json(kFullHistoryInfo));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(serializeInfo(*parsed.value), kFullHistoryInfo);
}

TEST(SerializeInfo, GptAgentInfoIsByteIdentical) {
  auto parsed = parseAgentInfo(json(kGptAgentInfo));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(serializeInfo(*parsed.value), kGptAgentInfo);
}

TEST(SerializeInfo, DefaultsAndBothCoachingNulls) {
  AgentInfo info;
  info.agent_id = "agentvcr-mock";
  info.agent_version = "0.1.0";
  info.capabilities = {{"coaching", false}, {"inference", true}, {"batch", true}};
  EXPECT_EQ(serializeInfo(info),
            R"({"protocol_version":"2.0","agent_id":"agentvcr-mock","agent_version":"0.1.0",)"
            R"("specialized_coaching":[],"coaching_resume":false,"coaching_session_version":null,)"
            R"("coaching_unavailable_reason":null,)"
            R"("capabilities":{"inference":true,"batch":true,"coaching":false}})");
}

TEST(SerializeHealth, Ready) {
  EXPECT_EQ(serializeHealth({}), R"({"status":"ready"})");
}

TEST(ToJson, InputHasAllFields) {
  AgentInput input;
  input.id = 7;
  input.instruction = {InstructionType::Env, "{}"};
  EXPECT_EQ(toJson(input), json(R"({"id": 7, "instruction": {"type": "env", "content": "{}"},
      "tools": [], "attributes": {}, "memory": {}, "num_outputs": 1, "extra_keys": {}})"));
}

TEST(ToJson, InputRoundTripsThroughTheParser) {
  Json body = json(R"({"id": 41, "instruction": {"type": "user", "content": "Go"},
      "tools": [{"name": "deplace"}], "attributes": {"zones": ["left_zone"]},
      "memory": {"history": []}, "num_outputs": 2, "extra_keys": {"inference_mode": false}})");
  auto parsed = parseAgentInput(body);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(toJson(*parsed.value), body);
}

TEST(ToJson, DecisionAndOutput) {
  AgentDecision decision{"Hi", {}};
  EXPECT_EQ(toJson(decision), json(R"({"say": "Hi", "tool_calls": []})"));
  auto parsed = parseAgentResponse(json(kErrorCandidate));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(toJson((*parsed.value)[0]), json(kErrorCandidate)[0]);
}

}  // namespace
}  // namespace agentvcr::protocol::magma
