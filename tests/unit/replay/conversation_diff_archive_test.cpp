// diffStepsOf over real archives, written by store::Recorder as in the store unit tests.

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../store/store_test_support.hpp"
#include "agentvcr/replay/conversation_diff.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;
using store::ArchiveReader;
using store::Recorder;
using store::testing::callOutput;
using store::testing::input;
using store::testing::magmaExchange;
using store::testing::memoryOf;
using store::testing::request;
using store::testing::sayOutput;
using store::testing::submit;
using store::testing::TempDir;
using store::testing::testOptions;
using store::testing::testSession;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const char* kPressed =
    R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", )"
    R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";

/// Episode A of magma-protocol.md §19 (three steps on slot 0, one chain), its request ids
/// prefixed by `run`, its first press on `button`.
void recordEpisode(const std::string& path, const std::string& run, const std::string& button) {
  Recorder recorder(path, testSession(run), testOptions());
  const Json m0 = Json{{"history", Json::array()}};
  const Json m1 = memoryOf("a", 2);
  const Json m2 = memoryOf("a", 4);
  const Json m3 = memoryOf("a", 6);
  submit(recorder, magmaExchange(request(run + "1", {input(0, "user", "Please press sw1", m0)}),
                                 Json::array({callOutput(run + "1", 0, 0, m1, button)})));
  submit(recorder,
         magmaExchange(request(run + "2", {input(0, "env", kPressed, m1)}),
                       Json::array({sayOutput(run + "2", 0, 0, m2, "Done, sw1 is pressed.")})));
  submit(recorder, magmaExchange(request(run + "3", {input(0, "user", "Please press sw3", m2)}),
                                 Json::array({sayOutput(run + "3", 0, 0, m3, "sw3 is pressed.")})));
  recorder.flush();
}

/// The steps of the only conversation of the archive.
std::vector<DiffStep> onlyConversation(const std::string& path) {
  ArchiveReader reader(path);
  const std::vector<store::SessionRow> sessions = reader.sessions();
  EXPECT_EQ(sessions.size(), 1u);
  const std::vector<store::ConversationRow> conversations = reader.conversations(sessions.at(0).id);
  EXPECT_EQ(conversations.size(), 1u);
  return diffStepsOf(reader, conversations.at(0).id);
}

TEST(DiffStepsOf, ReadsTheStepsOfAConversationInTreeOrderWithoutIds) {
  TempDir dir;
  const std::string path = dir.file("archive.sqlite");
  {
    // A GEN-style tree: two candidates at the root, a step below each.
    Recorder recorder(path, testSession(), testOptions());
    const Json m0 = memoryOf("root", 1);
    const Json call_memory = memoryOf("call", 2);
    const Json say_memory = memoryOf("say", 2);
    submit(recorder,
           magmaExchange(request("g1", {input(41, "user", "Please press sw1", m0, 2)}),
                         Json::array({callOutput("g1", 41, 0, call_memory, "sw1"),
                                      sayOutput("g1", 41, 1, say_memory, "Which button?")})));
    submit(recorder,
           magmaExchange(request("g2", {input(63, "env", kPressed, call_memory),
                                        input(64, "user", "sw1", say_memory)}),
                         Json::array({sayOutput("g2", 63, 0, memoryOf("call", 4), "Done."),
                                      sayOutput("g2", 64, 0, memoryOf("say", 4), "Ok.")})));
    recorder.flush();
  }
  ArchiveReader reader(path);
  const std::vector<store::ConversationRow> conversations =
      reader.conversations(reader.sessions().at(0).id);
  ASSERT_EQ(conversations.size(), 1u);
  const std::vector<store::StepRow> rows = reader.steps(conversations[0].id);
  const std::vector<DiffStep> steps = diffStepsOf(reader, conversations[0].id);
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(steps.size(), 3u);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(steps[i].step_id, rows[i].id);
    EXPECT_EQ(steps[i].depth, rows[i].depth);
    Json expected_input = *reader.inputJson(rows[i].id);
    expected_input.erase("id");
    EXPECT_EQ(steps[i].input, expected_input);
    EXPECT_FALSE(steps[i].input.contains("id"));
    ASSERT_TRUE(steps[i].candidates.is_array());
    ASSERT_EQ(steps[i].candidates.size(), static_cast<std::size_t>(rows[i].candidate_count));
    for (std::size_t k = 0; k < steps[i].candidates.size(); ++k) {
      const Json& candidate = steps[i].candidates[k];
      EXPECT_FALSE(candidate.contains("request_id"));
      EXPECT_FALSE(candidate.contains("source_id"));
      EXPECT_EQ(candidate["candidate_index"], k);
      for (const char* key : {"status", "memory", "internal_steps", "output", "error"}) {
        EXPECT_TRUE(candidate.contains(key)) << key;
      }
    }
  }
  EXPECT_EQ(steps[0].depth, 0);
  EXPECT_EQ(steps[1].depth, 1);
  EXPECT_EQ(steps[2].depth, 1);
  EXPECT_EQ(steps[0].input["num_outputs"], 2);
  EXPECT_EQ(steps[0].input["instruction"]["content"], "Please press sw1");
  EXPECT_EQ(decisionText(steps[0]), R"(panda.press_button({"id":"sw1"}) | say: Which button?)");
  EXPECT_THAT(diffStepsOf(reader, 987654), IsEmpty());
}

TEST(DiffStepsOf, TwoRecordingsOfTheSameEpisodeAreIdentical) {
  // Request ids and step ids differ between the runs; the diff does not look at them.
  TempDir dir;
  recordEpisode(dir.file("left.sqlite"), "a", "sw1");
  recordEpisode(dir.file("right.sqlite"), "b", "sw1");
  const ConversationDiff diff = diffConversations(onlyConversation(dir.file("left.sqlite")),
                                                  onlyConversation(dir.file("right.sqlite")));
  EXPECT_EQ(diff.rows.size(), 3u);
  EXPECT_FALSE(diff.first_divergence.has_value());
  EXPECT_EQ(diff.summary, "identical (3 steps)");
}

TEST(DiffStepsOf, ARecordingThatPressedAnotherButton) {
  TempDir dir;
  recordEpisode(dir.file("left.sqlite"), "a", "sw1");
  recordEpisode(dir.file("right.sqlite"), "b", "sw2");
  const ConversationDiff diff = diffConversations(onlyConversation(dir.file("left.sqlite")),
                                                  onlyConversation(dir.file("right.sqlite")));
  ASSERT_EQ(diff.rows.size(), 3u);
  EXPECT_EQ(diff.rows[0].kind, RowKind::Changed);
  EXPECT_THAT(diff.rows[0].differences,
              ElementsAre("/candidates/0/internal_steps/0/output_raw",
                          "/candidates/0/output/tool_calls/0/arguments/id"));
  EXPECT_EQ(diff.rows[1].kind, RowKind::Same);
  EXPECT_EQ(diff.rows[2].kind, RowKind::Same);
  EXPECT_EQ(diff.summary,
            "diverge at left step 1 / right step 1: the decision differs at "
            "/candidates/0/output/tool_calls/0/arguments/id (\"sw1\" vs \"sw2\"), and 1 other "
            "path differs");
}

}  // namespace
}  // namespace agentvcr::replay
