#include "agentvcr/sim/a2a/skills.hpp"

#include <gtest/gtest.h>

#include "agentvcr/sim/a2a/fixtures.hpp"
#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

SkillTableLoad load(const std::string& text) {
  return SkillTable::fromJson(testing::parse(text));
}

TEST(BundledFixtures, MagisteriumHasTheTenSkillsWithTheirTiers) {
  Fixtures fixtures = testing::bundledFixtures("magisterium");
  const auto& skills = fixtures.skills.skills();
  ASSERT_EQ(skills.size(), 10u);
  EXPECT_EQ(fixtures.skills.defaultSkill().id, "catholic_qa");
  for (const char* id : {"catholic_qa", "document_search", "document_fetch", "liturgical_readings",
                         "saints_of_the_day", "saint_lookup", "person_lookup", "pope_lookup",
                         "diocese_lookup", "diocese_statistics_lookup"}) {
    const Skill* skill = fixtures.skills.find(id);
    ASSERT_NE(skill, nullptr) << id;
    EXPECT_EQ(skill->tier, std::string(id) == "catholic_qa" ? Tier::Expensive : Tier::Default)
        << id;
    EXPECT_EQ(skill->input_turns, 0) << id;
  }
}

TEST(BundledFixtures, StandardHasAMultiTurnSkillAStreamingOneAndWaysToEndATask) {
  Fixtures fixtures = testing::bundledFixtures("standard");
  const Skill& echo = fixtures.skills.defaultSkill();
  EXPECT_EQ(echo.id, "echo");
  EXPECT_FALSE(echo.answerFor("hello").completes) << "a plain message leaves the task waiting";
  EXPECT_TRUE(echo.answerFor("hello [complete]").completes);
  EXPECT_TRUE(echo.answerFor("hello [fail]").failure);
  EXPECT_TRUE(echo.answerFor("hello [reject]").rejection);
  ASSERT_NE(fixtures.skills.find("long_task"), nullptr);
  EXPECT_EQ(fixtures.skills.find("long_task")->input_turns, 1);
  ASSERT_NE(fixtures.skills.find("story"), nullptr);
  EXPECT_EQ(fixtures.skills.find("story")->answers[0].chunks.size(), 3u);
  EXPECT_TRUE(fixtures.skills.find("story")->answers[0].completes);
  EXPECT_FALSE(fixtures.extended_card) << "the bundled fixtures configure no extended card";
}

TEST(SkillTable, PicksTheFirstMatchingAnswerCaseInsensitivelyAndFillsTheQuery) {
  auto table = load(R"({"default_skill":"qa","skills":[{"id":"qa","name":"QA","description":"d",
    "answers":[{"match":"Grace","text":"about grace"},{"match":"[fail]","fail":"no"},
               {"chunks":["You asked ","{query}","; {query}"]}]}]})");
  ASSERT_TRUE(table.table) << table.error;
  const Skill& qa = table.table->defaultSkill();
  EXPECT_EQ(qa.answerFor("What is GRACE?").chunks, std::vector<std::string>{"about grace"});
  EXPECT_EQ(qa.answerFor("x [FAIL] y").failure, "no");
  EXPECT_EQ(qa.answerFor("hope").chunksFor("hope"),
            (std::vector<std::string>{"You asked ", "hope", "; hope"}));
  EXPECT_EQ(qa.card_entry.dump(), R"({"id":"qa","name":"QA","description":"d","tags":[]})");
}

TEST(SkillTable, LoaderFaultsNameTheField) {
  const std::string head = R"({"default_skill":"qa","skills":[{"id":"qa","name":"QA",)"
                           R"("description":"d",)";
  EXPECT_EQ(load(head + R"("answers":[{"match":"x","text":"t"}]}]})").error,
            "skills[0].answers: the last answer must have no match (the fallback)");
  EXPECT_EQ(load(head + R"("answers":[{"text":"t","fail":"f"}]}]})").error,
            "skills[0].answers[0] needs exactly one of text, chunks, fail, reject, internal_error");
  EXPECT_EQ(load(head + R"("answers":[{"fail":"f","state":"completed"}]}]})").error,
            "skills[0].answers[0].state must be \"completed\" or \"input-required\", on an "
            "answer with text or chunks");
  EXPECT_EQ(load(head + R"("answers":[{"text":"t","state":"done"}]}]})").error,
            "skills[0].answers[0].state must be \"completed\" or \"input-required\", on an "
            "answer with text or chunks");
  EXPECT_EQ(load(head + R"("tier":"cheap","answers":[{"text":"t"}]}]})").error,
            "skills[0].tier must be \"default\" or \"expensive\"");
  EXPECT_EQ(load(head + R"("input_turns":-1,"answers":[{"text":"t"}]}]})").error,
            "skills[0].input_turns must be an integer from 0 to 1000");
  EXPECT_EQ(load(head + R"("working_turns":1,"answers":[{"text":"t"}]}]})").error,
            "skills[0].working_turns is now input_turns: a task that waits for the caller is "
            "input-required, since a blocking send may not return a working task");
  EXPECT_EQ(load(head + R"("answers":[]}]})").error, "skills[0].answers must be a non-empty array");
  EXPECT_EQ(load(R"({"default_skill":"nope","skills":[{"id":"qa","name":"QA","description":"d",
    "answers":[{"text":"t"}]}]})")
                .error,
            "default_skill 'nope' is not in skills");
  EXPECT_EQ(load(R"({"default_skill":"qa","skills":[{"id":"qa","description":"d",
    "answers":[{"text":"t"}]}]})")
                .error,
            "skills[0].name is required");
  EXPECT_EQ(load("[]").error, "skills file must hold an object");
}

TEST(Fixtures, ReportWhichFileIsWrong) {
  EXPECT_EQ(fixturesFromText("[]", "{}").error, "card.json: not a JSON object");
  EXPECT_EQ(fixturesFromText("{}", "{").error, "skills.json: not valid JSON");
  const std::string skills = R"({"default_skill":"qa","skills":[{"id":"qa","name":"QA",)"
                             R"("description":"d","answers":[{"text":"t"}]}]})";
  EXPECT_EQ(fixturesFromText("{}", skills, std::string_view("[1]")).error,
            "extended-card.json: not a JSON object");
  EXPECT_EQ(loadFixturesDir("/nonexistent").error, "cannot read /nonexistent/card.json");
}

}  // namespace
}  // namespace agentvcr::sim::a2a
