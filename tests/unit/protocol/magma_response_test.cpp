#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "magma_bodies.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol::magma {
namespace {

using test::json;
using test::kCompleted;
using test::kErrorCandidate;
using test::summary;

// §19 Episode A1 (elided parts of the step filled in).
constexpr const char* kEpisodeA1Response =
    R"([{"request_id":"9c1e4f0a2b7d4c0e8f3a6b5d1e2c7f90","source_id":0,"candidate_index":0,"status":"completed",
  "memory":{"history":[{"author":"USER","content":"Please press sw1"},
    {"author":"MODEL","content":"{\"say\": \"\", \"action\": {\"panda\": {\"name\": \"press_button\", \"arguments\": {\"id\": \"sw1\"}}}}"}]},
  "internal_steps":[{"id":"step-0","component":"commander","origin":"model","full_prompt":"<|im_start|>system\n...",
    "input_elements":{"messages":[],"tools":[],"enable_thinking":false},
    "output_raw":"<tool_call>{\"panda\":{\"name\":\"press_button\",\"arguments\":{\"id\":\"sw1\"}}}</tool_call>"}],
  "output":{"say":"","tool_calls":[{"name":"press_button","arguments":{"id":"sw1"},"target_robot_name":"panda"}]},
  "error":null}])";

template <class Edit>
std::string agentResponseFindingsAfter(Edit edit, const ValidationOptions& options = {}) {
  Json body = json(kCompleted);
  edit(body[0]);
  auto parsed = parseAgentResponse(body, nullptr, options);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

TEST(AgentResponse, MinimalCompletedParses) {
  auto parsed = parseAgentResponse(json(kCompleted));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  ASSERT_EQ(parsed.value->size(), 1U);
  const AgentOutput& output = (*parsed.value)[0];
  EXPECT_EQ(output.request_id, "demo");
  EXPECT_EQ(output.source_id, 7);
  EXPECT_EQ(output.status, OutputStatus::Completed);
  ASSERT_TRUE(output.output);
  EXPECT_EQ(output.output->say, "Hello!");
  EXPECT_FALSE(output.error);
}

TEST(AgentResponse, ErrorCandidateParses) {
  auto parsed = parseAgentResponse(json(kErrorCandidate));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const AgentOutput& output = (*parsed.value)[0];
  EXPECT_EQ(output.status, OutputStatus::Error);
  EXPECT_FALSE(output.output);
  ASSERT_TRUE(output.error);
  EXPECT_EQ(output.error->code, "model_error");
  EXPECT_EQ(output.error->component, "model");
}

TEST(AgentResponse, EpisodeA1Parses) {
  auto parsed = parseAgentResponse(json(kEpisodeA1Response));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const ToolCall& call = (*parsed.value)[0].output->tool_calls.at(0);
  EXPECT_EQ(call.name, "press_button");
  EXPECT_EQ(call.arguments, json(R"({"id": "sw1"})"));
  EXPECT_EQ(call.target_robot_name, "panda");
  EXPECT_EQ((*parsed.value)[0].internal_steps[0]["origin"], "model");
}

TEST(AgentResponse, EmptyArrayIsValid) {
  auto parsed = parseAgentResponse(json("[]"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed.value->empty());
}

TEST(AgentResponse, BodyMustBeABareArray) {
  auto parsed = parseAgentResponse(json(R"({"outputs": []})"));
  EXPECT_EQ(summary(parsed.findings), "list_type []");
  EXPECT_EQ(parsed.findings[0].msg, "Input should be a valid array");
}

TEST(AgentOutput, MustBeAnObject) {
  auto parsed = parseAgentResponse(json("[1]"));
  EXPECT_EQ(summary(parsed.findings), "model_type [0]");
}

TEST(AgentOutput, UnknownKeysRejected) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["latency"] = 1; }),
            R"(extra_forbidden [0,"latency"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"]["thought"] = ""; }),
            R"(extra_forbidden [0,"output","thought"])");
}

