#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol::magma {
namespace {

using test::json;
using test::summary;

// magma-protocol.md §5.2, as BENCH formats it.
constexpr const char* kMinimalRequest = R"({"request_id": "demo", "inputs": [{"id": 7,
  "instruction": {"type": "user", "content": "Say hello."},
  "tools": [], "attributes": {}, "memory": {}, "num_outputs": 1, "extra_keys": {}}]})";

// §19 Episode A1.
constexpr const char* kEpisodeA1Request =
    R"({"request_id": "9c1e4f0a2b7d4c0e8f3a6b5d1e2c7f90", "inputs": [{"id": 0,
  "instruction": {"type": "user", "content": "Please press sw1"},
  "tools": [{"name": "cancel_current_action", "description": "Cancel the current action running on the targeted robot.", "arguments": {}},
            {"name": "press_button", "description": "Press a button.", "arguments": {"id": {"description": "Name of the button to press.", "type": "str"}}}],
  "attributes": {"objects": ["sw0", "sw1", "sw2", "sw3", "sw4"], "known_robots": ["panda"], "robot_statuses": {"panda": "FREE"}},
  "memory": {"history": []}, "num_outputs": 1, "extra_keys": {"inference_mode": true}}]})";

Json minimal() {
  return json(kMinimalRequest);
}

/// Findings of the minimal request after `edit`.
template <class Edit>
std::string agentRequestFindingsAfter(Edit edit) {
  Json body = minimal();
  edit(body);
  auto parsed = parseAgentRequest(body);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

Json& input0(Json& body) {
  return body["inputs"][0];
}

TEST(AgentRequest, MinimalExchangeParses) {
  auto parsed = parseAgentRequest(minimal());
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const AgentRequest& request = *parsed.value;
  EXPECT_EQ(request.request_id, "demo");
  ASSERT_EQ(request.inputs.size(), 1U);
  EXPECT_EQ(request.inputs[0].id, 7);
  EXPECT_EQ(request.inputs[0].instruction.type, InstructionType::User);
  EXPECT_EQ(request.inputs[0].instruction.content, "Say hello.");
  EXPECT_EQ(request.inputs[0].num_outputs, 1);
}

TEST(AgentRequest, EpisodeA1Parses) {
  auto parsed = parseAgentRequest(json(kEpisodeA1Request));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const AgentInput& input = parsed.value->inputs[0];
  EXPECT_EQ(input.tools.size(), 2U);
  EXPECT_EQ(input.tools[1]["arguments"]["id"]["type"], "str");
  EXPECT_EQ(input.attributes["known_robots"][0], "panda");
  EXPECT_EQ(input.memory, json(R"({"history": []})"));
  EXPECT_EQ(input.extra_keys, json(R"({"inference_mode": true})"));
}

TEST(AgentRequest, EnvInstructionParses) {
  auto parsed = parseAgentRequest(json(R"({"request_id": "4d7b", "inputs": [{"id": 0,
    "instruction": {"type": "env", "content": "{\"infos\": \"panda: press_button succeed with message: You have the sw1 button pressed.\"}"}}]})"));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ(parsed.value->inputs[0].instruction.type, InstructionType::Env);
}

TEST(AgentRequest, DefaultsApplyToOmittedFields) {
  auto parsed = parseAgentRequest(json(
      R"({"request_id": "r", "inputs": [{"id": 1, "instruction": {"type": "user", "content": ""}}]})"));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const AgentInput& input = parsed.value->inputs[0];
  EXPECT_EQ(input.tools, Json::array());
  EXPECT_EQ(input.attributes, Json::object());
  EXPECT_EQ(input.memory, Json::object());
  EXPECT_EQ(input.num_outputs, 1);
  EXPECT_EQ(input.extra_keys, Json::object());
  EXPECT_EQ(input.instruction.content, "");
}

TEST(AgentRequest, EmptyInputsAreValid) {
  auto parsed = parseAgentRequest(json(R"({"request_id": "r", "inputs": []})"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed.value->inputs.empty());
}

TEST(AgentRequest, BodyMustBeAnObject) {
  auto parsed = parseAgentRequest(json("[]"));
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(summary(parsed.findings), "model_type []");
  EXPECT_EQ(parsed.findings[0].msg, "Input should be an object");
}

// --- request_id ---

TEST(AgentRequest, RequestIdRequired) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b.erase("request_id"); }),
            R"(missing ["request_id"])");
}

TEST(AgentRequest, RequestIdNonEmpty) {
  auto parsed = parseAgentRequest(json(R"({"request_id": "", "inputs": []})"));
  EXPECT_EQ(summary(parsed.findings), R"(string_too_short ["request_id"])");
  EXPECT_EQ(parsed.findings[0].msg, "String should have at least 1 character");
  EXPECT_EQ(parsed.findings[0].input, "");
}

TEST(AgentRequest, RequestIdStrictString) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b["request_id"] = 7; }),
            R"(string_type ["request_id"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b["request_id"] = nullptr; }),
            R"(string_type ["request_id"])");
}

