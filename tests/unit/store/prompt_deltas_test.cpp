// Prompts kept as references into their response bodies and searched by what each adds to the
// prompt it continues (schema 16): promptDelta() by hand, then a full-history conversation
// through the Recorder, read back and searched.

#include "prompt_deltas.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/transfer.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using detail::promptDelta;
using testing::queryInt;
using testing::queryText;
using Json = protocol::Json;

std::string added(std::string_view parent, std::string_view prompt) {
  const detail::PromptDelta d = promptDelta(parent, prompt);
  return std::string(prompt.substr(d.begin, d.end - d.begin));
}

TEST(PromptDelta, AContinuedPromptAddsOnlyItsNewTurn) {
  EXPECT_EQ(added("system\nuser: a\n", "system\nuser: a\nmodel: b\nuser: c\n"),
            "model: b\nuser: c\n");
  EXPECT_EQ(added("same", "same"), "");
  EXPECT_EQ(added("", "all new"), "all new");
  EXPECT_EQ(added("unrelated text", "other words"), "other words");
}

TEST(PromptDelta, TheNewPartIsBetweenTheCommonPrefixAndSuffix) {
  // A summarising agent rewrites the middle and keeps its system text and its closing line.
  EXPECT_EQ(added("SYS summary one END", "SYS summary two END"), "two");
  EXPECT_EQ(added("head tail", "head middle tail"), "middle ");
}

TEST(PromptDelta, CutsFallOnWordEdgesNeverInsideAWordOrACharacter) {
  EXPECT_EQ(added("press sw1", "press sw12"), "sw12");
  EXPECT_EQ(added("caf\u00e9 one", "caf\u00e8 one"), "caf\u00e8");
  EXPECT_EQ(added("x sw12 y", "x sw13 y"), "sw13");
}

TEST(PromptDelta, TheStepsOwnInstructionIsNotIndexedAgainInItsPrompt) {
  const std::string prompt = "system\nuser: a\nmodel: b\nuser: Please press sw3\nassistant:";
  const detail::PromptDelta delta = promptDelta("system\nuser: a\n", prompt);
  EXPECT_EQ(detail::newPromptText(prompt, delta, "Please press sw3"),
            "model: b\nuser:  \nassistant:");
  EXPECT_EQ(detail::newPromptText(prompt, delta, "press"),
            "model: b\nuser: Please   sw3\nassistant:");
  // Only whole words: "press" is no part of "pressed".
  EXPECT_EQ(detail::newPromptText("x pressed y", detail::PromptDelta{std::nullopt, 0, 11}, "press"),
            "x pressed y");
  EXPECT_EQ(detail::newPromptText("x pressed y", detail::PromptDelta{std::nullopt, 0, 11}, ""),
            "x pressed y");
}

class PromptReferenceTest : public ::testing::Test {
 protected:
  /// The prompt of step `k` of a full-history agent: its system text, then a line per earlier
  /// turn, each with a word no other turn has.
  static std::string promptOf(int k) {
    std::string prompt = "You are the commander.\n";
    for (int i = 0; i < k; ++i) {
      prompt += "turn " + std::to_string(i) + ": pressed marker" + std::to_string(i) + "\n";
    }
    return prompt + "now?";
  }

  void recordConversation(int steps) {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    for (int k = 0; k < steps; ++k) {
      const std::string id = "r" + std::to_string(k);
      Json out = testing::sayOutput(id, 1, 0, testing::memoryOf("e", k + 1), "ok");
      out["internal_steps"] = Json::array(
          {Json{{"id", "step-0"}, {"component", "commander"}, {"full_prompt", promptOf(k)}}});
      testing::submit(
          recorder,
          testing::magmaExchange(
              testing::request(id, {testing::input(1, "user", "press", testing::memoryOf("e", k))}),
              Json::array({out})));
    }
  }

  testing::TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
};

