#include "agentvcr/replay/conversation_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

using protocol::Json;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// --- builders: inputs without "id", outputs without request_id and source_id ---

Json entry(const char* author, const std::string& content) {
  return Json{{"author", author}, {"content", content}};
}

Json inputOf(const std::string& type, const std::string& content, Json memory,
             std::int64_t num_outputs = 1) {
  return Json{{"instruction", {{"type", type}, {"content", content}}},
              {"tools", Json::array({{{"name", "press_button"}, {"arguments", Json::object()}}})},
              {"attributes", {{"known_robots", {"panda"}}}},
              {"memory", std::move(memory)},
              {"num_outputs", num_outputs},
              {"extra_keys", {{"inference_mode", true}}}};
}

Json sayCandidate(std::int64_t k, Json memory, const std::string& say) {
  return Json{{"candidate_index", k},
              {"status", "completed"},
              {"memory", std::move(memory)},
              {"internal_steps", Json::array()},
              {"output", {{"say", say}, {"tool_calls", Json::array()}}},
              {"error", nullptr}};
}

Json callCandidate(std::int64_t k, Json memory, const std::string& robot, const std::string& tool,
                   Json arguments) {
  Json call = {{"name", tool}, {"arguments", std::move(arguments)}, {"target_robot_name", robot}};
  return Json{{"candidate_index", k},
              {"status", "completed"},
              {"memory", std::move(memory)},
              {"internal_steps", Json::array()},
              {"output", {{"say", ""}, {"tool_calls", Json::array({call})}}},
              {"error", nullptr}};
}

Json errorCandidate(std::int64_t k, Json memory, const std::string& code) {
  return Json{{"candidate_index", k},
              {"status", "error"},
              {"memory", std::move(memory)},
              {"internal_steps", Json::array()},
              {"output", nullptr},
              {"error", {{"code", code}, {"message", "bad"}, {"component", nullptr}}}};
}

DiffStep makeStep(Json input, Json candidates, std::int64_t depth = 0) {
  DiffStep step;
  step.depth = depth;
  step.input = std::move(input);
  step.candidates = std::move(candidates);
  return step;
}

/// A step with a fixed memory, named by its instruction, saying "ok <name>".
DiffStep named(const std::string& name) {
  return makeStep(inputOf("user", name, Json::object()),
                  Json::array({sayCandidate(0, Json::object(), "ok " + name)}));
}

std::vector<DiffStep> namedSteps(const std::string& names) {
  std::vector<DiffStep> steps;
  for (const char name : names) {
    steps.push_back(named(std::string(1, name)));
  }
  return steps;
}

struct Turn {
  std::string type;
  std::string content;
  std::string button;  ///< press_button(id) when set, else say
  std::string say;
};

/// A BENCH episode: one chain, each step's memory the previous candidate's, which appends the
/// instruction and the decision to the history.
std::vector<DiffStep> chain(const std::vector<Turn>& turns) {
  std::vector<DiffStep> steps;
  Json memory = {{"history", Json::array()}};
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const Turn& turn = turns[i];
    Json next = memory;
    next["history"].push_back(entry("USER", turn.content));
    next["history"].push_back(
        entry("MODEL", turn.button.empty() ? turn.say : "press " + turn.button));
    Json candidate = turn.button.empty()
                         ? sayCandidate(0, next, turn.say)
                         : callCandidate(0, next, "panda", "press_button", {{"id", turn.button}});
    steps.push_back(makeStep(inputOf(turn.type, turn.content, memory), Json::array({candidate}),
                             static_cast<std::int64_t>(i)));
    steps.back().step_id = 100 + static_cast<std::int64_t>(i);
    memory = std::move(next);
  }
  return steps;
}

std::string pressed(const std::string& button) {
  return "panda: press_button succeed with message: You have the " + button + " button pressed.";
}

std::vector<Turn> episodeTurns() {
  return {
      {"user", "Please press sw1", "sw1", ""},
      {"env", pressed("sw1"), "", "Done, sw1 is pressed."},
      {"user", "Now press the button next to sw0", "sw1", ""},
      {"env", pressed("sw1"), "", "Done."},
      {"user", "Please press sw3", "sw3", ""},
      {"env", pressed("sw3"), "", "sw3 is pressed."},
      {"user", "Thanks", "", "You're welcome."},
  };
}

