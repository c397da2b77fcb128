#include "agentvcr/replay/agent_agreement.hpp"

#include <random>

#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

using protocol::Json;

Json saying(const std::string& say, const std::string& memory = "m") {
  return Json::array({Json{{"candidate_index", 0},
                           {"status", "completed"},
                           {"memory", {{"note", memory}}},
                           {"output", {{"say", say}, {"tool_calls", Json::array()}}},
                           {"error", nullptr}}});
}

AgentStepAnswer matching(const std::string& say) {
  return {true, true, saying(say)};
}

AgentStepAnswer differing(const std::string& say) {
  return {false, true, saying(say)};
}

AgentStepAnswer broken() {
  return {false, false, Json::array()};
}

TEST(SameDecisions, ComparesDecisionsNotMemories) {
  EXPECT_TRUE(sameDecisions(saying("Done.", "a"), saying("Done.", "b")));
  EXPECT_TRUE(sameDecisions(saying("Done."), saying("  done. ")));  // normalised, as eval
  EXPECT_FALSE(sameDecisions(saying("Done."), saying("Finished.")));
  EXPECT_FALSE(sameDecisions(saying("Done."), Json::array()));  // a missing candidate
}

// The three agents over five recorded steps, counted by hand: the recorded agent
// matches everywhere; the changed one says "Other" at steps 2 and 4; the broken one says
// "Other" at step 2, breaks the contract at step 3 and says "Else" at step 5.
TEST(PairwiseAgreement, CountsWhereEitherAgentLeavesTheRecording) {
  const AgentAnswers recorded{{1, matching("A")},
                              {2, matching("B")},
                              {3, matching("C")},
                              {4, matching("D")},
                              {5, matching("E")}};
  const AgentAnswers changed{{1, matching("A")},
                             {2, differing("Other")},
                             {3, matching("C")},
                             {4, differing("Other")},
                             {5, matching("E")}};
  const AgentAnswers broken_agent{{1, matching("A")},
                                  {2, differing("Other")},
                                  {3, broken()},
                                  {4, matching("D")},
                                  {5, differing("Else")}};
  const auto pairs = pairwiseAgreement({recorded, changed, broken_agent});
  ASSERT_EQ(pairs.size(), 3u);
  // recorded and changed: steps 2 and 4 differ, and there they disagree.
  EXPECT_EQ(pairs[0].first, 0u);
  EXPECT_EQ(pairs[0].second, 1u);
  EXPECT_EQ(pairs[0].differing_steps, 2);
  EXPECT_EQ(pairs[0].agreeing_steps, 0);
  EXPECT_EQ(pairs[0].rate(), 0.0);
  // recorded and broken: steps 2, 3 and 5.
  EXPECT_EQ(pairs[1].second, 2u);
  EXPECT_EQ(pairs[1].differing_steps, 3);
  EXPECT_EQ(pairs[1].agreeing_steps, 0);
  // changed and broken: steps 2, 3, 4 and 5; both said "Other" at step 2.
  EXPECT_EQ(pairs[2].first, 1u);
  EXPECT_EQ(pairs[2].differing_steps, 4);
  EXPECT_EQ(pairs[2].agreeing_steps, 1);
  EXPECT_EQ(pairs[2].rate(), 0.25);
}

TEST(PairwiseAgreement, TwoAgentsThatNeverLeaveTheRecordingHaveNoRate) {
  const AgentAnswers a{{1, matching("A")}, {2, matching("B")}};
  const auto pairs = pairwiseAgreement({a, a});
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].differing_steps, 0);
  EXPECT_FALSE(pairs[0].rate());
}

TEST(PairwiseAgreement, OnlyStepsBothAnsweredCount) {
  const AgentAnswers a{{1, differing("X")}, {2, differing("Y")}};
  const AgentAnswers b{{2, differing("Y")}, {3, differing("Z")}};
  const auto pairs = pairwiseAgreement({a, b});
  EXPECT_EQ(pairs[0].differing_steps, 1);
  EXPECT_EQ(pairs[0].agreeing_steps, 1);
}

// Seeded agents over random steps: agreement is symmetric, bounded by the differing steps,
// and an agent agrees with a copy of itself wherever it kept the contract.
TEST(PairwiseAgreement, ASeededGeneratorOfAgentsKeepsItsLaws) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    auto agent = [&] {
      AgentAnswers answers;
      const int steps = static_cast<int>(random() % 12);
      for (int i = 0; i < steps; ++i) {
        const std::int64_t step = random() % 16;
        switch (random() % 3) {
          case 0:
            answers[step] = matching(std::string(1, static_cast<char>('a' + step)));
            break;
          case 1:
            answers[step] = differing(std::string(1, static_cast<char>('a' + random() % 3)));
            break;
          default:
            answers[step] = broken();
        }
      }
      return answers;
    };
    const AgentAnswers a = agent();
    const AgentAnswers b = agent();
    const auto forward = pairwiseAgreement({a, b})[0];
    const auto backward = pairwiseAgreement({b, a})[0];
    EXPECT_EQ(forward.differing_steps, backward.differing_steps);
    EXPECT_EQ(forward.agreeing_steps, backward.agreeing_steps);
    EXPECT_LE(forward.agreeing_steps, forward.differing_steps);
    std::int64_t left_or_broken = 0;
    std::int64_t left_and_kept = 0;
    for (const auto& [step, answer] : a) {
      left_or_broken += answer.matches_recording ? 0 : 1;
      left_and_kept += !answer.matches_recording && answer.kept_contract ? 1 : 0;
    }
    const auto self = pairwiseAgreement({a, a})[0];
    EXPECT_EQ(self.differing_steps, left_or_broken);
    EXPECT_EQ(self.agreeing_steps, left_and_kept);
  }
}

}  // namespace
}  // namespace agentvcr::replay
