#include "agentvcr/sim/magma/rule_match.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using protocol::Json;
using protocol::magma::AgentInput;
using testing::envInput;
using testing::userInput;

constexpr const char* kPressed =
    R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";
constexpr const char* kWrongButton =
    R"({"infos": "panda: press_button failed with message: No objects corresponding to id = sw9. You must pass the id of the object to take.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw9"}}}})";

Script script(std::string_view text) {
  ScriptLoad load = parseScript(testing::parse(text));
  EXPECT_TRUE(load.script) << load.error;
  return load.script ? std::move(*load.script) : Script{};
}

ChosenDecision choose(const Script& rules, const AgentInput& input, std::int64_t k = 0) {
  const RuleInput view(input);
  return chooseDecision(rules, view, k);
}

bool matches(std::string_view when, const AgentInput& input) {
  const Script rules = script(std::string(R"({"rules": [{"when": )") + std::string(when) +
                              R"(, "then": {"say": "yes"}}]})");
  return choose(rules, input).rule_name == "rule-0";
}

TEST(RuleMatch, TypeContainsAndRegex) {
  EXPECT_TRUE(matches(R"({"type": "user"})", userInput("hi")));
  EXPECT_FALSE(matches(R"({"type": "env"})", userInput("hi")));
  EXPECT_TRUE(matches(R"({"contains": "press"})", userInput("Please press sw1")));
  EXPECT_FALSE(matches(R"({"contains": "PRESS"})", userInput("Please press sw1")));
  EXPECT_TRUE(
      matches(R"({"contains": "PRESS", "ignore_case": true})", userInput("Please press sw1")));
  EXPECT_TRUE(matches(R"({"regex": "press sw[0-4]$"})", userInput("Please press sw1")));
  EXPECT_FALSE(matches(R"({"regex": "^press"})", userInput("Please press sw1")));
  EXPECT_TRUE(
      matches(R"({"regex": "^please", "ignore_case": true})", userInput("Please press sw1")));
}

TEST(RuleMatch, EnvConditionsUseDecodedFeedback) {
  EXPECT_TRUE(matches(R"({"env": "all_succeeded"})", envInput(kPressed)));
  EXPECT_FALSE(matches(R"({"env": "any_failure"})", envInput(kPressed)));
  EXPECT_TRUE(matches(R"({"env": "any_failure"})", envInput(kWrongButton)));
  EXPECT_FALSE(matches(R"({"env": "error_present"})", envInput(kWrongButton)));
  EXPECT_TRUE(matches(R"({"env": "error_present"})",
                      envInput(R"({"error": "blocked", "previous_tool_call": {"left": "pick"}})")));
  EXPECT_TRUE(matches(R"({"env": "any_failure"})", envInput(R"({"error": "blocked"})")));
  EXPECT_FALSE(matches(R"({"env": "all_succeeded"})", envInput("not json at all")));
  EXPECT_FALSE(matches(R"({"env": "all_succeeded"})", userInput(kPressed)));
}

TEST(RuleMatch, OutcomeFilters) {
  EXPECT_TRUE(
      matches(R"({"outcome": {"robot": "panda", "tool": "press_button", "succeeded": true}})",
              envInput(kPressed)));
  EXPECT_FALSE(matches(R"({"outcome": {"succeeded": false}})", envInput(kPressed)));
  EXPECT_FALSE(matches(R"({"outcome": {"robot": "arm1"}})", envInput(kPressed)));
  EXPECT_TRUE(matches(R"({"outcome": {"message_contains": "No objects corresponding"}})",
                      envInput(kWrongButton)));
}

