#include "agentvcr/sim/magma/full_history.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using protocol::Json;
using protocol::magma::AgentDecision;
using protocol::magma::InstructionType;

TEST(FullHistory, ModelTurnOfAToolCallMatchesEpisodeA1) {
  AgentDecision decision;
  decision.tool_calls.push_back({"press_button", {{"id", "sw1"}}, "panda"});
  EXPECT_EQ(
      modelTurnText(decision),
      R"({"say": "", "action": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
}

TEST(FullHistory, ModelTurnOfASayMatchesEpisodeA2) {
  AgentDecision decision;
  decision.say = "Done, sw1 is pressed.";
  EXPECT_EQ(modelTurnText(decision), R"({"say": "Done, sw1 is pressed.", "action": {}})");
}

TEST(FullHistory, ModelTurnListsActionsWhenARobotRepeats) {
  AgentDecision decision;
  decision.tool_calls.push_back({"press_button", {{"id", "sw0"}}, "panda"});
  decision.tool_calls.push_back({"press_button", {{"id", "sw2"}}, "panda"});
  EXPECT_EQ(
      modelTurnText(decision),
      R"({"say": "", "action": [{"panda": {"name": "press_button", "arguments": {"id": "sw0"}}}, {"panda": {"name": "press_button", "arguments": {"id": "sw2"}}}]})");
}

TEST(FullHistory, ModelTurnKeepsUnicodeRaw) {
  AgentDecision decision;
  decision.say = "C'est fait \xe2\x9c\x85";
  EXPECT_EQ(modelTurnText(decision), "{\"say\": \"C'est fait \xe2\x9c\x85\", \"action\": {}}");
}

TEST(FullHistory, AppendTurnAddsInstructionThenModelEntryAndKeepsOtherKeys) {
  const Json memory = testing::parse(
      R"({"memory_list": ["rule"], "history": [{"author": "USER", "content": "a"}], "_agentvcr": {"v": 1}})");
  const Json after = appendTurn(memory, {InstructionType::Env, "feedback"}, "model");
  EXPECT_EQ(after, testing::parse(R"({"memory_list": ["rule"], "_agentvcr": {"v": 1},
    "history": [{"author": "USER", "content": "a"}, {"author": "SYSTEM", "content": "feedback"},
                {"author": "MODEL", "content": "model"}]})"));
  EXPECT_EQ(
      appendTurn(Json::object(), {InstructionType::User, "hi"}, "m"),
      testing::parse(
          R"({"history": [{"author": "USER", "content": "hi"}, {"author": "MODEL", "content": "m"}]})"));
}

TEST(FullHistory, PromptRendersRulesHistoryAndInstruction) {
  const Json memory = testing::parse(R"({"memory_list": ["Only arm1 can inspect objects."],
    "history": [{"author": "USER", "content": "Say hello."}, {"author": "MODEL", "content": "{}"}]})");
  const Json messages = promptMessages(memory, {InstructionType::Env, "ok"});
  EXPECT_EQ(renderPrompt(messages),
            "system: Only arm1 can inspect objects.\nuser: Say hello.\nassistant: {}\nenv: ok\n"
            "assistant:");
  EXPECT_EQ(renderPrompt(promptMessages(Json::object(), {InstructionType::User, "Say hello."})),
            "user: Say hello.\nassistant:");
}

TEST(FullHistory, MemoryShapeChecksLikeFullHistory) {
  protocol::magma::AgentInput input = testing::userInput("x");
  EXPECT_FALSE(checkMemoryShape(input, 0));
  input.memory = testing::parse(R"({"history": [1]})");
  EXPECT_EQ(checkMemoryShape(input, 2), "inputs[2].memory.history must be a list of objects");
  input.memory = testing::parse(R"({"history": {}})");
  EXPECT_TRUE(checkMemoryShape(input, 0));
  input.memory = testing::parse(R"({"memory_list": ["a", 1]})");
  EXPECT_EQ(checkMemoryShape(input, 0), "inputs[0].memory.memory_list must be a list of strings");
  input.memory = testing::parse(R"({"summary": 3})");
  EXPECT_EQ(checkMemoryShape(input, 0), "inputs[0].memory.summary must be a string");
  input.memory = Json::object();
  input.extra_keys = testing::parse(R"({"inference_mode": "yes"})");
  EXPECT_EQ(checkMemoryShape(input, 0), "inputs[0].extra_keys.inference_mode must be a boolean");
}

}  // namespace
}  // namespace agentvcr::sim::magma