TEST(AgentOutput, RequestIdRequiredNonEmptyString) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("request_id"); }),
            R"(missing [0,"request_id"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["request_id"] = ""; }),
            R"(string_too_short [0,"request_id"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["request_id"] = 1; }),
            R"(string_type [0,"request_id"])");
}

TEST(AgentOutput, SourceIdStrictInteger) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("source_id"); }),
            R"(missing [0,"source_id"])");
  for (const char* bad : {"\"7\"", "7.0", "true", "1e1"}) {
    EXPECT_EQ(agentResponseFindingsAfter([&](Json& o) { o["source_id"] = json(bad); }),
              R"(int_type [0,"source_id"])")
        << bad;
  }
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["source_id"] = -7; }), "");
}

TEST(AgentOutput, CandidateIndexNonNegativeStrictInteger) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("candidate_index"); }),
            R"(missing [0,"candidate_index"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["candidate_index"] = -1; }),
            R"(greater_than_equal [0,"candidate_index"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["candidate_index"] = 0.0; }),
            R"(int_type [0,"candidate_index"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["candidate_index"] = 0; }), "");
}

TEST(AgentOutput, StatusLiteral) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("status"); }),
            R"(missing [0,"status"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["status"] = "done"; }),
            R"(literal_error [0,"status"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["status"] = "Completed"; }),
            R"(literal_error [0,"status"])");
}

TEST(AgentOutput, MemoryRequiredObject) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("memory"); }),
            R"(missing [0,"memory"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["memory"] = Json::array(); }),
            R"(dict_type [0,"memory"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["memory"] = nullptr; }),
            R"(dict_type [0,"memory"])");
}

TEST(AgentOutput, InternalStepsListOfObjectsWithDefault) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("internal_steps"); }), "");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["internal_steps"] = Json::object(); }),
            R"(list_type [0,"internal_steps"])");
  EXPECT_EQ(agentResponseFindingsAfter(
                [](Json& o) { o["internal_steps"] = json(R"([{"k": 1}, "step"])"); }),
            R"(dict_type [0,"internal_steps",1])");
  // Steps are opaque: gpt-agent's extra keys pass.
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) {
              o["internal_steps"] = json(R"([{"id": "s", "usage": {"tokens": 3}, "attempts": 2}])");
            }),
            "");
}

TEST(AgentOutput, CompletedNeedsADecisionAndNoError) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("output"); }),
            R"(value_error [0,"output"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"] = nullptr; }),
            R"(value_error [0,"output"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) {
              o["error"] = {{"code", "c"}, {"message", "m"}};
            }),
            R"(value_error [0,"error"])");
  Json body = json(kCompleted);
  body[0].erase("output");
  auto parsed = parseAgentResponse(body);
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg,
            "Value error, Completed candidates require a decision and no error");
}

TEST(AgentOutput, ErrorNeedsAnErrorAndNoDecision) {
  auto run = [](auto edit) {
    Json body = json(kErrorCandidate);
    edit(body[0]);
    return summary(parseAgentResponse(body).findings);
  };
  EXPECT_EQ(run([](Json& o) { o.erase("output"); }), "");  // omitted = null
  EXPECT_EQ(run([](Json& o) { o["error"] = nullptr; }), R"(value_error [0,"error"])");
  EXPECT_EQ(run([](Json& o) { o.erase("error"); }), R"(value_error [0,"error"])");
  EXPECT_EQ(run([](Json& o) { o["output"] = {{"say", "x"}}; }), R"(value_error [0,"output"])");
}

TEST(AgentOutput, CompletedMayOmitError) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o.erase("error"); }), "");
}

// --- AgentDecision and ToolCall ---

TEST(AgentDecision, DefaultsApply) {
  Json body = json(kCompleted);
  body[0]["output"] = Json::object();
  auto parsed = parseAgentResponse(body);
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ((*parsed.value)[0].output->say, "");
  EXPECT_TRUE((*parsed.value)[0].output->tool_calls.empty());
}

TEST(AgentDecision, MustBeAnObject) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"] = "Hello!"; }),
            R"(model_type [0,"output"])");
}

