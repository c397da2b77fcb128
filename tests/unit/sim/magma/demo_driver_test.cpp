#include "agentvcr/sim/magma/demo_driver.hpp"

#include <functional>
#include <regex>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using protocol::Json;
namespace magma = protocol::magma;

/// One press_button world; episodes given as JSON text.
DemoPlan makePlan(std::string_view episodes, std::string_view settings = R"("nb_env": 1)") {
  const std::string text = std::string("{") + std::string(settings) +
                           R"(, "worlds": {"press": {
      "tools": [{"name": "cancel_current_action", "description": "Cancel the current action running on the targeted robot.", "arguments": {}},
                {"name": "press_button", "description": "Press a button.", "arguments": {"id": {"description": "Name of the button to press.", "type": "str"}}}],
      "attributes": {"objects": ["sw0", "sw1", "sw2", "sw3", "sw4"], "known_robots": ["panda"], "robot_statuses": {"panda": "FREE"}},
      "sim": {"kind": "press_button"}}}, "episodes": )" +
                           std::string(episodes) + "}";
  PlanLoad load = loadDemoPlanText(text);
  EXPECT_TRUE(load.plan) << load.error;
  return load.plan ? std::move(*load.plan) : DemoPlan{};
}

magma::AgentOutput say(const magma::AgentRequest& request, const magma::AgentInput& input,
                       std::int64_t k, std::string text, Json memory) {
  magma::AgentOutput output;
  output.request_id = request.request_id;
  output.source_id = input.id;
  output.candidate_index = k;
  output.memory = std::move(memory);
  output.output = magma::AgentDecision{std::move(text), {}};
  return output;
}

magma::AgentOutput press(const magma::AgentRequest& request, const magma::AgentInput& input,
                         std::int64_t k, std::string id, Json memory) {
  magma::AgentOutput output = say(request, input, k, "", std::move(memory));
  output.output->tool_calls.push_back({"press_button", {{"id", std::move(id)}}, "panda"});
  return output;
}

/// A hand-written agent: `decide` answers each candidate.
using Decide = std::function<magma::AgentOutput(const magma::AgentRequest&,
                                                const magma::AgentInput&, std::int64_t)>;

std::string answer(const std::string& body, const Decide& decide) {
  const auto request = magma::parseAgentRequest(testing::parse(body));
  EXPECT_TRUE(request.ok());
  magma::AgentResponse outputs;
  for (const magma::AgentInput& input : request.value->inputs) {
    for (std::int64_t k = 0; k < input.num_outputs; ++k) {
      outputs.push_back(decide(*request.value, input, k));
    }
  }
  return magma::serializeResponse(outputs);
}

TEST(DemoDriver, FirstRequestIsFormattedLikeBench) {
  DemoDriver driver(
      makePlan(R"([{"name": "e", "world": "press", "stages": ["Please press sw1"]}])"));
  ASSERT_FALSE(driver.done());
  const std::string body = driver.nextRequestBody();
  const std::regex shape(
      R"(^\{"request_id": "[0-9a-f]{32}", "inputs": \[\{"id": 0, "instruction": \{"type": "user", "content": "Please press sw1"\}, "tools": \[\{"name": "cancel_current_action", "description": .*\], "attributes": \{"objects": \["sw0", "sw1", "sw2", "sw3", "sw4"\], "known_robots": \["panda"\], "robot_statuses": \{"panda": "FREE"\}\}, "memory": \{"history": \[\]\}, "num_outputs": 1, "extra_keys": \{"inference_mode": true\}\}\]\}$)");
  EXPECT_TRUE(std::regex_match(body, shape)) << body;
  EXPECT_TRUE(driver.awaitingResponse());
  EXPECT_EQ(driver.nextRequestBody(), "");  // one request in flight at a time
}

