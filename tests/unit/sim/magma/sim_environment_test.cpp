#include "agentvcr/sim/magma/sim_environment.hpp"

#include <gtest/gtest.h>

namespace agentvcr::sim::magma {
namespace {

using Ordered = nlohmann::ordered_json;
using protocol::magma::ToolCall;

SimEnvironment pressWorld() {
  const Ordered attributes = Ordered::parse(
      R"({"objects": ["sw0", "sw1", "sw2", "sw3", "sw4"], "known_robots": ["panda"]})");
  SimEnvironment::Load load = SimEnvironment::fromJson({{"kind", "press_button"}}, attributes);
  EXPECT_TRUE(load.env.has_value()) << load.error;
  return std::move(*load.env);
}

SimEnvironment sortingWorld() {
  const Ordered sim = Ordered::parse(R"({"kind": "bi_robot_sorting",
    "objects": [{"name": "apple_0", "area": "right_zone", "damaged": false},
                {"name": "banana_1", "area": "right_zone", "damaged": true},
                {"name": "orange_2", "area": "left_zone"}],
    "reach": {"arm1": ["left_zone", "mutual_zone"], "arm2": ["mutual_zone", "right_zone"]}})");
  const Ordered attributes = Ordered::parse(R"({"known_robots": ["arm1", "arm2"]})");
  SimEnvironment::Load load = SimEnvironment::fromJson(sim, attributes);
  EXPECT_TRUE(load.env.has_value()) << load.error;
  return std::move(*load.env);
}

TEST(SimEnvironment, PressKnownButtonSucceeds) {
  SimEnvironment env = pressWorld();
  const ExecutionReport report = env.execute({{"press_button", {{"id", "sw1"}}, "panda"}});
  EXPECT_EQ(
      buildEnvContent(report),
      R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})");
  EXPECT_EQ(std::get<PressButtonWorld>(env.world()).pressed.count("sw1"), 1u);
}

TEST(SimEnvironment, PressUnknownButtonFailsWithSpecMessage) {
  SimEnvironment env = pressWorld();
  const ExecutionReport report = env.execute({{"press_button", {{"id", "sw9"}}, "panda"}});
  ASSERT_EQ(report.lines.size(), 1u);
  EXPECT_FALSE(report.lines[0].succeeded);
  EXPECT_EQ(report.lines[0].message,
            "No objects corresponding to id = sw9. You must pass the id of the object to take.");
}

TEST(SimEnvironment, RepeatedRobotKeepsOneLineAndItsLastCall) {
  SimEnvironment env = pressWorld();
  const ExecutionReport report = env.execute(
      {{"press_button", {{"id", "sw0"}}, "panda"}, {"press_button", {{"id", "sw2"}}, "panda"}});
  ASSERT_EQ(report.lines.size(), 1u);
  EXPECT_EQ(report.lines[0].message, "You have the sw2 button pressed.");
  EXPECT_EQ(report.previous_tool_call.dump(),
            R"({"panda":{"name":"press_button","arguments":{"id":"sw2"}}})");
  EXPECT_EQ(std::get<PressButtonWorld>(env.world()).pressed.size(), 2u);
}

TEST(SimEnvironment, AfterAFailureTheRobotsLaterCallsAreSkipped) {
  SimEnvironment env = pressWorld();
  const ExecutionReport report = env.execute(
      {{"press_button", {{"id", "sw9"}}, "panda"}, {"press_button", {{"id", "sw2"}}, "panda"}});
  ASSERT_EQ(report.lines.size(), 1u);
  EXPECT_FALSE(report.lines[0].succeeded);
  EXPECT_TRUE(std::get<PressButtonWorld>(env.world()).pressed.empty());
  EXPECT_EQ(report.previous_tool_call["panda"]["arguments"]["id"], "sw2");
}