TEST(AgentDecision, SayStrictString) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"]["say"] = 5; }),
            R"(string_type [0,"output","say"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"]["say"] = nullptr; }),
            R"(string_type [0,"output","say"])");
}

TEST(AgentDecision, ToolCallsList) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"]["tool_calls"] = Json::object(); }),
            R"(list_type [0,"output","tool_calls"])");
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) { o["output"]["tool_calls"] = {"press"}; }),
            R"(model_type [0,"output","tool_calls",0])");
}

Json call() {
  return json(
      R"({"name": "press_button", "arguments": {"id": "sw0"}, "target_robot_name": "panda"})");
}

TEST(ToolCall, ValidCallAndDefaultArguments) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) {
              o["output"] = {{"say", ""}, {"tool_calls", {call()}}};
            }),
            "");
  Json body = json(kCompleted);
  Json bare = call();
  bare.erase("arguments");
  body[0]["output"] = {{"tool_calls", {bare}}};
  auto parsed = parseAgentResponse(body);
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ((*parsed.value)[0].output->tool_calls[0].arguments, Json::object());
}

template <class Edit>
std::string callFindingsAfter(Edit edit) {
  return agentResponseFindingsAfter([&](Json& o) {
    Json c = call();
    edit(c);
    o["output"] = {{"say", ""}, {"tool_calls", {call(), c}}};
  });
}

TEST(ToolCall, NameRequiredNonEmpty) {
  EXPECT_EQ(callFindingsAfter([](Json& c) { c.erase("name"); }),
            R"(missing [0,"output","tool_calls",1,"name"])");
  EXPECT_EQ(callFindingsAfter([](Json& c) { c["name"] = ""; }),
            R"(string_too_short [0,"output","tool_calls",1,"name"])");
  EXPECT_EQ(callFindingsAfter([](Json& c) { c["name"] = 3; }),
            R"(string_type [0,"output","tool_calls",1,"name"])");
}

TEST(ToolCall, TargetRobotNameRequiredNonEmpty) {
  EXPECT_EQ(callFindingsAfter([](Json& c) { c.erase("target_robot_name"); }),
            R"(missing [0,"output","tool_calls",1,"target_robot_name"])");
  EXPECT_EQ(callFindingsAfter([](Json& c) { c["target_robot_name"] = ""; }),
            R"(string_too_short [0,"output","tool_calls",1,"target_robot_name"])");
}

TEST(ToolCall, ArgumentsFreeObject) {
  EXPECT_EQ(callFindingsAfter([](Json& c) { c["arguments"] = {"sw0"}; }),
            R"(dict_type [0,"output","tool_calls",1,"arguments"])");
  EXPECT_EQ(callFindingsAfter([](Json& c) { c["arguments"] = json(R"({"x": {"y": [1]}})"); }), "");
}

TEST(ToolCall, UnknownKeysRejected) {
  EXPECT_EQ(callFindingsAfter([](Json& c) { c["id"] = "call_1"; }),
            R"(extra_forbidden [0,"output","tool_calls",1,"id"])");
}

// --- say and tool_calls together (§6) ---

TEST(AgentDecision, MixedDecisionPassesWhenRelaxed) {
  EXPECT_EQ(agentResponseFindingsAfter([](Json& o) {
              o["output"] = {{"say", "On it"}, {"tool_calls", {call()}}};
            }),
            "");
}

TEST(AgentDecision, MixedDecisionFailsWhenExclusive) {
  ValidationOptions exclusive;
  exclusive.exclusive_say_and_tool_calls = true;
  EXPECT_EQ(agentResponseFindingsAfter(
                [](Json& o) {
                  o["output"] = {{"say", "On it"}, {"tool_calls", {call()}}};
                },
                exclusive),
            R"(value_error [0,"output"])");
  EXPECT_EQ(agentResponseFindingsAfter(
                [](Json& o) {
                  o["output"] = {{"say", ""}, {"tool_calls", {call()}}};
                },
                exclusive),
            "");
  EXPECT_EQ(agentResponseFindingsAfter([](Json&) {}, exclusive), "");
}

