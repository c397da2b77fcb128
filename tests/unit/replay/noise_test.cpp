// The noise classifier, the miss hint built on it, and findNoise()'s alignment: which paths it
// lists, and that it stops at a conversation's first real divergence.

#include "agentvcr/replay/noise.hpp"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

using protocol::Json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

TEST(VolatileKindOf, NamesTimestampsUuidsAndUnixTimes) {
  EXPECT_EQ(volatileKindOf("/a", "2026-12-03T11:14:46Z", "2026-12-03T11:15:02.125Z"),
            VolatileKind::IsoTimestamp);
  EXPECT_EQ(volatileKindOf("/a", "2026-12-03 11:14:46+01:00", "2026-12-04 09:00:00+01:00"),
            VolatileKind::IsoTimestamp);
  EXPECT_EQ(volatileKindOf("/a", "0f8fad5b-d9cb-469f-a165-70867728950e",
                           "7C9E6679-7425-40DE-944B-E07FC1F90AE7"),
            VolatileKind::Uuid);
  EXPECT_EQ(volatileKindOf("/a", 1796000000, 1796000042.5), VolatileKind::UnixTime);
  EXPECT_EQ(volatileKindOf("/a", 1796000000000, 1796000000123), VolatileKind::UnixTime);
}

TEST(VolatileKindOf, TakesNumbersForCountersOnlyUnderACounterName) {
  EXPECT_EQ(volatileKindOf("/extra_keys/seq", 3, 4), VolatileKind::Counter);
  EXPECT_EQ(volatileKindOf("/attributes/step_count", 17, 18), VolatileKind::Counter);
  EXPECT_EQ(volatileKindOf("/attributes/tick", "req-17", "req-18"), VolatileKind::Counter);
  // A position, or the button a tool call presses, is content.
  EXPECT_EQ(volatileKindOf("/arguments/x", 3, 4), std::nullopt);
  EXPECT_EQ(volatileKindOf("/output/tool_calls/0/arguments/id", "sw1", "sw3"), std::nullopt);
  EXPECT_EQ(volatileKindOf("/attributes/tick", "req-17", "res-18"), std::nullopt);
}

TEST(VolatileKindOf, NeverTakesContentOrAMissingSideForNoise) {
  EXPECT_EQ(volatileKindOf("/a", "Please press sw1", "Please press sw3"), std::nullopt);
  EXPECT_EQ(volatileKindOf("/a", Json(), "2026-12-03T11:14:46Z"), std::nullopt);
  EXPECT_EQ(volatileKindOf("/a", "2026-12-03T11:14:46Z", "0f8fad5b-d9cb-469f-a165-70867728950e"),
            std::nullopt);
  EXPECT_EQ(volatileKindOf("/a", 42, 43), std::nullopt);
  EXPECT_EQ(volatileKindOf("/a", true, false), std::nullopt);
  EXPECT_EQ(volatileKindOf("/a", "2026-12-03", "2026-12-04"), std::nullopt);
}

TEST(VolatileOnlyHint, SuggestsTheIgnoreOptionsWhenOnlyVolatileValuesDiffer) {
  const Json live = {{"attributes", {{"clock", "2026-12-03T11:14:46Z"}, {"robot", "panda"}}}};
  const Json recorded = {{"attributes", {{"clock", "2026-12-02T08:00:00Z"}, {"robot", "panda"}}}};
  const std::string hint = volatileOnlyHint(live, recorded, differingPaths(live, recorded));
  EXPECT_THAT(hint, HasSubstr("/attributes/clock: timestamp (ISO 8601)"));
  EXPECT_THAT(hint, HasSubstr("--ignore /attributes/clock"));
  EXPECT_THAT(hint, HasSubstr("agentvcr noise"));
}

TEST(VolatileOnlyHint, SaysNothingWhenSomeDifferenceIsContent) {
  const Json live = {{"attributes", {{"clock", "2026-12-03T11:14:46Z"}, {"robot", "panda"}}}};
  const Json recorded = {{"attributes", {{"clock", "2026-12-02T08:00:00Z"}, {"robot", "ur5e"}}}};
  EXPECT_EQ(volatileOnlyHint(live, recorded, differingPaths(live, recorded)), "");
  JsonDifferences truncated = differingPaths(live, recorded);
  truncated.paths.pop_back();
  truncated.truncated = true;
  EXPECT_EQ(volatileOnlyHint(live, recorded, truncated), "");
  EXPECT_EQ(volatileOnlyHint(live, live, differingPaths(live, live)), "");
}

/// A step asking with `clock` in its attributes and `note` in its extra keys, answered with
/// `decision` (a say, or a press_button call stamped `at` when `decision` starts with "sw").
DiffStep step(std::int64_t depth, const std::string& clock, const std::string& note,
              const std::string& decision, const std::string& at = "") {
  DiffStep result;
  result.depth = depth;
  result.input = {{"instruction", {{"type", "user"}, {"content", "Please press sw1"}}},
                  {"tools", Json::array()},
                  {"attributes", {{"clock", clock}}},
                  {"memory", Json::object()},
                  {"num_outputs", 1},
                  {"extra_keys", {{"note", note}}}};
  Json output = {{"say", ""}, {"tool_calls", Json::array()}};
  if (decision.starts_with("sw")) {
    output["tool_calls"].push_back({{"name", "press_button"},
                                    {"target_robot_name", "panda"},
                                    {"arguments", {{"id", decision}, {"at", at}}}});
  } else {
    output["say"] = decision;
  }
  result.candidates = Json::array({{{"candidate_index", 0},
                                    {"status", "completed"},
                                    {"memory", {{"run", clock}}},
                                    {"internal_steps", Json::array()},
                                    {"output", output},
                                    {"error", nullptr}}});
  return result;
}

