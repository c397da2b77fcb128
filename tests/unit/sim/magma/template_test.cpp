#include "agentvcr/sim/magma/template.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using protocol::Json;

class TemplateTest : public ::testing::Test {
 protected:
  TemplateTest() {
    attributes_ = testing::parse(
        R"({"objects": ["sw0", "sw1", "sw4"], "known_robots": ["arm1", "arm2"], "n": 3})");
    call_ = testing::parse(
        R"({"name": "deplace", "arguments": {"object": "banana_1", "target_area": "mutual_zone"}})");
    outcome_ = {"arm1", "deplace", false, "out of range"};
    context_.content = "Please press sw3";
    context_.attributes = &attributes_;
    context_.captures = {"press sw3", "sw3"};
    context_.outcome = &outcome_;
    context_.outcome_call = &call_;
    context_.candidate_index = 1;
  }

  Json attributes_;
  Json call_;
  protocol::RobotOutcome outcome_;
  TemplateContext context_;
};

TEST_F(TemplateTest, RobotsAndMatches) {
  EXPECT_EQ(expandText("${robot}", context_), "arm1");
  EXPECT_EQ(expandText("${robot:1}", context_), "arm2");
  EXPECT_EQ(expandText("${robot:-1}", context_), "arm2");
  EXPECT_EQ(expandText("press ${match:1} now (${match:0})", context_), "press sw3 now (press sw3)");
}

TEST_F(TemplateTest, AttributesContentCandidate) {
  EXPECT_EQ(expandText("${attr:objects.-1}", context_), "sw4");
  EXPECT_EQ(expandText("${attr:objects.0}", context_), "sw0");
  EXPECT_EQ(expandText("n=${attr:n}", context_), "n=3");
  EXPECT_EQ(expandText("${attr:objects}!", context_), R"(["sw0","sw1","sw4"]!)");
  EXPECT_EQ(expandText("<${content}> #${candidate}", context_), "<Please press sw3> #1");
}

TEST_F(TemplateTest, OutcomeAndArguments) {
  EXPECT_EQ(expandText("${outcome:robot} ${outcome:tool}: ${outcome:message}", context_),
            "arm1 deplace: out of range");
  EXPECT_EQ(expandText("${arg}", context_), "banana_1");
  EXPECT_EQ(expandText("${arg:target_area}", context_), "mutual_zone");
}

TEST_F(TemplateTest, DollarEscapesAndPlainDollars) {
  EXPECT_EQ(expandText("cost: $$5 or $5", context_), "cost: $5 or $5");
  EXPECT_EQ(expandText("$${robot}", context_), "${robot}");
  EXPECT_EQ(expandText("trailing $", context_), "trailing $");
}

TEST_F(TemplateTest, UnresolvableVariablesFail) {
  EXPECT_FALSE(expandText("${robot:2}", context_));
  EXPECT_FALSE(expandText("${match:2}", context_));
  EXPECT_FALSE(expandText("${attr:missing}", context_));
  EXPECT_FALSE(expandText("${arg:nope}", context_));
  EXPECT_FALSE(expandText("${unknown}", context_));
  EXPECT_FALSE(expandText("${robot", context_));
  EXPECT_FALSE(expandText("${outcome:colour}", context_));
  TemplateContext empty;
  EXPECT_FALSE(expandText("${robot}", empty));
  EXPECT_FALSE(expandText("${outcome:robot}", empty));
  EXPECT_FALSE(expandText("${arg}", empty));
}

TEST_F(TemplateTest, ValuesKeepTheTypeOfAWholeVariable) {
  const Json value = testing::parse(
      R"({"ids": "${attr:objects}", "n": "${attr:n}", "text": "id ${match:1}", "nested": ["${robot}", 2, true]})");
  const auto expanded = expandValue(value, context_);
  ASSERT_TRUE(expanded);
  EXPECT_EQ(
      *expanded,
      testing::parse(
          R"({"ids": ["sw0", "sw1", "sw4"], "n": 3, "text": "id sw3", "nested": ["arm1", 2, true]})"));
  EXPECT_FALSE(expandValue(testing::parse(R"({"a": ["${nope}"]})"), context_));
}

}  // namespace
}  // namespace agentvcr::sim::magma