TEST(RuleMatch, MemoryContainsLooksAtRulesAndUserEntries) {
  const Json memory = testing::parse(R"({"memory_list": ["Only arm1 can inspect objects."],
    "history": [{"author": "USER", "content": "Each time you are asked to press a button, press sw0 first"},
                {"author": "MODEL", "content": "{\"say\": \"ok, sw5\", \"action\": {}}"}]})");
  AgentInput input = userInput("Please press sw2");
  input.memory = memory;
  EXPECT_TRUE(matches(R"({"memory_contains": "press sw0 first"})", input));
  EXPECT_TRUE(matches(R"({"memory_contains": "Only arm1"})", input));
  EXPECT_FALSE(matches(R"({"memory_contains": "sw5"})", input));  // MODEL entries are not read
}

TEST(RuleMatch, StageFailuresCountSinceTheLastUserEntry) {
  AgentInput input = envInput(kWrongButton);
  input.memory = Json{{"history",
                       {{{"author", "USER"}, {"content", "old stage"}},
                        {{"author", "SYSTEM"}, {"content", kWrongButton}},
                        {{"author", "USER"}, {"content", "Please press the last button"}},
                        {{"author", "MODEL"}, {"content", "{}"}}}}};
  EXPECT_EQ(RuleInput(input).stageFailures(), 1);
  EXPECT_TRUE(matches(R"({"max_stage_failures": 1})", input));
  input.memory["history"].push_back({{"author", "SYSTEM"}, {"content", kWrongButton}});
  EXPECT_EQ(RuleInput(input).stageFailures(), 2);
  EXPECT_FALSE(matches(R"({"max_stage_failures": 1})", input));
  EXPECT_EQ(RuleInput(userInput("new stage")).stageFailures(), 0);
}

TEST(RuleMatch, FirstMatchingRuleWinsAndCapturesFeedTheDecision) {
  const Script rules = script(R"js({"rules": [
    {"name": "a", "when": {"regex": "press (sw\\d+)"},
     "then": {"tool_calls": [{"name": "press_button", "arguments": {"id": "${match:1}"}}]}},
    {"name": "b", "when": {"type": "user"}, "then": {"say": "b"}}]})js");
  const ChosenDecision chosen = choose(rules, userInput("Please press sw3"));
  EXPECT_EQ(chosen.rule_name, "a");
  ASSERT_EQ(chosen.decision.tool_calls.size(), 1u);
  EXPECT_EQ(chosen.decision.tool_calls[0].name, "press_button");
  EXPECT_EQ(chosen.decision.tool_calls[0].arguments, (Json{{"id", "sw3"}}));
  EXPECT_EQ(chosen.decision.tool_calls[0].target_robot_name, "panda");
  EXPECT_EQ(chosen.decision.say, "");
  EXPECT_EQ(choose(rules, userInput("hello")).rule_name, "b");
}

TEST(RuleMatch, UndeclaredToolFallsThrough) {
  const Script rules = script(R"({"rules": [
    {"name": "toggle", "then": {"tool_calls": [{"name": "toggle_button", "arguments": {"id": "sw1"}}]}},
    {"name": "press", "then": {"tool_calls": [{"name": "press_button", "arguments": {"id": "sw1"}}]}}]})");
  EXPECT_EQ(choose(rules, userInput("go")).rule_name, "press");

  AgentInput renamed = userInput("go");  // a randomised scenario (§12.2)
  renamed.tools = testing::parse(R"([{"name": "toggle_button", "arguments": {}}])");
  EXPECT_EQ(choose(rules, renamed).rule_name, "toggle");

  AgentInput no_tools = userInput("go");
  no_tools.tools = Json::array();
  const ChosenDecision neutral = choose(rules, no_tools);
  EXPECT_EQ(neutral.rule_name, "default");
  EXPECT_FALSE(neutral.decision.say.empty());
  EXPECT_TRUE(neutral.decision.tool_calls.empty());
}