TEST(FindNoise, ListsVaryingPathsAndStopsAtTheFirstRealDivergence) {
  EpisodePair pair;
  pair.label = "conversation 1 / conversation 2";
  pair.base = {step(0, "2026-12-02T08:00:00Z", "a", "sw1", "2026-12-02T08:00:01Z"),
               step(1, "2026-12-02T08:00:05Z", "a", "Done."),
               step(2, "2026-12-02T08:00:09Z", "x", "Bye.")};
  pair.other = {step(0, "2026-12-03T11:14:46Z", "a", "sw1", "2026-12-03T11:14:47Z"),
                step(1, "2026-12-03T11:14:50Z", "b", "Done."),
                // The decision differs: its differing note must not be listed.
                step(2, "2026-12-03T11:14:55Z", "y", "Goodbye.")};
  const NoiseReport report = findNoise({pair});
  EXPECT_EQ(report.aligned_steps, 2u);
  ASSERT_THAT(report.input, ::testing::SizeIs(2));
  const NoisyPath& clock = report.input.at("/attributes/clock");
  EXPECT_EQ(clock.varying, 2u);
  EXPECT_EQ(clock.kind, VolatileKind::IsoTimestamp);
  EXPECT_FALSE(clock.mixed);
  const NoisyPath& note = report.input.at("/extra_keys/note");
  EXPECT_EQ(note.varying, 1u);
  EXPECT_TRUE(note.mixed);
  ASSERT_THAT(report.output, ::testing::SizeIs(1));
  EXPECT_EQ(report.output.at("/output/tool_calls/0/arguments/at").kind, VolatileKind::IsoTimestamp);
  ASSERT_THAT(report.alignment, ::testing::SizeIs(1));
  EXPECT_THAT(report.alignment[0], HasSubstr("aligned 2 of 3 steps; stopped at step 3"));
}

TEST(FindNoise, AToolCallOnAnotherButtonIsADivergenceNotNoise) {
  EpisodePair pair;
  pair.label = "pair";
  pair.base = {step(0, "2026-12-02T08:00:00Z", "a", "sw1", "2026-12-02T08:00:01Z")};
  pair.other = {step(0, "2026-12-03T11:14:46Z", "a", "sw3", "2026-12-03T11:14:47Z")};
  const NoiseReport report = findNoise({pair});
  EXPECT_EQ(report.aligned_steps, 0u);
  EXPECT_THAT(report.input, IsEmpty());
  EXPECT_THAT(report.output, IsEmpty());
  EXPECT_THAT(
      report.alignment[0],
      HasSubstr("stopped at step 1: candidate 0 differs at /output/tool_calls/0/arguments/id"));
}

TEST(FindNoise, StopsWhereTheOtherHasNoCounterpartOrAnotherDepth) {
  EpisodePair missing;
  missing.label = "missing";
  missing.base = {step(0, "t", "a", "Hi."), step(1, "t", "a", "Hi.")};
  missing.other = {step(0, "t", "a", "Hi."), std::nullopt};
  EpisodePair deeper;
  deeper.label = "deeper";
  deeper.base = {step(0, "t", "a", "Hi.")};
  deeper.other = {step(1, "t", "a", "Hi.")};
  const NoiseReport report = findNoise({missing, deeper});
  EXPECT_EQ(report.aligned_steps, 1u);
  EXPECT_THAT(report.alignment,
              ElementsAre("missing: aligned 1 of 2 steps; stopped at step 2: no counterpart",
                          "deeper: aligned 0 of 1 steps; stopped at step 1: depth 0 vs 1"));
}

TEST(FindNoise, IdenticalStepsListNoPath) {
  EpisodePair pair;
  pair.label = "same";
  pair.base = {step(0, "2026-12-02T08:00:00Z", "a", "sw1", "2026-12-02T08:00:01Z")};
  pair.other = {pair.base[0]};
  const NoiseReport report = findNoise({pair});
  EXPECT_EQ(report.aligned_steps, 1u);
  EXPECT_THAT(report.input, IsEmpty());
  EXPECT_THAT(report.output, IsEmpty());
}

TEST(FormatNoise, WritesSortedSectionsWithKindsAndCounts) {
  NoiseReport report;
  report.aligned_steps = 12;
  report.input["/memory/history/3/content"] = {3, std::nullopt, true};
  report.input["/attributes/clock"] = {12, VolatileKind::IsoTimestamp, false};
  report.output["/output/tool_calls/0/arguments/trace"] = {2, VolatileKind::Uuid, false};
  report.alignment = {"conversation 1 / conversation 5: aligned 12 of 12 steps"};
  EXPECT_EQ(formatNoise(report, {1, {2}}),
            "# agentvcr noise: paths that vary while the decisions stay the same\n"
            "# sessions 1 (base), 2; 12 aligned steps\n"
            "# conversation 1 / conversation 5: aligned 12 of 12 steps\n"
            "\n[input]\n"
            "/attributes/clock  # timestamp (ISO 8601), varies in 12 of 12 aligned steps\n"
            "/memory/history/3/content  # varies in 3 of 12 aligned steps\n"
            "\n[output]\n"
            "/output/tool_calls/0/arguments/trace  # UUID, varies in 2 of 12 aligned steps\n");
}

}  // namespace
}  // namespace agentvcr::replay
