// Evaluation and fork links of steps (schema version 6) and of A2A calls (15): written, read
// from either side, carried by merge.

#include "agentvcr/store/step_links.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
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
  EXPECT_EQ(copy.links, 2u);
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
  EXPECT_EQ(copied.links, 2u);
  EXPECT_EQ(queryInt(merged, "SELECT count(*) FROM step_links"), 2);
}

/// Records one A2A context of three calls through the recorder, as session `name`; the
/// calls' answers say `answer`. Returns the session.
std::int64_t recordA2aContext(const std::string& path, const std::string& name,
                              const std::string& answer) {
  Recorder recorder(path, testing::testSession(name), testOptions());
  for (int i = 1; i <= 3; ++i) {
    testing::submit(
        recorder,
        testing::httpExchange("POST", "/a2a",
                              testing::a2aSend(i, "m-" + std::to_string(i), "q" + std::to_string(i),
                                               i == 1 ? "" : "ctx-" + name),
                              200,
                              testing::a2aTask(i, "t-" + name, "ctx-" + name, "completed",
                                               answer + std::to_string(i))));
  }
  recorder.close();
  return recorder.sessionId();
}

std::vector<A2aCallRow> callsOfSession(const ArchiveReader& reader, std::int64_t session) {
  std::vector<A2aCallRow> calls;
  for (const ExchangeRow& exchange : reader.exchanges(session, 0, ArchiveReader::kNoLimit)) {
    for (A2aCallRow& call : reader.a2aCallsOfExchange(exchange.id)) {
      calls.push_back(std::move(call));
    }
  }
  return calls;
}

// A fork's A2A context, stored as a session of mode `fork` whose first call continues the
// recording's third: its origin names that call and the two recorded before it, merge carries
// the link to the copied calls, and a link to a call that does not exist is refused whole.
TEST(CallLinksTest, AForkedContextFindsItsOriginAndMergeCarriesTheLink) {
  TempDir dir;
  const std::string in = dir.file("in.sqlite");
  const std::string out = dir.file("out.sqlite");
  const std::int64_t recorded = recordA2aContext(in, "recorded", "answer ");
  std::int64_t forked = 0;
  {
    SessionInfo fork = testing::testSession("fork of 1 at 2");
    fork.mode = "fork";
    Recorder recorder(in, fork, testOptions());
    testing::submit(
        recorder,
        testing::httpExchange(
            "POST", "/a2a", testing::a2aSend(3, "m-3", "q3", "ctx-recorded"), 200,
            testing::a2aTask(3, "t-live", "ctx-recorded", "completed", "changed answer")));
    recorder.close();
    forked = recorder.sessionId();
  }
  std::int64_t live_call = 0;
  std::int64_t reasked = 0;
  {
    const ArchiveReader reader(in);
    live_call = callsOfSession(reader, forked).at(0).id;
    reasked = callsOfSession(reader, recorded).at(2).id;
  }
  EXPECT_THROW(writeCallLinks(in, {{live_call, reasked}, {live_call, 999999}}), std::runtime_error);
  EXPECT_EQ(queryInt(in, "SELECT count(*) FROM call_links"), 0) << "nothing of a refused write";
  writeCallLinks(in, {{live_call, reasked}});
  {
    const ArchiveReader reader(in);
    ASSERT_EQ(reader.callLinksOfSession(forked).size(), 1u);
    EXPECT_TRUE(reader.callLinksOfSession(recorded).empty());
    EXPECT_EQ(queryInt(in, "SELECT link_count FROM sessions WHERE id = " + std::to_string(forked)),
              1);
    const auto conversation = *reader.a2aCall(live_call)->conversation_id;
    const std::optional<A2aForkOrigin> origin = reader.a2aForkOrigin(conversation);
    ASSERT_TRUE(origin);
    EXPECT_EQ(origin->reasked.id, reasked);
    ASSERT_EQ(origin->prefix.size(), 2u);
    EXPECT_EQ(origin->prefix[0].message_id, "m-1");
    EXPECT_EQ(origin->prefix[1].message_id, "m-2");
    const auto recorded_conversation = *reader.a2aCall(reasked)->conversation_id;
    EXPECT_FALSE(reader.a2aForkOrigin(recorded_conversation)) << "a recording forks nothing";
  }

  const CopyResult copy = mergeArchive(out, in, testMergeOptions());
  ASSERT_EQ(copy.session_ids.size(), 2u);
  EXPECT_EQ(copy.links, 1u);
  const ArchiveReader merged(out);
  const auto links = merged.callLinksOfSession(copy.session_ids[1]);
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(merged.a2aCall(links[0].call_id)->session_id, copy.session_ids[1]);
  const auto recorded_copy = merged.a2aCall(links[0].recorded_call_id);
  EXPECT_EQ(recorded_copy->session_id, copy.session_ids[0]);
  EXPECT_EQ(recorded_copy->message_id, "m-3");
  EXPECT_TRUE(merged.a2aForkOrigin(*merged.a2aCall(links[0].call_id)->conversation_id));
}

}  // namespace
}  // namespace agentvcr::store