std::vector<RowKind> kinds(const ConversationDiff& diff) {
  std::vector<RowKind> out;
  for (const DiffRow& row : diff.rows) {
    out.push_back(row.kind);
  }
  return out;
}

std::size_t countKind(const ConversationDiff& diff, RowKind kind) {
  return static_cast<std::size_t>(std::count_if(
      diff.rows.begin(), diff.rows.end(), [kind](const DiffRow& row) { return row.kind == kind; }));
}

constexpr RowKind kSame = RowKind::Same;
constexpr RowKind kChanged = RowKind::Changed;
constexpr RowKind kLeftOnly = RowKind::LeftOnly;
constexpr RowKind kRightOnly = RowKind::RightOnly;

// --- decisionText ---

TEST(DecisionText, SayToolCallsEmptyAndErrors) {
  const Json memory = Json::object();
  EXPECT_EQ(decisionText(makeStep(Json::object(), Json::array({sayCandidate(0, memory, "Hi!")}))),
            "say: Hi!");
  EXPECT_EQ(decisionText(makeStep(Json::object(),
                                  Json::array({callCandidate(0, memory, "panda", "press_button",
                                                             {{"id", "sw1"}, {"force", 1.5}})}))),
            R"(panda.press_button({"force":1.5,"id":"sw1"}))");
  EXPECT_EQ(decisionText(makeStep(Json::object(), Json::array({sayCandidate(0, memory, "")}))),
            "empty");
  EXPECT_EQ(decisionText(makeStep(Json::object(),
                                  Json::array({errorCandidate(0, memory, "invalid_output")}))),
            "error invalid_output");
  EXPECT_EQ(decisionText(makeStep(Json::object(), Json::array())), "no candidates");
}

TEST(DecisionText, MixedDecisionsAndSeveralCandidates) {
  Json mixed = sayCandidate(0, Json::object(), "On it.");
  mixed["output"]["tool_calls"] = Json::parse(R"([
      {"name": "get_objects_state", "arguments": {}, "target_robot_name": "arm1"},
      {"name": "deplace", "arguments": {"target_area": "mutual_zone", "object": "banana_1"},
       "target_robot_name": "arm2"},
      {"name": "wait"}])");
  Json failed = errorCandidate(2, Json::object(), "x");
  failed["error"] = nullptr;  // no code: still an error
  const DiffStep step =
      makeStep(Json::object(),
               Json::array({mixed, sayCandidate(1, Json::object(), "Which fruits?"), failed}));
  EXPECT_EQ(decisionText(step),
            "say: On it.; arm1.get_objects_state({}); "
            R"(arm2.deplace({"object":"banana_1","target_area":"mutual_zone"}); wait({}))"
            " | say: Which fruits? | error");
}

// --- diffConversations ---

TEST(DiffConversations, IdenticalConversations) {
  const std::vector<DiffStep> steps = chain(episodeTurns());
  const ConversationDiff diff = diffConversations(steps, steps);
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kSame, kSame, kSame, kSame, kSame, kSame));
  for (std::size_t i = 0; i < diff.rows.size(); ++i) {
    EXPECT_EQ(diff.rows[i].left, i);
    EXPECT_EQ(diff.rows[i].right, i);
    EXPECT_THAT(diff.rows[i].differences, IsEmpty());
  }
  EXPECT_FALSE(diff.first_divergence.has_value());
  EXPECT_FALSE(diff.aligned_by_position);
  EXPECT_EQ(diff.summary, "identical (7 steps)");

  const std::vector<DiffStep> one = {named("A")};
  EXPECT_EQ(diffConversations(one, one).summary, "identical (1 step)");
}

