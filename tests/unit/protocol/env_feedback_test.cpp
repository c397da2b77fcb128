#include "agentvcr/protocol/env_feedback.hpp"

#include <gtest/gtest.h>

#include "protocol_test_util.hpp"

namespace agentvcr::protocol {
namespace {

using test::json;

// magma-protocol.md §11.2 and §19, as json.dumps builds them (", " separators).
constexpr const char* kSuccess =
    R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";

constexpr const char* kRejected =
    R"({"infos": "panda: press_button failed with message: No objects corresponding to id = sw9. You must pass the id of the object to take.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw9"}}}})";

constexpr const char* kObjectsState =
    R"({"infos": "arm1: get_objects_state succeed with message: This is the position of existing objects: apple_0, banana_1 are in the right area. orange_2 are in the left area. Damaged objects: banana_1. ", "previous_tool_call": {"arm1": {"name": "get_objects_state", "arguments": {}}}})";

TEST(EnvFeedback, SuccessLine) {
  EnvFeedback feedback = decodeEnvFeedback(kSuccess);
  EXPECT_TRUE(feedback.is_json_object);
  EXPECT_EQ(feedback.raw, kSuccess);
  ASSERT_EQ(feedback.outcomes.size(), 1U);
  EXPECT_EQ(feedback.outcomes[0].robot, "panda");
  EXPECT_EQ(feedback.outcomes[0].tool, "press_button");
  EXPECT_TRUE(feedback.outcomes[0].succeeded);
  EXPECT_EQ(feedback.outcomes[0].message, "You have the sw1 button pressed.");
  EXPECT_TRUE(feedback.other_lines.empty());
  EXPECT_EQ(feedback.previous_tool_call,
            json(R"({"panda": {"name": "press_button", "arguments": {"id": "sw1"}}})"));
  EXPECT_FALSE(feedback.error);
  EXPECT_FALSE(feedback.failure_reason);
  EXPECT_FALSE(feedback.anyFailure());
}

TEST(EnvFeedback, FailureLine) {
  EnvFeedback feedback = decodeEnvFeedback(kRejected);
  ASSERT_EQ(feedback.outcomes.size(), 1U);
  EXPECT_FALSE(feedback.outcomes[0].succeeded);
  EXPECT_EQ(feedback.outcomes[0].tool, "press_button");
  EXPECT_EQ(feedback.outcomes[0].message,
            "No objects corresponding to id = sw9. You must pass the id of the object to take.");
  EXPECT_TRUE(feedback.anyFailure());
}

TEST(EnvFeedback, MessageKeepsColonsAndTrailingSpace) {
  EnvFeedback feedback = decodeEnvFeedback(kObjectsState);
  ASSERT_EQ(feedback.outcomes.size(), 1U);
  EXPECT_EQ(feedback.outcomes[0].robot, "arm1");
  EXPECT_EQ(feedback.outcomes[0].message,
            "This is the position of existing objects: apple_0, banana_1 are in the right area. "
            "orange_2 are in the left area. Damaged objects: banana_1. ");
}

TEST(EnvFeedback, ContentAsSentInsideARequestDecodes) {
  // The instruction content of §19 A2, taken from the parsed request body.
  Json instruction = json(
      R"({"type": "env", "content": "{\"infos\": \"panda: press_button succeed with message: You have the sw1 button pressed.\", \"previous_tool_call\": {\"panda\": {\"name\": \"press_button\", \"arguments\": {\"id\": \"sw1\"}}}}"})");
  EnvFeedback feedback = decodeEnvFeedback(instruction["content"].get<std::string>());
  ASSERT_EQ(feedback.outcomes.size(), 1U);
  EXPECT_TRUE(feedback.outcomes[0].succeeded);
}

TEST(EnvFeedback, MultiRobotLines) {
  Json payload = {{"infos",
                   "arm1: deplace failed with message: Object banana_1 is out of range for robot "
                   "arm1\narm2: deplace succeed with message: Successfully depose banana_1 to "
                   "mutual_zone"},
                  {"previous_tool_call", json(R"({"arm1": {"name": "deplace", "arguments": {}},
                                                  "arm2": {"name": "deplace", "arguments": {}}})")}};
  EnvFeedback feedback = decodeEnvFeedback(payload.dump());
  ASSERT_EQ(feedback.outcomes.size(), 2U);
  EXPECT_EQ(feedback.outcomes[0].robot, "arm1");
  EXPECT_FALSE(feedback.outcomes[0].succeeded);
  EXPECT_EQ(feedback.outcomes[0].message, "Object banana_1 is out of range for robot arm1");
  EXPECT_EQ(feedback.outcomes[1].robot, "arm2");
  EXPECT_TRUE(feedback.outcomes[1].succeeded);
  EXPECT_EQ(feedback.outcomes[1].message, "Successfully depose banana_1 to mutual_zone");
  EXPECT_TRUE(feedback.anyFailure());
}

TEST(EnvFeedback, BenchTestPayloadWithStringMapValue) {
  // BENCH's unit test: an error and a previous_tool_call whose value is a string.
  EnvFeedback feedback =
      decodeEnvFeedback(R"({"error": "blocked", "previous_tool_call": {"left": "pick"}})");
  EXPECT_TRUE(feedback.is_json_object);
  EXPECT_EQ(feedback.error, "blocked");
  EXPECT_FALSE(feedback.infos);
  EXPECT_EQ(feedback.previous_tool_call, json(R"({"left": "pick"})"));
  EXPECT_TRUE(feedback.outcomes.empty());
  EXPECT_TRUE(feedback.anyFailure());
}

TEST(EnvFeedback, SeedTextOnlyStageError) {
  Json instruction = json(
      R"({"type":"env","content":"{\"error\":\"The answer called a tool, but this text-only stage requires a user-facing response and does not allow tool calls.\"}"})");
  EnvFeedback feedback = decodeEnvFeedback(instruction["content"].get<std::string>());
  EXPECT_EQ(feedback.error,
            "The answer called a tool, but this text-only stage requires a user-facing response "
            "and does not allow tool calls.");
  EXPECT_TRUE(feedback.previous_tool_call.is_null());
  EXPECT_TRUE(feedback.anyFailure());
}

TEST(EnvFeedback, FailureReasonIsAFailure) {
  EnvFeedback feedback = decodeEnvFeedback(
      R"({"infos": "arm1: deplace succeed with message: ok", "previous_tool_call": {}, "failure_reason": "Injected error: gripper jammed"})");
  EXPECT_EQ(feedback.failure_reason, "Injected error: gripper jammed");
  EXPECT_TRUE(feedback.outcomes[0].succeeded);
  EXPECT_TRUE(feedback.anyFailure());
}

TEST(EnvFeedback, CompletedActionIsAnOtherLine) {
  EnvFeedback feedback =
      decodeEnvFeedback(R"({"infos": "The action has completed.", "previous_tool_call": {}})");
  EXPECT_TRUE(feedback.outcomes.empty());
  EXPECT_EQ(feedback.other_lines, std::vector<std::string>{"The action has completed."});
  EXPECT_FALSE(feedback.anyFailure());
}

TEST(EnvFeedback, MalformedLinesGoToOtherLines) {
  Json payload = {{"infos",
                   "no colon here\n"
                   ": press_button succeed with message: no robot\n"
                   "panda: succeed with message: no tool\n"
                   "panda: press_button did nothing\n"
                   "\n"
                   "panda: press_button succeed with message: fine"}};
  EnvFeedback feedback = decodeEnvFeedback(payload.dump());
  ASSERT_EQ(feedback.outcomes.size(), 1U);
  EXPECT_EQ(feedback.outcomes[0].message, "fine");
  EXPECT_EQ(feedback.other_lines,
            (std::vector<std::string>{
                "no colon here", ": press_button succeed with message: no robot",
                "panda: succeed with message: no tool", "panda: press_button did nothing"}));
}

TEST(EnvFeedback, EmptyMessagesAndTheFirstMarkerWins) {
  Json payload = {{"infos",
                   "panda: action succeed with message: \n"
                   "panda: action failed with message:\n"
                   "arm1: take failed with message: retry says x succeed with message: y"}};
  EnvFeedback feedback = decodeEnvFeedback(payload.dump());
  ASSERT_EQ(feedback.outcomes.size(), 3U);
  EXPECT_TRUE(feedback.outcomes[0].succeeded);
  EXPECT_EQ(feedback.outcomes[0].tool, "action");
  EXPECT_EQ(feedback.outcomes[0].message, "");
  EXPECT_FALSE(feedback.outcomes[1].succeeded);
  EXPECT_EQ(feedback.outcomes[1].message, "");
  EXPECT_FALSE(feedback.outcomes[2].succeeded);
  EXPECT_EQ(feedback.outcomes[2].message, "retry says x succeed with message: y");
}

TEST(EnvFeedback, NonStringMembersKeepTheirJsonText) {
  EnvFeedback feedback =
      decodeEnvFeedback(R"({"infos": ["a"], "error": {"code": 3}, "failure_reason": null})");
  EXPECT_EQ(feedback.infos, R"(["a"])");
  EXPECT_EQ(feedback.error, R"({"code":3})");
  EXPECT_EQ(feedback.failure_reason, "null");
  EXPECT_EQ(feedback.other_lines, std::vector<std::string>{R"(["a"])"});
}

TEST(EnvFeedback, NonJsonContentKeepsRawOnly) {
  for (const char* content : {"The robot fell over.", "", "{\"infos\": ", "[1, 2]", "\"text\""}) {
    EnvFeedback feedback = decodeEnvFeedback(content);
    EXPECT_FALSE(feedback.is_json_object) << content;
    EXPECT_EQ(feedback.raw, content);
    EXPECT_FALSE(feedback.infos);
    EXPECT_FALSE(feedback.error);
    EXPECT_TRUE(feedback.outcomes.empty());
    EXPECT_TRUE(feedback.other_lines.empty());
    EXPECT_TRUE(feedback.previous_tool_call.is_null());
    EXPECT_FALSE(feedback.anyFailure());
  }
}

TEST(EnvFeedback, ToJsonOmitsAbsentKeys) {
  EXPECT_EQ(
      toJson(decodeEnvFeedback(kSuccess)),
      json(
          R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.",
                     "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}},
                     "outcomes": [{"robot": "panda", "tool": "press_button", "succeeded": true,
                                   "message": "You have the sw1 button pressed."}],
                     "other_lines": []})"));
  EXPECT_EQ(toJson(decodeEnvFeedback(R"({"error": "blocked"})")),
            json(R"({"error": "blocked", "outcomes": [], "other_lines": []})"));
  EXPECT_EQ(toJson(decodeEnvFeedback("plain")), json(R"({"outcomes": [], "other_lines": []})"));
}

}  // namespace
}  // namespace agentvcr::protocol