// --- AgentError ---

template <class Edit>
std::string errorFindingsAfter(Edit edit) {
  Json body = json(kErrorCandidate);
  edit(body[0]["error"]);
  return summary(parseAgentResponse(body).findings);
}

TEST(AgentError, CodeAndMessageRequiredNonEmpty) {
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e["code"] = ""; }),
            R"(string_too_short [0,"error","code"])");
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e.erase("code"); }), R"(missing [0,"error","code"])");
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e["message"] = ""; }),
            R"(string_too_short [0,"error","message"])");
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e.erase("message"); }),
            R"(missing [0,"error","message"])");
}

TEST(AgentError, ComponentNullableString) {
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e["component"] = nullptr; }), "");
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e.erase("component"); }), "");
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e["component"] = 1; }),
            R"(string_type [0,"error","component"])");
}

TEST(AgentError, UnknownKeysRejected) {
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e["trace"] = "..."; }),
            R"(extra_forbidden [0,"error","trace"])");
}

TEST(AgentError, MustBeAnObject) {
  EXPECT_EQ(errorFindingsAfter([](Json& e) { e = "boom"; }), R"(model_type [0,"error"])");
}

// --- candidate order (AgentResponse.validate_request) ---

AgentRequest seedRequest() {
  // Seed example: ids 7 and 3 asking for two and one candidates.
  AgentRequest request;
  request.request_id = "gen-0007";
  AgentInput seven;
  seven.id = 7;
  seven.num_outputs = 2;
  AgentInput three;
  three.id = 3;
  request.inputs = {seven, three};
  return request;
}

Json candidate(const char* request_id, std::int64_t source, std::int64_t index) {
  Json output = json(kCompleted)[0];
  output["request_id"] = request_id;
  output["source_id"] = source;
  output["candidate_index"] = index;
  return output;
}

Json body(std::initializer_list<std::tuple<const char*, std::int64_t, std::int64_t>> slots) {
  Json out = Json::array();
  for (const auto& [request_id, source, index] : slots) {
    out.push_back(candidate(request_id, source, index));
  }
  return out;
}