// --- inputs ---

TEST(AgentRequest, InputsRequired) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b.erase("inputs"); }), R"(missing ["inputs"])");
}

TEST(AgentRequest, InputsMustBeAList) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b["inputs"] = Json::object(); }),
            R"(list_type ["inputs"])");
}

TEST(AgentRequest, InputMustBeAnObject) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b["inputs"].push_back(3); }),
            R"(model_type ["inputs",1])");
}

TEST(AgentRequest, UnknownKeysAreRejectedAtEveryLevel) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b["outputs"] = 1; }),
            R"(extra_forbidden ["outputs"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["session"] = "s"; }),
            R"(extra_forbidden ["inputs",0,"session"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"]["role"] = "user"; }),
            R"(extra_forbidden ["inputs",0,"instruction","role"])");
}

TEST(AgentRequest, ExtraKeyFindingCarriesItsValueAndMessage) {
  Json body = minimal();
  body["x"] = {{"y", 1}};
  auto parsed = parseAgentRequest(body);
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg, "Extra inputs are not permitted");
  EXPECT_EQ(parsed.findings[0].input, json(R"({"y": 1})"));
}

TEST(AgentRequest, UnknownKeysInsideFreeObjectsAreFine) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) {
              input0(b)["tools"] = json(R"([{"anything": {"goes": [1, null]}}])");
              input0(b)["attributes"]["whatever"] = {1, 2};
              input0(b)["memory"]["_agentvcr"] = {{"v", 1}};
              input0(b)["extra_keys"]["coaching"] = {{"kind", "replace_say"}};
            }),
            "");
}

// --- id ---

TEST(AgentInputId, Required) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b).erase("id"); }),
            R"(missing ["inputs",0,"id"])");
}

TEST(AgentInputId, StrictInteger) {
  for (const char* bad : {"7.0", "\"7\"", "true", "1e1", "null", "[7]"}) {
    EXPECT_EQ(agentRequestFindingsAfter([&](Json& b) { input0(b)["id"] = json(bad); }),
              R"(int_type ["inputs",0,"id"])")
        << bad;
  }
}

TEST(AgentInputId, AnyInt64IsAccepted) {
  for (const char* good : {"0", "-3", "9223372036854775807", "-9223372036854775808"}) {
    EXPECT_EQ(agentRequestFindingsAfter([&](Json& b) { input0(b)["id"] = json(good); }), "")
        << good;
  }
}

// Documented: Python accepts integers of any size; ids outside int64 are rejected.
TEST(AgentInputId, IntegersOutsideInt64AreRejected) {
  for (const char* big : {"9223372036854775808", "18446744073709551615",
                          "123456789012345678901234567890", "-9223372036854775809"}) {
    EXPECT_EQ(agentRequestFindingsAfter([&](Json& b) { input0(b)["id"] = json(big); }),
              R"(int_type ["inputs",0,"id"])")
        << big;
  }
}

TEST(AgentInputId, UniqueWithinARequest) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { b["inputs"].push_back(input0(b)); }),
            R"(value_error ["inputs",1,"id"])");
  Json body = minimal();
  body["inputs"].push_back(input0(body));
  body["inputs"].push_back(input0(body));
  auto parsed = parseAgentRequest(body);
  EXPECT_EQ(summary(parsed.findings),
            R"(value_error ["inputs",1,"id"]; value_error ["inputs",2,"id"])");
  EXPECT_EQ(parsed.findings[0].msg, "Value error, Input ids must be unique within a request");
}

TEST(AgentInputId, DistinctIdsPass) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) {
              Json second = input0(b);
              second["id"] = 3;
              b["inputs"].push_back(second);
            }),
            "");
}

// --- instruction ---

TEST(AgentInstruction, Required) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b).erase("instruction"); }),
            R"(missing ["inputs",0,"instruction"])");
}

TEST(AgentInstruction, MustBeAnObject) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"] = "Say hello."; }),
            R"(model_type ["inputs",0,"instruction"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"] = nullptr; }),
            R"(model_type ["inputs",0,"instruction"])");
}

TEST(AgentInstruction, TypeIsUserOrEnv) {
  for (const char* bad : {"\"system\"", "\"User\"", "\"\"", "7", "null"}) {
    EXPECT_EQ(
        agentRequestFindingsAfter([&](Json& b) { input0(b)["instruction"]["type"] = json(bad); }),
        R"(literal_error ["inputs",0,"instruction","type"])")
        << bad;
  }
  auto parsed = parseAgentInput(json(R"({"id": 1, "instruction": {"type": "x", "content": ""}})"));
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg, "Input should be 'user' or 'env'");
}

TEST(AgentInstruction, TypeAndContentRequired) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"].erase("type"); }),
            R"(missing ["inputs",0,"instruction","type"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"].erase("content"); }),
            R"(missing ["inputs",0,"instruction","content"])");
}