TEST_F(PromptReferenceTest, PromptsAreReadFromTheirBodiesAndIndexedByWhatEachAdds) {
  constexpr int kSteps = 12;
  recordConversation(kSteps);
  // No prompt is copied; each row says where its body holds it and what it adds.
  EXPECT_EQ(queryInt(path_,
                     "SELECT count(*) FROM internal_steps WHERE full_prompt IS NULL "
                     "AND full_prompt_at IS NOT NULL"),
            kSteps);
  EXPECT_EQ(queryText(path_, "SELECT prompt_new FROM internal_steps ORDER BY id LIMIT 1 OFFSET 5"),
            "turn 4: pressed marker4\n");
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM internal_steps WHERE prompt_parent_id IS NULL"),
            1);
  const ArchiveReader reader(path_);
  for (int k = 0; k < kSteps; ++k) {
    const std::int64_t candidate =
        queryInt(path_,
                 "SELECT c.id FROM candidates c JOIN steps s ON s.id = c.step_id JOIN exchanges e "
                 "ON e.id = s.exchange_id WHERE e.seq = " +
                     std::to_string(k));
    const std::vector<InternalStepRow> rows = reader.internalSteps(candidate);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].full_prompt, promptOf(k)) << "step " << k;
    EXPECT_EQ(Json::parse(rows[0].body)["full_prompt"], promptOf(k)) << "step " << k;
  }

  // marker3 is in the prompts of steps 4 to 11: one hit, the first of them, repeated by 7.
  SearchQuery query;
  query.text = "marker3";
  const std::vector<SearchHit> hits = reader.search(query);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].field, "full_prompt");
  EXPECT_EQ(hits[0].step_id, queryInt(path_,
                                      "SELECT s.id FROM steps s JOIN exchanges e ON "
                                      "e.id = s.exchange_id WHERE e.seq = 4"));
  EXPECT_EQ(hits[0].repeated_by, kSteps - 5);
  EXPECT_EQ(hits[0].snippet, "turn 3: pressed [marker3]\n");
}

TEST_F(PromptReferenceTest, APromptNamedTwiceOrSpelledWithUnicodeEscapesReadsBackAsParsed) {
  // The decoder keeps the later of two members of one name, and a \u escape is decoded: each
  // prompt reads back as the parser read it, from the literal the reference names.
  const std::string prompt = promptOf(3);
  protocol::Exchange ex;
  {
    Json out = testing::sayOutput("r0", 1, 0, testing::memoryOf("e", 1), "ok");
    out["internal_steps"] =
        Json::array({Json{{"id", "step-0"}, {"component", "commander"}, {"full_prompt", prompt}},
                     Json{{"id", "step-1"}, {"component", "critic"}, {"full_prompt", prompt}}});
    ex = testing::magmaExchange(
        testing::request("r0", {testing::input(1, "user", "press", testing::memoryOf("e", 0))}),
        Json::array({out}));
  }
  std::string& body = ex.response_body;
  const std::string literal = Json(prompt).dump();
  const std::size_t first = body.find(literal);
  ASSERT_NE(first, std::string::npos);
  body.insert(body.rfind("\"full_prompt\":", first), R"("full_prompt":"a decoy\n",)");
  const std::size_t second = body.find(literal, body.find(literal) + literal.size());
  ASSERT_NE(second, std::string::npos);
  body.replace(second, literal.size(), R"("caf\u00e9 \ud83d\ude00\n)" + literal.substr(1));
  const protocol::Json parsed = Json::parse(body);
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, std::move(ex));
  }
  ArchiveReader reader(path_);
  const std::vector<CandidateRow> candidates =
      reader.candidates(queryInt(path_, "SELECT id FROM steps"));
  ASSERT_EQ(candidates.size(), 1u);
  const std::vector<InternalStepRow> rows = reader.internalSteps(candidates[0].id);
  ASSERT_EQ(rows.size(), 2u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].full_prompt.value_or("?"),
              parsed[0]["internal_steps"][i]["full_prompt"].get<std::string>())
        << "internal step " << i;
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM internal_steps WHERE full_prompt_at IS NULL"), 0);
}

TEST_F(PromptReferenceTest, AMergedCopyKeepsWhatIsNewAsTheRecordingDoes) {
  constexpr int kSteps = 20;
  recordConversation(kSteps);
  const std::string merged = dir_.file("merged.sqlite");
  mergeArchive(merged, path_);
  // The copy is recorded again: its bodies in segments, its prompts and memories references.
  for (const std::string& path : {path_, merged}) {
    EXPECT_EQ(queryInt(path,
                       "SELECT count(*) FROM exchanges WHERE response_body_codec = "
                       "'zstd-segment'"),
              kSteps)
        << path;
    EXPECT_EQ(queryInt(path, "SELECT count(*) FROM internal_steps WHERE full_prompt IS NULL"),
              kSteps)
        << path;
  }
  const std::string in_bodies = "SELECT count(*) FROM blobs WHERE codec = 'body'";
  EXPECT_GT(queryInt(path_, in_bodies), 0);
  EXPECT_EQ(queryInt(merged, in_bodies), queryInt(path_, in_bodies));
  const ArchiveReader original(path_);
  const ArchiveReader copy(merged);
  for (std::int64_t id = 1; id <= kSteps; ++id) {
    EXPECT_EQ(copy.exchange(id)->response_body, original.exchange(id)->response_body);
    EXPECT_EQ(copy.inputJson(id), original.inputJson(id));
  }
}

}  // namespace
}  // namespace agentvcr::store