TEST(DemoDriver, ToolCallThenEnvFeedbackThenSayEndsTheEpisode) {
  DemoDriver driver(
      makePlan(R"([{"name": "e", "world": "press", "stages": ["Please press sw1"]}])"));
  const Json memory_a = testing::parse(
      R"({"history": [{"author": "USER", "content": "Please press sw1"}], "z": 1, "a": 2})");
  std::string body = driver.nextRequestBody();
  ASSERT_FALSE(driver.onResponse(200, answer(body, [&](auto& r, auto& i, auto k) {
                                   return press(r, i, k, "sw1", memory_a);
                                 })));
  body = driver.nextRequestBody();
  const auto& request = *driver.lastRequest();
  ASSERT_EQ(request.inputs.size(), 1u);
  EXPECT_EQ(request.inputs[0].instruction.type, magma::InstructionType::Env);
  EXPECT_EQ(
      request.inputs[0].instruction.content,
      R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
  EXPECT_EQ(request.inputs[0].memory, memory_a);  // replaced verbatim
  EXPECT_NE(
      body.find(
          R"("memory": {"a": 2, "history": [{"author": "USER", "content": "Please press sw1"}], "z": 1})"),
      std::string::npos)
      << body;  // in the key order the agent wrote (serializeResponse sorts a Json memory)
  ASSERT_FALSE(driver.onResponse(200, answer(body, [&](auto& r, auto& i, auto k) {
                                   return say(r, i, k, "Done.", i.memory);
                                 })));
  EXPECT_TRUE(driver.done());
  const Summary summary = driver.summary();
  ASSERT_EQ(summary.outcomes.size(), 1u);
  EXPECT_TRUE(summary.outcomes[0].done);
  EXPECT_EQ(summary.outcomes[0].last_say, "Done.");
  EXPECT_EQ(summary.outcomes[0].agent_calls, 2);
  EXPECT_EQ(summary.outcomes[0].stages_completed, 1u);
  EXPECT_EQ(summary.requests, 2u);
  EXPECT_FALSE(summary.abort_reason);
}

TEST(DemoDriver, MemoryKeyOrderOfTheReplyIsKept) {
  DemoDriver driver(makePlan(R"([{"name": "e", "world": "press", "stages": ["a", "b"]}])"));
  const std::string body = driver.nextRequestBody();
  const auto request = magma::parseAgentRequest(testing::parse(body));
  const std::string reply =
      R"([{"request_id":")" + request.value->request_id +
      R"(","source_id":0,"candidate_index":0,"status":"completed","memory":{"z":1,"history":[],"a":{"y":1,"b":2}},"internal_steps":[],"output":{"say":"ok","tool_calls":[]},"error":null}])";
  ASSERT_FALSE(driver.onResponse(200, reply));
  EXPECT_NE(
      driver.nextRequestBody().find(R"("memory": {"z": 1, "history": [], "a": {"y": 1, "b": 2}})"),
      std::string::npos);
}

TEST(DemoDriver, SlotsAreReusedAcrossEpisodes) {
  DemoDriver driver(makePlan(R"([{"name": "one", "world": "press", "stages": ["a"]},
                                {"name": "two", "world": "press", "stages": ["b"]},
                                {"name": "three", "world": "press", "stages": ["c"]}])",
                             R"("nb_env": 2)"));
  std::string body = driver.nextRequestBody();
  ASSERT_EQ(driver.lastRequest()->inputs.size(), 2u);
  EXPECT_EQ(driver.lastRequest()->inputs[0].id, 0);
  EXPECT_EQ(driver.lastRequest()->inputs[1].id, 1);
  ASSERT_FALSE(driver.onResponse(
      200, answer(body, [](auto& r, auto& i, auto k) { return say(r, i, k, "ok", i.memory); })));
  body = driver.nextRequestBody();
  ASSERT_EQ(driver.lastRequest()->inputs.size(), 1u);
  EXPECT_EQ(driver.lastRequest()->inputs[0].id, 0);
  EXPECT_EQ(driver.lastRequest()->inputs[0].instruction.content, "c");
  ASSERT_FALSE(driver.onResponse(
      200, answer(body, [](auto& r, auto& i, auto k) { return say(r, i, k, "ok", i.memory); })));
  EXPECT_TRUE(driver.done());
  EXPECT_EQ(driver.summary().outcomes.size(), 3u);
}

