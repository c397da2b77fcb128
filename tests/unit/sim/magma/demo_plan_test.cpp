#include "agentvcr/sim/magma/demo_plan.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

constexpr const char* kWorld =
    R"("worlds": {"w": {"tools": [{"name": "press_button", "arguments": {}}],
  "attributes": {"objects": ["sw0"], "known_robots": ["panda"]}, "sim": {"kind": "press_button"}}})";

std::string plan(std::string_view episodes, std::string_view extra = "") {
  return std::string("{") + std::string(extra) + kWorld + R"(, "episodes": )" +
         std::string(episodes) + "}";
}

TEST(DemoPlan, ShippedEpisodesLoad) {
  const PlanLoad load = loadDemoPlanText(testing::readFixture("demo/episodes.json"));
  ASSERT_TRUE(load.plan) << load.error;
  const DemoPlan& demo = *load.plan;
  EXPECT_EQ(demo.nb_env, 2);
  EXPECT_EQ(demo.worlds.size(), 2u);
  EXPECT_GE(demo.episodes.size(), 5u);
  bool has_gen = false;
  for (const EpisodeSpec& episode : demo.episodes) {
    EXPECT_FALSE(episode.expect.empty()) << episode.name;
    has_gen = has_gen || (episode.caller == Caller::Gen && episode.num_outputs == 2);
  }
  EXPECT_TRUE(has_gen);
  // Key order is kept as written: cancel_current_action first, "name" before "description".
  const auto& tools = demo.worlds[0].tools;
  EXPECT_EQ(tools[0]["name"], "cancel_current_action");
  EXPECT_EQ(tools[0].begin().key(), "name");
}

TEST(DemoPlan, DefaultsAndInheritedExtraKeys) {
  const PlanLoad load =
      loadDemoPlanText(plan(R"([{"name": "e", "world": "w", "stages": ["hi"]}])"));
  ASSERT_TRUE(load.plan) << load.error;
  const EpisodeSpec& episode = load.plan->episodes[0];
  EXPECT_EQ(episode.caller, Caller::Bench);
  EXPECT_EQ(episode.num_outputs, 1);
  EXPECT_EQ(episode.memory.dump(), R"({"history":[]})");
  EXPECT_EQ(episode.extra_keys.dump(), R"({"inference_mode":true})");
  EXPECT_TRUE(episode.expect.empty());
}

struct BadPlan {
  std::string name;
  std::string text;
  std::string error;  ///< expected prefix of the error
};

void PrintTo(const BadPlan& bad, std::ostream* out) {
  *out << bad.name;
}

class DemoPlanErrors : public ::testing::TestWithParam<BadPlan> {};

TEST_P(DemoPlanErrors, ReportWhereAndWhy) {
  const PlanLoad load = loadDemoPlanText(GetParam().text);
  EXPECT_FALSE(load.plan);
  EXPECT_EQ(load.error.rfind(GetParam().error, 0), 0u) << load.error;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DemoPlanErrors,
    ::testing::Values(
        BadPlan{"no_such_world", plan(R"([{"name": "e", "world": "nope", "stages": ["hi"]}])"),
                "/episodes/0/world: no such world"},
        BadPlan{"empty_stages", plan(R"([{"name": "e", "world": "w", "stages": []}])"),
                "/episodes/0/stages: unknown key or bad value"},
        BadPlan{"bench_two_outputs",
                plan(R"([{"name": "e", "world": "w", "stages": ["a"], "num_outputs": 2}])"),
                "/episodes/0/num_outputs: BENCH always asks for one candidate"},
        BadPlan{
            "bad_expectation",
            plan(
                R"([{"name": "e", "world": "w", "stages": ["a"], "expect": {"outcome": "maybe"}}])"),
            "/episodes/0/expect/0/outcome: unknown key or bad value"},
        BadPlan{"no_episodes", plan("[]"), "/episodes: expected a non-empty list"},
        BadPlan{"zero_slots",
                plan(R"([{"name": "e", "world": "w", "stages": ["a"]}])", R"("nb_env": 0, )"),
                "/nb_env: expected an integer >= 1"},
        BadPlan{"gen_ids_collide",
                plan(R"([{"name": "e", "world": "w", "stages": ["a"]}])",
                     R"("nb_env": 4, "gen_first_id": 2, )"),
                "/gen_first_id: GEN situation ids must not collide with BENCH slots"},
        BadPlan{
            "bad_sim_kind",
            R"({"worlds": {"w": {"attributes": {"known_robots": ["r"]}, "sim": {"kind": "x"}}}, "episodes": []})",
            "/worlds/w: sim.kind: expected \"press_button\" or \"bi_robot_sorting\""},
        BadPlan{"not_json", "{", "invalid JSON at byte 1: "}));

}  // namespace
}  // namespace agentvcr::sim::magma