TEST(RuleMatch, UnknownRobotOrUnresolvedVariableFallsThrough) {
  const Script rules = script(R"({"rules": [
    {"name": "ghost", "then": {"tool_calls": [{"name": "press_button", "robot": "ghost"}]}},
    {"name": "second-robot", "then": {"tool_calls": [{"name": "press_button", "robot": "${robot:1}"}]}},
    {"name": "capture", "then": {"say": "${match:1}"}}],
    "default": {"say": "fallback"}})");
  const ChosenDecision chosen = choose(rules, userInput("go"));
  EXPECT_EQ(chosen.rule_name, "default");
  EXPECT_EQ(chosen.decision.say, "fallback");
}

TEST(RuleMatch, EnvVariablesComeFromTheSelectedLine) {
  const Script rules = script(R"({"rules": [
    {"when": {"type": "env", "outcome": {"succeeded": true}}, "then": {"say": "Done, ${arg} is pressed by ${outcome:robot}."}}]})");
  EXPECT_EQ(choose(rules, envInput(kPressed)).decision.say, "Done, sw1 is pressed by panda.");
}

TEST(RuleMatch, RepeatPreviousReissuesTheCalls) {
  const Script rules = script(R"({"rules": [{"then": {"repeat_previous": true}}]})");
  const ChosenDecision chosen = choose(rules, envInput(kWrongButton));
  ASSERT_EQ(chosen.decision.tool_calls.size(), 1u);
  EXPECT_EQ(chosen.decision.tool_calls[0].arguments, (Json{{"id", "sw9"}}));
  EXPECT_EQ(chosen.decision.tool_calls[0].target_robot_name, "panda");
  // The BENCH unit-test payload whose map value is a string cannot be repeated.
  EXPECT_EQ(
      choose(rules, envInput(R"({"error": "blocked", "previous_tool_call": {"left": "pick"}})"))
          .rule_name,
      "default");
}

TEST(RuleMatch, AlternativesByCandidateIndex) {
  const Script rules = script(
      R"({"rules": [{"then": {"alternatives": [{"say": "a"}, {"say": "b"}, {"say": "c"}]}}]})");
  const AgentInput input = userInput("x");
  EXPECT_EQ(choose(rules, input, 0).decision.say, "a");
  EXPECT_EQ(choose(rules, input, 1).decision.say, "b");
  EXPECT_EQ(choose(rules, input, 2).decision.say, "c");
  EXPECT_EQ(choose(rules, input, 4).decision.say, "b");
  EXPECT_EQ(choose(rules, input, 4).alternative, 1u);
}

TEST(RuleMatch, HonouredGreedyModeGivesEveryCandidateTheFirstAlternative) {
  const Script rules = script(R"({"honour_inference_mode": true,
    "rules": [{"then": {"alternatives": [{"say": "a"}, {"say": "b"}]}}]})");
  AgentInput input = userInput("x");
  EXPECT_EQ(choose(rules, input, 1).decision.say, "a");  // inference_mode true
  input.extra_keys = Json{{"inference_mode", false}};
  EXPECT_EQ(choose(rules, input, 1).decision.say, "b");
}

TEST(RuleMatch, ErrorDecision) {
  const Script rules = script(R"({"rules": [{"then": {"error": {"code": "invalid_output",
    "message": "bad ${content}", "component": "scripted"}, "output_raw": "<tool_call>{"}}]})");
  const ChosenDecision chosen = choose(rules, userInput("x"));
  EXPECT_EQ(chosen.kind, ChosenDecision::Kind::Error);
  EXPECT_EQ(chosen.error.code, "invalid_output");
  EXPECT_EQ(chosen.error.message, "bad x");
  EXPECT_EQ(chosen.error.component, "scripted");
  EXPECT_EQ(chosen.output_raw, "<tool_call>{");
}

TEST(RuleMatch, HugeContentNeverMatchesARegex) {
  EXPECT_FALSE(matches(R"({"regex": "a"})", userInput(std::string(kMaxRegexSubject + 1, 'a'))));
  EXPECT_TRUE(matches(R"({"contains": "a"})", userInput(std::string(kMaxRegexSubject + 1, 'a'))));
}

}  // namespace
}  // namespace agentvcr::sim::magma