std::string orderFindings(const Json& response) {
  AgentRequest request = seedRequest();
  auto parsed = parseAgentResponse(response, &request);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

TEST(CandidateOrder, SeedExampleInRequestOrderPasses) {
  EXPECT_EQ(orderFindings(body({{"gen-0007", 7, 0}, {"gen-0007", 7, 1}, {"gen-0007", 3, 0}})), "");
}

TEST(CandidateOrder, SortedByIdFails) {
  EXPECT_EQ(orderFindings(body({{"gen-0007", 3, 0}, {"gen-0007", 7, 0}, {"gen-0007", 7, 1}})),
            "candidate_order [0]; candidate_order [1]; candidate_order [2]");
}

TEST(CandidateOrder, WrongRequestIdFails) {
  EXPECT_EQ(orderFindings(body({{"gen-0007", 7, 0}, {"other", 7, 1}, {"gen-0007", 3, 0}})),
            "candidate_order [1]");
}

TEST(CandidateOrder, WrongSourceFails) {
  EXPECT_EQ(orderFindings(body({{"gen-0007", 7, 0}, {"gen-0007", 7, 1}, {"gen-0007", 4, 0}})),
            "candidate_order [2]");
}

TEST(CandidateOrder, WrongIndexFails) {
  Json response = body({{"gen-0007", 7, 0}, {"gen-0007", 7, 2}, {"gen-0007", 3, 0}});
  AgentRequest request = seedRequest();
  auto parsed = parseAgentResponse(response, &request);
  EXPECT_EQ(summary(parsed.findings), "candidate_order [1]");
  EXPECT_EQ(parsed.findings[0].msg,
            R"(Expected candidate (request_id="gen-0007", source_id=7, candidate_index=1), )"
            R"(got (request_id="gen-0007", source_id=7, candidate_index=2))");
  EXPECT_EQ(parsed.findings[0].input,
            json(R"({"request_id": "gen-0007", "source_id": 7, "candidate_index": 2})"));
}

TEST(CandidateOrder, MissingEntryFails) {
  Json response = body({{"gen-0007", 7, 0}, {"gen-0007", 7, 1}});
  AgentRequest request = seedRequest();
  auto parsed = parseAgentResponse(response, &request);
  EXPECT_EQ(summary(parsed.findings), "candidate_order [2]");
  EXPECT_EQ(parsed.findings[0].input, nullptr);
  EXPECT_EQ(parsed.findings[0].msg,
            R"(Missing candidate (request_id="gen-0007", source_id=3, candidate_index=0))");
}

TEST(CandidateOrder, MissingInTheMiddleFails) {
  EXPECT_EQ(orderFindings(body({{"gen-0007", 7, 0}, {"gen-0007", 3, 0}})),
            "candidate_order [1]; candidate_order [2]");
}

TEST(CandidateOrder, DuplicateFails) {
  EXPECT_EQ(orderFindings(body(
                {{"gen-0007", 7, 0}, {"gen-0007", 7, 0}, {"gen-0007", 7, 1}, {"gen-0007", 3, 0}})),
            "candidate_order [1]; candidate_order [2]; candidate_order [3]");
}

TEST(CandidateOrder, ExtraFails) {
  EXPECT_EQ(orderFindings(body(
                {{"gen-0007", 7, 0}, {"gen-0007", 7, 1}, {"gen-0007", 3, 0}, {"gen-0007", 3, 1}})),
            "candidate_order [3]");
}

TEST(CandidateOrder, ReversedOrderFails) {
  EXPECT_EQ(orderFindings(body({{"gen-0007", 3, 0}, {"gen-0007", 7, 1}, {"gen-0007", 7, 0}})),
            "candidate_order [0]; candidate_order [2]");
}

TEST(CandidateOrder, ErrorCandidatesKeepTheirPosition) {
  Json response = body({{"gen-0007", 7, 0}, {"gen-0007", 7, 1}, {"gen-0007", 3, 0}});
  response[1] = json(kErrorCandidate)[0];
  response[1]["request_id"] = "gen-0007";
  response[1]["candidate_index"] = 1;
  EXPECT_EQ(orderFindings(response), "");
}

TEST(CandidateOrder, EmptyRequestNeedsAnEmptyResponse) {
  AgentRequest request;
  request.request_id = "r";
  EXPECT_TRUE(parseAgentResponse(json("[]"), &request).ok());
  EXPECT_EQ(summary(parseAgentResponse(body({{"r", 1, 0}}), &request).findings),
            "candidate_order [0]");
}

TEST(CandidateOrder, UnreadableSlotsAreNotReportedTwice) {
  Json response = body({{"gen-0007", 7, 0}, {"gen-0007", 7, 1}, {"gen-0007", 3, 0}});
  response[1]["source_id"] = "7";
  EXPECT_EQ(orderFindings(response), R"(int_type [1,"source_id"])");
}

TEST(CandidateOrder, HugeNumOutputsDoesNotMaterialiseSlots) {
  AgentRequest request;
  request.request_id = "r";
  AgentInput input;
  input.id = 1;
  input.num_outputs = 1'000'000'000'000;
  request.inputs = {input};
  auto parsed = parseAgentResponse(body({{"r", 1, 0}}), &request);
  EXPECT_EQ(summary(parsed.findings), "candidate_order [1]");
  EXPECT_NE(parsed.findings[0].msg.find("and 999999999998 more"), std::string::npos)
      << parsed.findings[0].msg;
}

TEST(CandidateOrder, WorksWithAParsedRequest) {
  auto request = parseAgentRequest(json(R"({"request_id": "demo", "inputs": [{"id": 7,
      "instruction": {"type": "user", "content": "Say hello."}}]})"));
  ASSERT_TRUE(request.ok());
  EXPECT_TRUE(parseAgentResponse(json(kCompleted), &*request.value).ok());
}

}  // namespace
}  // namespace agentvcr::protocol::magma