TEST(DiffConversations, OneChangedToolArgument) {
  const std::vector<DiffStep> left = chain(episodeTurns());
  std::vector<DiffStep> right = left;
  right[2].candidates[0]["output"]["tool_calls"][0]["arguments"]["id"] = "sw2";
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kSame, kChanged, kSame, kSame, kSame, kSame));
  EXPECT_EQ(diff.first_divergence, 2u);
  const DiffRow& row = diff.rows[2];
  EXPECT_EQ(row.left, 2u);
  EXPECT_EQ(row.right, 2u);
  EXPECT_THAT(row.differences, ElementsAre("/candidates/0/output/tool_calls/0/arguments/id"));
  EXPECT_FALSE(row.differences_truncated);
  EXPECT_EQ(diff.summary,
            "diverge at left step 3 / right step 3: the decision differs at "
            "/candidates/0/output/tool_calls/0/arguments/id (\"sw1\" vs \"sw2\")");
}

TEST(DiffConversations, AChangedDecisionCarriesIntoTheLaterMemories) {
  // As an agent does: the other button goes into the memory, so every later step differs too;
  // the later steps still match by instruction and decision, and show the memory paths.
  std::vector<Turn> turns = episodeTurns();
  const std::vector<DiffStep> left = chain(turns);
  turns[2].button = "sw2";
  const std::vector<DiffStep> right = chain(turns);
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff),
              ElementsAre(kSame, kSame, kChanged, kChanged, kChanged, kChanged, kChanged));
  EXPECT_THAT(diff.rows[2].differences,
              ElementsAre("/candidates/0/memory/history/5/content",
                          "/candidates/0/output/tool_calls/0/arguments/id"));
  for (std::size_t i = 3; i < 7; ++i) {
    EXPECT_EQ(diff.rows[i].left, i);
    EXPECT_EQ(diff.rows[i].right, i);
    EXPECT_THAT(diff.rows[i].differences, ElementsAre("/candidates/0/memory/history/5/content",
                                                      "/input/memory/history/5/content"));
  }
  EXPECT_EQ(diff.summary,
            "diverge at left step 3 / right step 3: the decision differs at "
            "/candidates/0/output/tool_calls/0/arguments/id (\"sw1\" vs \"sw2\"), and 1 other "
            "path differs; 5 of 7 rows differ, 4 of them with the same decision");
  // Only the step whose decision changed counts as one, as eval counts it.
  for (std::size_t i = 2; i < 7; ++i) {
    EXPECT_EQ(diff.rows[i].decision_differs, i == 2) << "row " << i;
  }
}

TEST(DiffConversations, OneSideGoesOnLonger) {
  std::vector<Turn> turns = episodeTurns();
  const std::vector<DiffStep> left = chain(turns);
  turns.push_back({"user", "Please press sw4", "sw4", ""});
  turns.push_back({"env", pressed("sw4"), "", "sw4 is pressed."});
  const std::vector<DiffStep> right = chain(turns);
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff),
              ElementsAre(kSame, kSame, kSame, kSame, kSame, kSame, kSame, kRightOnly, kRightOnly));
  EXPECT_EQ(diff.first_divergence, 7u);
  EXPECT_FALSE(diff.rows[7].left.has_value());
  EXPECT_EQ(diff.rows[7].right, 7u);
  EXPECT_EQ(diff.rows[8].right, 8u);
  EXPECT_EQ(diff.summary,
            "right has 2 more steps after 7 identical steps (right step 8: user \"Please press "
            "sw4\" -> panda.press_button({\"id\":\"sw4\"}))");

  const ConversationDiff reversed = diffConversations(right, left);
  EXPECT_THAT(kinds(reversed),
              ElementsAre(kSame, kSame, kSame, kSame, kSame, kSame, kSame, kLeftOnly, kLeftOnly));
  EXPECT_EQ(reversed.rows[8].left, 8u);
  EXPECT_FALSE(reversed.rows[8].right.has_value());
  EXPECT_THAT(reversed.summary, StartsWith("left has 2 more steps after 7 identical steps (left "
                                           "step 8: user \"Please press sw4\""));
}