TEST(DemoDriver, GenInputForksIntoBranchesWithTheirOwnMemories) {
  DemoDriver driver(makePlan(
      R"([{"name": "tree", "world": "press", "caller": "gen", "num_outputs": 2, "stages": ["go"]}])",
      R"("nb_env": 1, "gen_first_id": 41)"));
  std::string body = driver.nextRequestBody();
  EXPECT_EQ(driver.lastRequest()->inputs[0].id, 41);
  EXPECT_EQ(driver.lastRequest()->inputs[0].num_outputs, 2);
  ASSERT_FALSE(
      driver.onResponse(200, answer(body, [](auto& r, auto& i, auto k) {
                          return press(r, i, k, k == 0 ? "sw1" : "sw9", Json{{"branch", k}});
                        })));
  body = driver.nextRequestBody();
  const auto& inputs = driver.lastRequest()->inputs;
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].id, 42);
  EXPECT_EQ(inputs[1].id, 43);
  EXPECT_EQ(inputs[0].num_outputs, 1);
  EXPECT_EQ(inputs[0].memory, (Json{{"branch", 0}}));
  EXPECT_EQ(inputs[1].memory, (Json{{"branch", 1}}));
  EXPECT_NE(inputs[0].instruction.content.find("succeed"), std::string::npos);
  EXPECT_NE(inputs[1].instruction.content.find("id = sw9"), std::string::npos);
  ASSERT_FALSE(driver.onResponse(200, answer(body, [](auto& r, auto& i, auto k) {
                                   return say(r, i, k, "branch " + i.memory["branch"].dump(),
                                              i.memory);
                                 })));
  const Summary summary = driver.summary();
  ASSERT_EQ(summary.outcomes.size(), 2u);
  EXPECT_EQ(summary.outcomes[0].label, "tree/0");
  EXPECT_EQ(summary.outcomes[0].last_say, "branch 0");
  EXPECT_EQ(summary.outcomes[1].label, "tree/1");
  EXPECT_EQ(summary.outcomes[1].last_say, "branch 1");
}

TEST(DemoDriver, ErrorCandidateFailsTheEpisode) {
  DemoDriver driver(makePlan(R"([{"name": "e", "world": "press", "stages": ["a"]}])"));
  const std::string body = driver.nextRequestBody();
  ASSERT_FALSE(
      driver.onResponse(200, answer(body, [](auto& r, auto& i, auto k) {
                          magma::AgentOutput output = say(r, i, k, "", i.memory);
                          output.status = magma::OutputStatus::Error;
                          output.output.reset();
                          output.error = magma::AgentError{"invalid_output", "bad", "commander"};
                          return output;
                        })));
  EXPECT_TRUE(driver.done());
  const BranchOutcome outcome = driver.summary().outcomes.at(0);
  EXPECT_FALSE(outcome.done);
  EXPECT_EQ(outcome.reason, "agent error invalid_output: bad");
}

TEST(DemoDriver, EmptyDecisionGetsTheBenchMessageAndTheBudgetEndsLoops) {
  DemoDriver driver(makePlan(R"([{"name": "e", "world": "press", "stages": ["a"]}])",
                             R"("nb_env": 1, "max_steps_per_stage": 3)"));
  const Decide empty = [](auto& r, auto& i, auto k) { return say(r, i, k, "", i.memory); };
  std::string body = driver.nextRequestBody();
  ASSERT_FALSE(driver.onResponse(200, answer(body, empty)));
  body = driver.nextRequestBody();
  EXPECT_EQ(driver.lastRequest()->inputs[0].instruction.content,
            R"({"error": "The agent returned neither a message nor a tool call."})");
  ASSERT_FALSE(driver.onResponse(200, answer(body, empty)));
  body = driver.nextRequestBody();
  ASSERT_FALSE(driver.onResponse(200, answer(body, empty)));
  EXPECT_TRUE(driver.done());
  const BranchOutcome outcome = driver.summary().outcomes.at(0);
  EXPECT_FALSE(outcome.done);
  EXPECT_EQ(outcome.reason, "step budget exhausted in stage 0 after 3 answers");
  EXPECT_EQ(outcome.agent_calls, 3);
}