TEST(SimEnvironment, UnknownToolRobotAndBadArguments) {
  SimEnvironment env = pressWorld();
  ExecutionReport report = env.execute({{"fly", Ordered::object(), "panda"}});
  EXPECT_EQ(report.lines[0].message, "fly is not a known tool.");
  report = env.execute({{"press_button", {{"id", "sw1"}}, "ghost"}});
  EXPECT_EQ(report.lines[0].message, "ghost is not a known robot.");
  report = env.execute({{"press_button", {{"id", 3}}, "panda"}});
  EXPECT_FALSE(report.lines[0].succeeded);
  EXPECT_EQ(report.lines[0].message, "Invalid arguments for press_button: id must be a str.");
}

TEST(SimEnvironment, CancelAndStartOnOneRobotFails) {
  SimEnvironment env = pressWorld();
  ExecutionReport report = env.execute({{"cancel_current_action", Ordered::object(), "panda"}});
  EXPECT_TRUE(report.lines[0].succeeded);
  EXPECT_EQ(report.lines[0].message, "No action is currently running on this robot.");
  report = env.execute({{"cancel_current_action", Ordered::object(), "panda"},
                        {"press_button", {{"id", "sw1"}}, "panda"}});
  EXPECT_FALSE(report.lines[0].succeeded);
  EXPECT_EQ(report.lines[0].message,
            "Cannot cancel and start an action on the same robot in one answer.");
}

TEST(SimEnvironment, SortingInspectionListsAreasAndDamage) {
  SimEnvironment env = sortingWorld();
  const ExecutionReport report = env.execute({{"get_objects_state", Ordered::object(), "arm1"}});
  EXPECT_EQ(report.lines[0].message,
            "This is the position of existing objects: apple_0, banana_1 are in the right area. "
            "orange_2 are in the left area. Damaged objects: banana_1. ");
}

TEST(SimEnvironment, SortingMoveRespectsReach) {
  SimEnvironment env = sortingWorld();
  const Ordered move = {{"object", "banana_1"}, {"target_area", "mutual_zone"}};
  ExecutionReport report = env.execute({{"deplace", move, "arm1"}});
  EXPECT_FALSE(report.lines[0].succeeded);
  EXPECT_EQ(report.lines[0].message, "The area right_zone is out of range for robot arm1.");
  report = env.execute({{"deplace", move, "arm2"}});
  EXPECT_TRUE(report.lines[0].succeeded);
  EXPECT_EQ(report.lines[0].message, "Successfully depose banana_1 to mutual_zone");
  report = env.execute({{"deplace", {{"object", "kiwi"}, {"target_area", "left_zone"}}, "arm1"}});
  EXPECT_EQ(report.lines[0].message,
            "No objects corresponding to id = kiwi. You must pass the id of the object to take.");
}

TEST(SimEnvironment, CopiesAreIndependentWorlds) {
  SimEnvironment first = pressWorld();
  SimEnvironment second = first;
  first.execute({{"press_button", {{"id", "sw1"}}, "panda"}});
  EXPECT_TRUE(std::get<PressButtonWorld>(second.world()).pressed.empty());
}

TEST(SimEnvironment, RejectsBadDefinitions) {
  const Ordered robots = Ordered::parse(R"({"known_robots": ["panda"]})");
  EXPECT_FALSE(SimEnvironment::fromJson({{"kind", "press_button"}}, Ordered::object()).env);
  EXPECT_FALSE(SimEnvironment::fromJson({{"kind", "teleport"}}, robots).env);
  EXPECT_FALSE(SimEnvironment::fromJson({{"kind", "press_button"}}, robots).env);  // no buttons
  EXPECT_FALSE(SimEnvironment::fromJson({{"kind", "bi_robot_sorting"}}, robots).env);
  EXPECT_TRUE(SimEnvironment::fromJson(
                  {{"kind", "press_button"}, {"buttons", Ordered::array({"b1"})}}, robots)
                  .env);
}

}  // namespace
}  // namespace agentvcr::sim::magma