TEST(DiffConversations, AnExtraStepInTheMiddle) {
  const std::vector<DiffStep> left = chain(episodeTurns());
  std::vector<DiffStep> right = left;
  right.erase(right.begin() + 2);
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kSame, kLeftOnly, kSame, kSame, kSame, kSame));
  EXPECT_EQ(diff.rows[2].left, 2u);
  EXPECT_FALSE(diff.rows[2].right.has_value());
  EXPECT_EQ(diff.rows[3].left, 3u);
  EXPECT_EQ(diff.rows[3].right, 2u);
  EXPECT_EQ(diff.summary,
            "diverge at left step 3, which the right does not have: user \"Now press the button "
            "next to sw0\" -> panda.press_button({\"id\":\"sw1\"})");

  // The same step asked for by the user on the right only, with the memories it changes.
  std::vector<Turn> turns = episodeTurns();
  const std::vector<DiffStep> shorter = chain(turns);
  turns.insert(turns.begin() + 2, Turn{"user", "What is pressed?", "", "sw1 is pressed."});
  const ConversationDiff grown = diffConversations(shorter, chain(turns));
  EXPECT_THAT(kinds(grown), ElementsAre(kSame, kSame, kRightOnly, kChanged, kChanged, kChanged,
                                        kChanged, kChanged));
  EXPECT_EQ(grown.summary,
            "diverge at right step 3, which the left does not have: user \"What is pressed?\" -> "
            "say: sw1 is pressed.; 6 of 8 rows differ, 5 of them with the same decision");
}

TEST(DiffConversations, DifferentMemoryOnly) {
  const std::vector<DiffStep> left = chain(episodeTurns());
  std::vector<DiffStep> right = left;
  right[4].input["memory"]["history"][1]["content"] = "pressed sw1";
  right[4].candidates[0]["memory"]["history"][1]["content"] = "pressed sw1";
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kSame, kSame, kSame, kChanged, kSame, kSame));
  EXPECT_THAT(diff.rows[4].differences, ElementsAre("/candidates/0/memory/history/1/content",
                                                    "/input/memory/history/1/content"));
  EXPECT_EQ(diff.summary,
            "diverge at left step 5 / right step 5: the memory differs at "
            "/candidates/0/memory/history/1/content (\"press sw1\" vs \"pressed sw1\"), and 1 "
            "other path differs; same decision");
  EXPECT_FALSE(diff.rows[4].decision_differs);
}

TEST(DiffConversations, DifferentInternalStepsOnly) {
  const std::vector<DiffStep> left = chain(episodeTurns());
  std::vector<DiffStep> right = left;
  right[0].candidates[0]["internal_steps"].push_back({{"id", "step-0"}, {"output_raw", "x"}});
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(diff.rows[0].differences, ElementsAre("/candidates/0/internal_steps/0"));
  EXPECT_EQ(diff.summary,
            "diverge at left step 1 / right step 1: the internal steps differ at "
            "/candidates/0/internal_steps/0 (absent vs {\"id\":\"step-0\",\"output_raw\":\"x\"}); "
            "same decision");
}

TEST(DiffConversations, CompletelyDifferentConversations) {
  const std::vector<DiffStep> left = chain(episodeTurns());
  const std::vector<DiffStep> right = chain({
      {"user", "Sort the fruits", "", "Which fruits?"},
      {"user", "All of them", "", "OK."},
  });
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kChanged, kChanged, kLeftOnly, kLeftOnly, kLeftOnly,
                                       kLeftOnly, kLeftOnly));
  EXPECT_EQ(diff.first_divergence, 0u);
  EXPECT_EQ(diff.rows[1].left, 1u);
  EXPECT_EQ(diff.rows[1].right, 1u);
  EXPECT_EQ(diff.rows[6].left, 6u);
  EXPECT_THAT(diff.summary,
              StartsWith("diverge at left step 1 / right step 1: the instruction differs at "
                         "/input/instruction/content (\"Please press sw1\" vs \"Sort the "
                         "fruits\"), and "));
  EXPECT_THAT(diff.summary, EndsWith("; all 7 rows differ"));
}

