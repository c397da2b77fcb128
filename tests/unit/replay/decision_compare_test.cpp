#include "agentvcr/replay/decision_compare.hpp"

#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

using protocol::Json;

Json input() {
  return Json::parse(R"({"id":1,"instruction":{"type":"user","content":"press sw1"},
    "tools":[{"name":"press_button"},{"name":"cancel_current_action"}],
    "attributes":{"known_robots":["panda","arm2"]},"memory":{},"num_outputs":1,"extra_keys":{}})");
}

Json toolCall(const std::string& name, const std::string& robot, const std::string& id) {
  return Json{{"name", name}, {"arguments", {{"id", id}}}, {"target_robot_name", robot}};
}

Json completed(std::int64_t index, const std::string& say, Json calls = Json::array()) {
  return Json{{"request_id", "r"},
              {"source_id", 1},
              {"candidate_index", index},
              {"status", "completed"},
              {"memory", Json::object()},
              {"internal_steps", Json::array()},
              {"output", {{"say", say}, {"tool_calls", std::move(calls)}}},
              {"error", nullptr}};
}

Json failed(std::int64_t index, const std::string& code) {
  Json output = completed(index, "");
  output["status"] = "error";
  output["output"] = nullptr;
  output["error"] = {{"code", code}, {"message", "boom"}, {"component", nullptr}};
  return output;
}

TEST(NormaliseSay, FoldsWhitespaceAndCase) {
  EXPECT_EQ(normaliseSay("  Hello \n\tWORLD  "), "hello world");
  EXPECT_EQ(normaliseSay(""), "");
}

TEST(DecisionKind, NamesEachKind) {
  EXPECT_EQ(decisionKind(completed(0, "hi")), "say");
  EXPECT_EQ(decisionKind(completed(0, "", Json::array({toolCall("a", "b", "c")}))), "tool_calls");
  EXPECT_EQ(decisionKind(completed(0, "hi", Json::array({toolCall("a", "b", "c")}))), "mixed");
  EXPECT_EQ(decisionKind(completed(0, "")), "empty");
  EXPECT_EQ(decisionKind(failed(0, "x")), "error");
}

TEST(CompareDecisions, IdenticalOutputsMatchIgnoringIdsAndMemory) {
  Json recorded =
      Json::array({completed(0, "", Json::array({toolCall("press_button", "panda", "sw1")}))});
  Json live = recorded;
  live[0]["request_id"] = "other";
  live[0]["memory"] = {{"history", Json::array({1})}};
  auto result = compareDecisions(input(), recorded, live);
  EXPECT_TRUE(result.match);
  EXPECT_TRUE(result.allDifferences().empty());
}

TEST(CompareDecisions, SayEqualOnlyOnceNormalisedStillMatchesAndSaysSo) {
  auto result = compareDecisions(input(), Json::array({completed(0, "Done.")}),
                                 Json::array({completed(0, "  done. ")}));
  EXPECT_TRUE(result.match);
  EXPECT_TRUE(result.say_normalised);
  EXPECT_EQ(result.candidates.at(0).say, SayMatch::Normalised);
}

TEST(CompareDecisions, NamesChangedToolRobotArgumentsAndSay) {
  Json recorded =
      Json::array({completed(0, "", Json::array({toolCall("press_button", "panda", "sw1")})),
                   completed(1, "hello")});
  Json live = Json::array(
      {completed(0, "", Json::array({toolCall("cancel_current_action", "arm2", "sw2")})),
       completed(1, "goodbye")});
  auto result = compareDecisions(input(), recorded, live);
  EXPECT_FALSE(result.match);
  const auto all = result.allDifferences();
  const std::vector<std::string> expected = {
      "candidate 0: tool call 0 name \"press_button\" vs \"cancel_current_action\"",
      "candidate 0: tool call 0 robot \"panda\" vs \"arm2\"",
      "candidate 0: tool call 0 arguments differ at /id",
      "candidate 1: say \"hello\" vs \"goodbye\"",
  };
  EXPECT_EQ(all, expected);
}

TEST(CompareDecisions, ShowsBothSaysAndCodesShortenedToOneLine) {
  const std::string long_say =
      "Done.\n\nI pressed   the button, then waited for the light to turn green.";
  auto say = compareDecisions(input(), Json::array({completed(0, "Done.")}),
                              Json::array({completed(0, long_say)}));
  const std::vector<std::string> says = {
      "candidate 0: say \"Done.\" vs \"Done. I pressed the button, then waited…\""};
  EXPECT_EQ(say.allDifferences(), says);
  auto code = compareDecisions(
      input(), Json::array({failed(0, "agent_failure")}),
      Json::array({failed(0, "an_error_code_far_longer_than_forty_characters_ok")}));
  const std::vector<std::string> codes = {
      "candidate 0: error code \"agent_failure\" vs "
      "\"an_error_code_far_longer_than_forty_char…\""};
  EXPECT_EQ(code.allDifferences(), codes);
}

TEST(CompareDecisions, ErrorCandidateAgainstADecision) {
  auto result = compareDecisions(input(), Json::array({completed(0, "hi")}),
                                 Json::array({failed(0, "agent_failure")}));
  EXPECT_FALSE(result.match);
  const std::vector<std::string> expected = {
      "candidate 0: status \"completed\" vs \"error\"",
      "candidate 0: kind say vs error",
      "candidate 0: error code \"\" vs \"agent_failure\"",
  };
  EXPECT_EQ(result.allDifferences(), expected);
}

TEST(CompareDecisions, MissingSlotsAndUndeclaredToolsAndRobots) {
  Json live = Json::array({completed(0, "", Json::array({toolCall("fly", "ghost", "x")}))});
  auto result = compareDecisions(input(), live, live);
  EXPECT_FALSE(result.match);
  const std::vector<std::string> findings = {
      "candidate 0: tool call 0 names undeclared tool \"fly\"",
      "candidate 0: tool call 0 targets unknown robot \"ghost\"",
  };
  EXPECT_EQ(result.tool_findings, findings);

  auto missing = compareDecisions(input(), Json::array({completed(0, "a"), completed(1, "b")}),
                                  Json::array({completed(0, "a")}));
  EXPECT_FALSE(missing.match);
  EXPECT_EQ(missing.allDifferences(), std::vector<std::string>{"candidate 1: missing live"});
}

TEST(CompareDecisions, OddJsonNeverThrows) {
  EXPECT_NO_THROW(compareDecisions(Json(3), Json("x"), Json::array({Json(1), Json::object()})));
}

}  // namespace
}  // namespace agentvcr::replay
