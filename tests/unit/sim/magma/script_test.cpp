#include "agentvcr/sim/magma/script.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using testing::parse;

ScriptLoad load(std::string_view text) {
  return parseScript(parse(text));
}

TEST(ScriptLoad, EmptyScriptUsesDefaults) {
  const ScriptLoad result = load("{}");
  ASSERT_TRUE(result.script) << result.error;
  EXPECT_EQ(result.script->info.agent_id, "agentvcr-scripted");
  EXPECT_EQ(result.script->info.capabilities.at("inference"), true);
  EXPECT_EQ(result.script->info.capabilities.at("coaching"), false);
  EXPECT_FALSE(result.script->info.coaching_resume);
  EXPECT_EQ(result.script->component, "scripted");
  EXPECT_EQ(result.script->fallback.kind, DecisionTemplate::Kind::Say);
  EXPECT_TRUE(result.script->rules.empty());
}

TEST(ScriptLoad, ReadsIdentityRulesAndAlternatives) {
  const ScriptLoad result = load(R"({
    "agent": {"agent_id": "demo", "agent_version": "2.0.0", "capabilities": {"inference": true},
              "coaching_unavailable_reason": null},
    "rules": [
      {"name": "hello", "when": {"type": "user", "regex": "hel+o", "ignore_case": true},
       "then": {"say": "Hi"}},
      {"when": {"type": "env", "env": "any_failure", "outcome": {"tool": "t", "succeeded": false}},
       "then": {"alternatives": [{"repeat_previous": true}, {"say": "no"}]}}
    ],
    "default": {"error": {"code": "c", "message": "m"}, "output_raw": "raw"}})");
  ASSERT_TRUE(result.script) << result.error;
  const Script& script = *result.script;
  EXPECT_EQ(script.info.agent_id, "demo");
  EXPECT_FALSE(script.info.coaching_unavailable_reason.has_value());
  ASSERT_EQ(script.rules.size(), 2u);
  EXPECT_EQ(script.rules[0].name, "hello");
  EXPECT_TRUE(script.rules[0].when.regex.has_value());
  EXPECT_EQ(script.rules[1].name, "rule-1");
  ASSERT_EQ(script.rules[1].alternatives.size(), 2u);
  EXPECT_EQ(script.rules[1].alternatives[0].kind, DecisionTemplate::Kind::RepeatPrevious);
  EXPECT_EQ(script.rules[1].when.env, EnvCondition::AnyFailure);
  EXPECT_EQ(script.fallback.kind, DecisionTemplate::Kind::Error);
  EXPECT_EQ(script.fallback.output_raw, "raw");
}

struct BadScript {
  const char* name;
  const char* text;
  const char* error;  ///< expected prefix of the error
};

void PrintTo(const BadScript& bad, std::ostream* out) {
  *out << bad.name;
}

class ScriptLoadErrors : public ::testing::TestWithParam<BadScript> {};

TEST_P(ScriptLoadErrors, ReportsWhereAndWhy) {
  const ScriptLoad result = load(GetParam().text);
  EXPECT_FALSE(result.script.has_value());
  EXPECT_EQ(result.error.rfind(GetParam().error, 0), 0u) << result.error;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ScriptLoadErrors,
    ::testing::Values(
        BadScript{"not_object", R"([])", "/: expected an object"},
        BadScript{"unknown_key", R"({"rulez": []})", "/rulez: unknown key"},
        BadScript{"mixed_decision", R"({"rules": [{"then": {"say": "a", "tool_calls": []}}]})",
                  "/rules/0/then: a decision has exactly one of say, tool_calls, repeat_previous, "
                  "error"},
        BadScript{"bad_regex", R"({"rules": [{"when": {"regex": "("}, "then": {"say": "a"}}]})",
                  "/rules/0/when/regex: invalid regex: "
                  ""},
        BadScript{
            "env_on_user",
            R"({"rules": [{"when": {"type": "user", "env": "any_failure"}, "then": {"say": "a"}}]})",
            "/rules/0/when: env and outcome conditions need type \"env\""},
        BadScript{"missing_tool_name",
                  R"({"rules": [{"then": {"tool_calls": [{"arguments": {}}]}}]})",
                  "/rules/0/then/tool_calls/0/name: required"},
        BadScript{"empty_alternatives", R"({"rules": [{"then": {"alternatives": []}}]})",
                  "/rules/0/then/alternatives: expected a non-empty list"},
        BadScript{"default_repeat", R"({"default": {"repeat_previous": true}})",
                  "/default: the default decision is a say or an error"},
        BadScript{"empty_agent_id", R"({"agent": {"agent_id": ""}})",
                  "/agent/agent_id: must not be empty"},
        BadScript{"negative_failures",
                  R"({"rules": [{"when": {"max_stage_failures": -1}, "then": {"say": "a"}}]})",
                  "/rules/0/when/max_stage_failures: expected a non-negative integer"}));

TEST(ScriptLoad, TextThatIsNotJson) {
  const ScriptLoad result = parseScriptText("{oops");
  EXPECT_FALSE(result.script.has_value());
  EXPECT_NE(result.error.find("invalid JSON at byte"), std::string::npos);
}

TEST(ScriptLoad, ShippedDemoScriptLoads) {
  const ScriptLoad result = parseScriptText(testing::readFixture("demo/agent-script.json"));
  ASSERT_TRUE(result.script) << result.error;
  EXPECT_EQ(result.script->info.agent_id, "agentvcr-scripted-demo");
  EXPECT_GE(result.script->rules.size(), 10u);
}

}  // namespace
}  // namespace agentvcr::sim::magma