TEST(DiffConversations, EmptySides) {
  const std::vector<DiffStep> none;
  const std::vector<DiffStep> two = namedSteps("AB");

  const ConversationDiff both = diffConversations(none, none);
  EXPECT_THAT(both.rows, IsEmpty());
  EXPECT_FALSE(both.first_divergence.has_value());
  EXPECT_EQ(both.summary, "identical (no steps)");

  const ConversationDiff left_empty = diffConversations(none, two);
  EXPECT_THAT(kinds(left_empty), ElementsAre(kRightOnly, kRightOnly));
  EXPECT_EQ(left_empty.rows[1].right, 1u);
  EXPECT_EQ(left_empty.first_divergence, 0u);
  EXPECT_EQ(left_empty.summary, "left has no steps, right has 2 steps");

  const ConversationDiff right_empty = diffConversations(namedSteps("A"), none);
  EXPECT_THAT(kinds(right_empty), ElementsAre(kLeftOnly));
  EXPECT_EQ(right_empty.summary, "right has no steps, left has 1 step");
}

// A GEN tree in tree order (magma-protocol.md §19 B): a root with two candidates, a branch of
// depth 2 below candidate 0, one of depth 1 below candidate 1.
std::vector<DiffStep> genTree() {
  const Json root_memory = {{"memory_list", {"Only arm1 can inspect objects."}}};
  const Json memory_a = {{"memory_list", {"a"}}};
  const Json memory_b = {{"memory_list", {"b"}}};
  const Json memory_a2 = {{"memory_list", {"a", "a2"}}};
  return {
      makeStep(inputOf("user", "Move every damaged fruit to the mutual zone.", root_memory, 2),
               Json::array({callCandidate(0, memory_a, "arm1", "get_objects_state", Json::object()),
                            sayCandidate(1, memory_b, "Which fruits are damaged?")}),
               0),
      makeStep(
          inputOf("env", "arm1: get_objects_state succeed", memory_a),
          Json::array({callCandidate(0, memory_a2, "arm2", "deplace",
                                     {{"object", "banana_1"}, {"target_area", "mutual_zone"}})}),
          1),
      makeStep(inputOf("env", "arm2: deplace succeed", memory_a2),
               Json::array({sayCandidate(0, memory_a2, "Done.")}), 2),
      makeStep(
          inputOf("user", "banana_1", memory_b),
          Json::array({callCandidate(0, memory_b, "arm2", "deplace",
                                     {{"object", "banana_1"}, {"target_area", "mutual_zone"}})}),
          1),
  };
}

TEST(DiffConversations, GenTreeWithAMissingBranchStep) {
  const std::vector<DiffStep> left = genTree();
  std::vector<DiffStep> right = left;
  right.erase(right.begin() + 2);
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kSame, kLeftOnly, kSame));
  EXPECT_EQ(diff.rows[3].left, 3u);
  EXPECT_EQ(diff.rows[3].right, 2u);
  EXPECT_EQ(diff.summary,
            "diverge at left step 3, which the right does not have: env \"arm2: deplace "
            "succeed\" -> say: Done.");
}

TEST(DiffConversations, GenTreeStepsAtAnotherDepthAreChanged) {
  const std::vector<DiffStep> left = genTree();
  std::vector<DiffStep> right = left;
  right[3].depth = 3;  // threaded below the other branch
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kSame, kSame, kChanged));
  EXPECT_THAT(diff.rows[3].differences, ElementsAre("/depth"));
  EXPECT_EQ(diff.summary,
            "diverge at left step 4 / right step 4: the depth differs (1 vs 3); same decision");
}

TEST(DiffConversations, GenTreeWithAFailedSecondCandidate) {
  const std::vector<DiffStep> left = genTree();
  std::vector<DiffStep> right = left;
  right[0].candidates[1] = errorCandidate(1, right[0].candidates[1]["memory"], "invalid_output");
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kChanged, kSame, kSame, kSame));
  EXPECT_THAT(diff.rows[0].differences,
              ElementsAre("/candidates/1/error", "/candidates/1/output", "/candidates/1/status"));
  EXPECT_EQ(diff.summary,
            "diverge at left step 1 / right step 1: the decision differs at /candidates/1/error "
            "(null vs {\"code\":\"invalid_output\",\"component\":null,\"message\":\"bad\"}), and 2 "
            "other paths differ");
}

