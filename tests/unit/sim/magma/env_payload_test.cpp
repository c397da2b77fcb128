#include "agentvcr/sim/magma/env_payload.hpp"

#include <gtest/gtest.h>

namespace agentvcr::sim::magma {
namespace {

using Ordered = nlohmann::ordered_json;

Ordered call(const char* name, Ordered arguments) {
  Ordered out = Ordered::object();
  out["name"] = name;
  out["arguments"] = std::move(arguments);
  return out;
}

TEST(EnvPayload, SuccessMatchesSpecExampleByteForByte) {
  ExecutionReport report;
  report.lines.push_back({"panda", "press_button", true, "You have the sw1 button pressed."});
  report.previous_tool_call["panda"] = call("press_button", {{"id", "sw1"}});
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
}

TEST(EnvPayload, WrongButtonMatchesSpecExampleByteForByte) {
  ExecutionReport report;
  report.lines.push_back({"panda", "press_button", false,
                          "No objects corresponding to id = sw9. You must pass the id of the "
                          "object to take."});
  report.previous_tool_call["panda"] = call("press_button", {{"id", "sw9"}});
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "panda: press_button failed with message: No objects corresponding to id = sw9. You must pass the id of the object to take.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw9"}}}})");
}

TEST(EnvPayload, SortingExampleFromEpisodeB) {
  ExecutionReport report;
  report.lines.push_back(
      {"arm1", "get_objects_state", true,
       "This is the position of existing objects: apple_0, banana_1 are in the "
       "right area. orange_2 are in the left area. Damaged objects: banana_1. "});
  report.previous_tool_call["arm1"] = call("get_objects_state", Ordered::object());
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "arm1: get_objects_state succeed with message: This is the position of existing objects: apple_0, banana_1 are in the right area. orange_2 are in the left area. Damaged objects: banana_1. ", "previous_tool_call": {"arm1": {"name": "get_objects_state", "arguments": {}}}})");
}

TEST(EnvPayload, LinesJoinedWithNewlineThenFailureReason) {
  ExecutionReport report;
  report.lines.push_back(
      {"arm1", "deplace", false, "The area right_zone is out of range for robot arm1."});
  report.lines.push_back({"arm2", "get_objects_state", true, "ok"});
  report.previous_tool_call["arm1"] = call("deplace", {{"object", "banana_1"}});
  report.previous_tool_call["arm2"] = call("get_objects_state", Ordered::object());
  report.failure_reason = "blocked";
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "arm1: deplace failed with message: The area right_zone is out of range for robot arm1.\narm2: get_objects_state succeed with message: ok", "previous_tool_call": {"arm1": {"name": "deplace", "arguments": {"object": "banana_1"}}, "arm2": {"name": "get_objects_state", "arguments": {}}}, "failure_reason": "blocked"})");
}

TEST(EnvPayload, NothingProducedSaysTheActionHasCompleted) {
  ExecutionReport report;
  report.previous_tool_call["panda"] = call("press_button", {{"id", "sw1"}});
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "The action has completed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
}

TEST(EnvPayload, FailureReasonAloneBecomesError) {
  ExecutionReport report;
  report.failure_reason =
      "The answer called a tool, but this text-only stage requires a "
      "user-facing response and does not allow tool calls.";
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"error": "The answer called a tool, but this text-only stage requires a user-facing response and does not allow tool calls."})");
  report.failure_reason = "";
  EXPECT_EQ(buildEnvContent(report), R"({"error": "The action failed."})");
}

TEST(EnvPayload, NonAsciiMessagesAreEscaped) {
  ExecutionReport report;
  report.lines.push_back({"panda", "press_button", true, "Bouton appuy\xc3\xa9 \xf0\x9f\x91\x8d"});
  report.previous_tool_call["panda"] = call("press_button", {{"id", "sw1"}});
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "panda: press_button succeed with message: Bouton appuy\u00e9 \ud83d\udc4d", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
}

TEST(EnvPayload, InfosLineUsesTheWordSucceed) {
  EXPECT_EQ(formatInfosLine({"panda", "action", true, "done"}),
            "panda: action succeed with message: done");
  EXPECT_EQ(formatInfosLine({"panda", "action", false, "no"}),
            "panda: action failed with message: no");
}

}  // namespace
}  // namespace agentvcr::sim::magma