TEST(AgentInstruction, ContentIsAStrictString) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"]["content"] = 7; }),
            R"(string_type ["inputs",0,"instruction","content"])");
  EXPECT_EQ(
      agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"]["content"] = nullptr; }),
      R"(string_type ["inputs",0,"instruction","content"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["instruction"]["content"] = ""; }),
            "");
}

// --- free objects ---

TEST(AgentInputTools, ListOfObjects) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["tools"] = Json::object(); }),
            R"(list_type ["inputs",0,"tools"])");
  EXPECT_EQ(
      agentRequestFindingsAfter([](Json& b) { input0(b)["tools"] = json(R"([{}, "press", {}])"); }),
      R"(dict_type ["inputs",0,"tools",1])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["tools"] = nullptr; }),
            R"(list_type ["inputs",0,"tools"])");
}

TEST(AgentInputFreeObjects, MustBeObjects) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["attributes"] = Json::array(); }),
            R"(dict_type ["inputs",0,"attributes"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["memory"] = "history"; }),
            R"(dict_type ["inputs",0,"memory"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["extra_keys"] = nullptr; }),
            R"(dict_type ["inputs",0,"extra_keys"])");
}

TEST(AgentInputFreeObjects, NumbersMustBeFiniteInside) {
  // parseJson already refuses NaN; values built in code are checked too.
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) {
              input0(b)["memory"]["scores"] = {1.0, std::numeric_limits<double>::quiet_NaN()};
            }),
            R"(finite_number ["inputs",0,"memory","scores",1])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) {
              Json tool = Json::object();
              tool["w"] = std::numeric_limits<double>::infinity();
              input0(b)["tools"] = Json::array({tool});
            }),
            R"(finite_number ["inputs",0,"tools",0,"w"])");
}

// --- num_outputs ---

TEST(AgentInputNumOutputs, GreaterThanZero) {
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["num_outputs"] = 0; }),
            R"(greater_than ["inputs",0,"num_outputs"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["num_outputs"] = -1; }),
            R"(greater_than ["inputs",0,"num_outputs"])");
  EXPECT_EQ(agentRequestFindingsAfter([](Json& b) { input0(b)["num_outputs"] = 3; }), "");
  auto parsed = parseAgentInput(
      json(R"({"id": 1, "instruction": {"type": "user", "content": ""}, "num_outputs": 0})"));
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg, "Input should be greater than 0");
}

TEST(AgentInputNumOutputs, StrictInteger) {
  for (const char* bad : {"1.0", "\"2\"", "true", "null", "2e0"}) {
    EXPECT_EQ(agentRequestFindingsAfter([&](Json& b) { input0(b)["num_outputs"] = json(bad); }),
              R"(int_type ["inputs",0,"num_outputs"])")
        << bad;
  }
}

// --- several findings at once ---

TEST(AgentRequest, ReportsEveryFindingExtrasFirst) {
  auto parsed = parseAgentRequest(json(R"({"request_id": "", "inputs": [
      {"id": 7.0, "instruction": {"type": "x", "content": 7}, "zz": 1, "num_outputs": 0},
      {"instruction": {"type": "env", "content": ""}, "memory": []}]})"));
  EXPECT_EQ(summary(parsed.findings),
            R"(string_too_short ["request_id"]; extra_forbidden ["inputs",0,"zz"]; )"
            R"(int_type ["inputs",0,"id"]; literal_error ["inputs",0,"instruction","type"]; )"
            R"(string_type ["inputs",0,"instruction","content"]; )"
            R"(greater_than ["inputs",0,"num_outputs"]; missing ["inputs",1,"id"]; )"
            R"(dict_type ["inputs",1,"memory"])");
  EXPECT_FALSE(parsed.value.has_value());
}

TEST(AgentRequest, DuplicatedKeysKeepTheLastValue) {
  auto parsed = parseAgentRequest(json(R"({"request_id": "r", "inputs": [{"id": "x", "id": 4,
      "instruction": {"type": "user", "content": "a", "content": "b"}}]})"));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ(parsed.value->inputs[0].id, 4);
  EXPECT_EQ(parsed.value->inputs[0].instruction.content, "b");
}

TEST(AgentInput, ParsedAloneHasLocsWithoutPrefix) {
  auto parsed = parseAgentInput(json(R"({"id": "1", "instruction": {"type": "user"}})"));
  EXPECT_EQ(summary(parsed.findings), R"(int_type ["id"]; missing ["instruction","content"])");
  EXPECT_EQ(parsed.findings[1].input, nullptr);
  EXPECT_EQ(parsed.findings[1].msg, "Field required");
}

TEST(AgentInput, ExclusiveOptionDoesNotConcernInputs) {
  ValidationOptions options;
  options.exclusive_say_and_tool_calls = true;
  auto parsed = parseAgentRequest(minimal(), options);
  EXPECT_TRUE(parsed.ok());
}

}  // namespace
}  // namespace agentvcr::protocol::magma