TEST(DemoDriver, InvalidRepliesAbortTheRun) {
  const DemoPlan plan = makePlan(R"([{"name": "one", "world": "press", "stages": ["a"]},
                                    {"name": "two", "world": "press", "stages": ["b"]}])");
  {
    DemoDriver driver(plan);
    EXPECT_EQ(driver.onResponse(200, "[]"), "no request is in flight");
    driver.nextRequestBody();
    EXPECT_EQ(driver.onResponse(503, R"({"detail":"Models are not ready"})"),
              "the agent answered HTTP 503");
    EXPECT_TRUE(driver.done());
    const Summary summary = driver.summary();
    EXPECT_EQ(summary.abort_reason, "the agent answered HTTP 503");
    ASSERT_EQ(summary.outcomes.size(), 2u);
    EXPECT_EQ(summary.outcomes[0].reason, "run aborted: the agent answered HTTP 503");
    EXPECT_EQ(summary.outcomes[1].reason,
              "run aborted: the agent answered HTTP 503 (never started)");
    EXPECT_EQ(driver.nextRequestBody(), "");
  }
  {
    DemoDriver driver(plan);
    driver.nextRequestBody();
    const auto error = driver.onResponse(200, "[");
    ASSERT_TRUE(error);
    EXPECT_EQ(error->rfind("the reply is not JSON", 0), 0u);
  }
  {
    DemoDriver driver(plan);
    const std::string body = driver.nextRequestBody();
    // A candidate for the wrong source id: the order check fails.
    const auto error = driver.onResponse(200, answer(body, [](auto& r, auto& i, auto k) {
                                           magma::AgentOutput output = say(r, i, k, "ok", i.memory);
                                           output.source_id = 5;
                                           return output;
                                         }));
    ASSERT_TRUE(error);
    EXPECT_EQ(error->rfind("invalid reply: ", 0), 0u) << *error;
  }
  {
    DemoDriver driver(plan);
    driver.nextRequestBody();
    const auto error = driver.onResponse(200, "[]");  // a missing candidate
    ASSERT_TRUE(error);
    EXPECT_TRUE(driver.done());
  }
}

TEST(DemoDriver, CheckExpectationsReportsDifferences) {
  const DemoPlan plan = makePlan(
      R"([{"name": "e", "world": "press", "stages": ["a"], "expect": {"outcome": "done", "say": "yes"}}])");
  Summary summary;
  summary.outcomes.push_back({0, "e", true, "", "yes", 1, 1});
  EXPECT_TRUE(checkExpectations(plan, summary).empty());
  summary.outcomes[0].last_say = "no";
  summary.outcomes[0].done = false;
  summary.outcomes[0].reason = "x";
  const auto problems = checkExpectations(plan, summary);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "e: expected done, got failed: x");
  EXPECT_EQ(problems[1], "e: expected the last say \"yes\", got \"no\"");
  summary.outcomes.clear();
  EXPECT_EQ(checkExpectations(plan, summary).at(0), "e: expected 1 branch(es), got 0");
}

TEST(DemoDriver, FormatSummaryOneLinePerBranch) {
  Summary summary;
  summary.outcomes.push_back({0, "press-sw1", true, "", "Done, sw1 is pressed.", 2, 1});
  summary.outcomes.push_back({1, "boom", false, "agent error invalid_output: bad", "", 1, 0});
  summary.abort_reason = "the agent answered HTTP 503";
  EXPECT_EQ(formatSummary(summary),
            "press-sw1: done after 2 answers, last say \"Done, sw1 is pressed.\"\n"
            "boom: failed after 1 answer: agent error invalid_output: bad\n"
            "aborted: the agent answered HTTP 503\n");
}

}  // namespace
}  // namespace agentvcr::sim::magma
