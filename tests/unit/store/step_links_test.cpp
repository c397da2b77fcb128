// Evaluation step links (schema version 6): written, read from either side, carried by merge.

#include "agentvcr/store/step_links.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/transfer.hpp"
#include "store_test_support.hpp"
#include "transfer_fixture.hpp"

namespace agentvcr::store {
namespace {

using testing::queryInt;
using testing::recordSample;
using testing::TempDir;
using testing::testMergeOptions;
using testing::testOptions;

std::vector<std::int64_t> stepIdsOfSession(const ArchiveReader& reader, std::int64_t session) {
  std::vector<std::int64_t> ids;
  for (const ConversationRow& conversation : reader.conversations(session)) {
    for (const StepRow& step : reader.steps(conversation.id)) {
      ids.push_back(step.id);
    }
  }
  return ids;
}

/// Records the sample as a session that evaluates `recorded`: each of its steps linked to the
/// recorded one's. Returns the evaluation session.
std::int64_t recordEvaluationOf(const std::string& path, std::int64_t recorded) {
  const std::int64_t evaluated = recordSample(path, "eval");
  std::vector<StepLink> links;
  {
    const ArchiveReader reader(path);
    const auto from = stepIdsOfSession(reader, evaluated);
    const auto to = stepIdsOfSession(reader, recorded);
    EXPECT_EQ(from.size(), to.size());
    for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) {
      links.push_back({from[i], to[i]});
    }
  }
  writeStepLinks(path, links);
  return evaluated;
}

/// Records the sample twice and links the second session's steps to the first's, as an
/// evaluation of it would; returns {recorded session, evaluation session}.
std::pair<std::int64_t, std::int64_t> recordEvaluatedSample(const std::string& path) {
  const std::int64_t recorded = recordSample(path, "recorded");
  return {recorded, recordEvaluationOf(path, recorded)};
}

TEST(StepLinksTest, PairsAreFoundFromEitherConversation) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  const auto [recorded, evaluated] = recordEvaluatedSample(path);
  const ArchiveReader reader(path);
  EXPECT_EQ(reader.stepLinksOfSession(evaluated).size(), 2u);
  EXPECT_TRUE(reader.stepLinksOfSession(recorded).empty());

  const auto conversation =
      reader.step(reader.stepLinksOfSession(evaluated)[0].recorded_step_id)->conversation_id;
  const auto pairs = reader.evaluationPairs(conversation);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].recorded_conversation_id, conversation);
  EXPECT_EQ(reader.conversation(pairs[0].evaluated_conversation_id)->session_id, evaluated);
  const auto back = reader.evaluationPairs(pairs[0].evaluated_conversation_id);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].recorded_conversation_id, conversation);
}

TEST(StepLinksTest, AnUnknownStepIsRefusedAndNothingIsWritten) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  recordSample(path, "recorded");
  const std::int64_t step = queryInt(path, "SELECT min(id) FROM steps");
  try {
    writeStepLinks(path, {{step, step + 1}, {step, 999999}});
    FAIL() << "a link to a missing step was written";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("[store.links]"), std::string::npos) << error.what();
  }
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM step_links"), 0);
}

TEST(StepLinksTest, MergeCarriesTheLinksToTheCopiedSteps) {
  TempDir dir;
  const std::string in = dir.file("in.sqlite");
  const std::string out = dir.file("out.sqlite");
  recordSample(out, "already there");
  const auto [recorded, evaluated] = recordEvaluatedSample(in);

  const CopyResult copy = mergeArchive(out, in, testMergeOptions());
  ASSERT_EQ(copy.session_ids.size(), 2u);
  EXPECT_EQ(copy.step_links, 2u);
  const ArchiveReader source(in);
  const ArchiveReader merged(out);
  const auto before = source.stepLinksOfSession(evaluated);
  const auto after = merged.stepLinksOfSession(copy.session_ids[1]);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(merged.step(after[i].step_id)->session_id, copy.session_ids[1]);
    EXPECT_EQ(merged.step(after[i].recorded_step_id)->session_id, copy.session_ids[0]);
    EXPECT_EQ(merged.step(after[i].recorded_step_id)->replay_key,
              source.step(before[i].recorded_step_id)->replay_key);
  }
}

TEST(StepLinksTest, MergeFindsTheRecordedStepsHoweverTheirSessionsUuidIsSpelled) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  const std::string merged = dir.file("merged.sqlite");
  const std::int64_t recorded = recordSample(source, "recorded");
  mergeArchive(merged, source, testMergeOptions());
  // The recorded session, held in capitals (as an import may keep them), is the one its
  // evaluation links to.
  SQLite::Database(merged, SQLite::OPEN_READWRITE).exec("UPDATE sessions SET uuid = upper(uuid)");
  recordEvaluationOf(source, recorded);
  const CopyResult copied = mergeArchive(merged, source, testMergeOptions());
  EXPECT_EQ(copied.session_ids.size(), 1u) << "the recorded session is held already";
  EXPECT_EQ(copied.step_links, 2u);
  EXPECT_EQ(queryInt(merged, "SELECT count(*) FROM step_links"), 2);
}

}  // namespace
}  // namespace agentvcr::store