TEST(DiffConversations, AlignmentIsALongestCommonSubsequence) {
  // ABCABBA / CBABAC: 4 steps in common (Myers 1986, figure 1), whatever the repetitions.
  const std::vector<DiffStep> left = namedSteps("ABCABBA");
  const std::vector<DiffStep> right = namedSteps("CBABAC");
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_EQ(countKind(diff, kSame), 4u);
  // Every step appears once, in order, on its side.
  std::vector<std::size_t> lefts;
  std::vector<std::size_t> rights;
  for (const DiffRow& row : diff.rows) {
    if (row.left) {
      lefts.push_back(*row.left);
    }
    if (row.right) {
      rights.push_back(*row.right);
    }
    if (row.kind == kSame) {
      EXPECT_EQ(left[*row.left].input, right[*row.right].input);
    }
  }
  EXPECT_THAT(lefts, ElementsAre(0, 1, 2, 3, 4, 5, 6));
  EXPECT_THAT(rights, ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(DiffConversations, UnmatchedStepsBetweenAnchorsArePairedByPosition) {
  // A B C D E / A X Y E: B-X and C-Y are Changed, D is left over.
  const ConversationDiff diff = diffConversations(namedSteps("ABCDE"), namedSteps("AXYE"));
  EXPECT_THAT(kinds(diff), ElementsAre(kSame, kChanged, kChanged, kLeftOnly, kSame));
  EXPECT_EQ(diff.rows[2].left, 2u);
  EXPECT_EQ(diff.rows[2].right, 2u);
  EXPECT_THAT(diff.rows[1].differences,
              ElementsAre("/candidates/0/output/say", "/input/instruction/content"));
  EXPECT_EQ(diff.rows[3].left, 3u);
  EXPECT_EQ(diff.summary,
            "diverge at left step 2 / right step 2: the instruction differs at "
            "/input/instruction/content (\"B\" vs \"X\"), and 1 other path differs; 3 of 5 rows "
            "differ");
}

TEST(DiffConversations, DifferencesStopAtTheLimit) {
  Json long_memory = Json::array();
  Json other_memory = Json::array();
  for (int i = 0; i < 10; ++i) {
    long_memory.push_back(i);
    other_memory.push_back(-i);
  }
  const std::vector<DiffStep> left = {
      makeStep(inputOf("user", "A", {{"history", long_memory}}),
               Json::array({sayCandidate(0, Json::object(), "ok")}))};
  const std::vector<DiffStep> right = {
      makeStep(inputOf("user", "A", {{"history", other_memory}}),
               Json::array({sayCandidate(0, Json::object(), "ok")}))};
  const ConversationDiff limited = diffConversations(left, right, 2);
  ASSERT_EQ(limited.rows.size(), 1u);
  EXPECT_EQ(limited.rows[0].kind, kChanged);
  EXPECT_THAT(limited.rows[0].differences,
              ElementsAre("/input/memory/history/1", "/input/memory/history/2"));
  EXPECT_TRUE(limited.rows[0].differences_truncated);
  EXPECT_EQ(limited.summary,
            "diverge at left step 1 / right step 1: the memory differs at /input/memory/history/1 "
            "(1 vs -1), and at least 2 other paths differ; same decision");

  const ConversationDiff none = diffConversations(left, right, 0);
  EXPECT_EQ(none.rows[0].kind, kChanged);
  EXPECT_THAT(none.rows[0].differences, IsEmpty());
  EXPECT_TRUE(none.rows[0].differences_truncated);
  EXPECT_EQ(none.summary, "diverge at left step 1 / right step 1: the steps differ; same decision");
  EXPECT_EQ(diffConversations(left, left, 0).rows[0].kind, kSame);

  EXPECT_EQ(diffConversations(left, right).rows[0].differences.size(), 9u);
}

TEST(DiffConversations, BeyondTheSizeCapStepsArePairedByPosition) {
  const std::vector<DiffStep> left = namedSteps("AXYBZ");
  const std::vector<DiffStep> right = namedSteps("AYXBZ");
  // The common A and BZ are set aside; the 2 x 2 rest needs 4 cells.
  const ConversationDiff capped = diffConversations(left, right, 32, 3);
  EXPECT_TRUE(capped.aligned_by_position);
  EXPECT_THAT(kinds(capped), ElementsAre(kSame, kChanged, kChanged, kSame, kSame));
  EXPECT_EQ(capped.summary,
            "too long to align by content (5 and 5 steps), steps paired by position: diverge at "
            "left step 2 / right step 2: the instruction differs at /input/instruction/content "
            "(\"X\" vs \"Y\"), and 1 other path differs; 2 of 5 rows differ");

  const ConversationDiff aligned = diffConversations(left, right, 32, 4);
  EXPECT_FALSE(aligned.aligned_by_position);
  EXPECT_THAT(kinds(aligned), ElementsAre(kSame, kLeftOnly, kSame, kRightOnly, kSame, kSame));
  EXPECT_EQ(aligned.summary,
            "diverge at left step 2, which the right does not have: user \"X\" -> say: ok X; 2 "
            "of 6 rows differ");

  // A long common beginning and end cost no table: only what lies between them counts.
  std::vector<DiffStep> long_left;
  std::vector<DiffStep> long_right;
  for (int i = 0; i < 3000; ++i) {
    long_left.push_back(named("s" + std::to_string(i)));
  }
  long_right = long_left;
  long_right[1500] = named("changed");
  const ConversationDiff long_diff = diffConversations(long_left, long_right, 32, 1);
  EXPECT_FALSE(long_diff.aligned_by_position);
  EXPECT_EQ(long_diff.rows.size(), 3000u);
  EXPECT_EQ(long_diff.first_divergence, 1500u);
}

TEST(DiffConversations, TheDefaultCapHoldsThousandsOfSteps) {
  // 1500 x 1500 steps, every 7th different: the table is built.
  std::vector<DiffStep> left;
  std::vector<DiffStep> right;
  for (int i = 0; i < 1500; ++i) {
    left.push_back(named("s" + std::to_string(i)));
    right.push_back(named(i % 7 == 3 ? "r" + std::to_string(i) : "s" + std::to_string(i)));
  }
  const ConversationDiff aligned = diffConversations(left, right);
  EXPECT_FALSE(aligned.aligned_by_position);
  EXPECT_EQ(aligned.rows.size(), 1500u);
  EXPECT_EQ(countKind(aligned, kChanged), 214u);
  EXPECT_EQ(aligned.first_divergence, 3u);

  // 5001 x 5001 steps with nothing in common: above 5000 x 5000, paired by position.
  left.clear();
  right.clear();
  for (int i = 0; i < 5001; ++i) {
    left.push_back(named("l" + std::to_string(i)));
    right.push_back(named("r" + std::to_string(i)));
  }
  const ConversationDiff capped = diffConversations(left, right);
  EXPECT_TRUE(capped.aligned_by_position);
  EXPECT_EQ(capped.rows.size(), 5001u);
  EXPECT_EQ(countKind(capped, kChanged), 5001u);
  EXPECT_THAT(capped.summary,
              StartsWith("too long to align by content (5001 and 5001 steps), steps paired by "
                         "position: diverge at left step 1 / right step 1: "));
  EXPECT_THAT(capped.summary, EndsWith("; all 5001 rows differ"));
}

TEST(DiffConversations, StepsWithoutAnyCandidatesCompare) {
  DiffStep unanswered = named("A");
  unanswered.candidates = Json::array();
  const std::vector<DiffStep> left = {unanswered};
  const std::vector<DiffStep> right = {named("A")};
  const ConversationDiff diff = diffConversations(left, right);
  EXPECT_THAT(kinds(diff), ElementsAre(kChanged));
  EXPECT_THAT(diff.rows[0].differences, ElementsAre("/candidates/0"));
  EXPECT_THAT(diff.summary, StartsWith("diverge at left step 1 / right step 1: the decision "
                                       "differs at /candidates/0 (absent vs {"));
}

}  // namespace
}  // namespace agentvcr::replay
