#include "agentvcr/store/archive_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/store/recorder.hpp"
#include "session_lock.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::callOutput;
using testing::errorOutput;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::queryInt;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

class ArchiveReaderTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
};

TEST_F(ArchiveReaderTest, ExchangesArePagedBySeq) {
  Recorder recorder(path_, testSession(), testOptions());
  for (std::size_t i = 0; i < 25; ++i) {
    submit(recorder, httpExchange("POST", "/p/" + std::to_string(i), std::string(10 + i, 'x'), 200,
                                  std::string(i, 'y')));
  }
  recorder.flush();
  ArchiveReader reader(path_);

  std::vector<ExchangeRow> all;
  for (std::int64_t offset = 0;; offset += 10) {
    std::vector<ExchangeRow> page = reader.exchanges(recorder.sessionId(), offset, 10);
    if (page.empty()) {
      break;
    }
    EXPECT_LE(page.size(), 10u);
    EXPECT_EQ(page.front().seq, offset);
    all.insert(all.end(), page.begin(), page.end());
  }
  ASSERT_EQ(all.size(), 25u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const ExchangeRow& row = all[i];
    EXPECT_EQ(row.target, "/p/" + std::to_string(i));
    EXPECT_FALSE(row.has_payload);
    EXPECT_TRUE(row.request_body.empty());
    EXPECT_TRUE(row.request_headers.empty());
    EXPECT_EQ(row.request_body_size, static_cast<std::int64_t>(10 + i));
    EXPECT_EQ(row.response_body_size, static_cast<std::int64_t>(i));
  }
  std::optional<ExchangeRow> full = reader.exchange(all[24].id);
  ASSERT_TRUE(full.has_value());
  EXPECT_TRUE(full->has_payload);
  EXPECT_EQ(full->request_body, std::string(34, 'x'));
  EXPECT_EQ(full->response_body, std::string(24, 'y'));
  EXPECT_FALSE(full->request_headers.empty());
  EXPECT_TRUE(reader.exchanges(recorder.sessionId(), 25, 10).empty());
  EXPECT_TRUE(reader.exchanges(recorder.sessionId() + 1, 0, 10).empty());
}

TEST_F(ArchiveReaderTest, ConversationsArePagedById) {
  Recorder recorder(path_, testSession(), testOptions());
  for (int i = 0; i < 7; ++i) {
    const std::string rid = "r" + std::to_string(i);
    submit(recorder, magmaExchange(request(rid, {input(i, "user", "episode " + std::to_string(i),
                                                       memoryOf("root" + rid, 0))}),
                                   Json::array({sayOutput(rid, i, 0, memoryOf(rid, 2), "ok")})));
  }
  recorder.flush();
  ArchiveReader reader(path_);
  std::vector<ConversationRow> first = reader.conversations(recorder.sessionId(), 0, 3);
  ASSERT_EQ(first.size(), 3u);
  std::vector<ConversationRow> rest =
      reader.conversations(recorder.sessionId(), first.back().id, ArchiveReader::kNoLimit);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_LT(first.back().id, rest.front().id);
  EXPECT_EQ(rest.back().title.value_or(""), "episode 6");
  EXPECT_EQ(reader.conversations(recorder.sessionId()).size(), 7u);
}

TEST_F(ArchiveReaderTest, CountsMatchTheTables) {
  Recorder recorder(path_, testSession(), testOptions());
  submit(recorder, httpExchange("GET", "/health", "", 200, R"({"status":"ready"})"));
  submit(recorder, magmaExchange(request("r", {input(1, "user", "a", memoryOf("c", 0), 2),
                                               input(2, "user", "b", memoryOf("d", 0))}),
                                 Json::array({sayOutput("r", 1, 0, memoryOf("c", 2), "x"),
                                              sayOutput("r", 1, 1, memoryOf("c", 3), "y"),
                                              sayOutput("r", 2, 0, memoryOf("d", 2), "z")})));
  recorder.flush();
  ArchiveReader reader(path_);
  ArchiveCounts counts = reader.counts();
  EXPECT_EQ(counts.sessions, queryInt(path_, "SELECT count(*) FROM sessions"));
  EXPECT_EQ(counts.exchanges, 2);
  EXPECT_EQ(counts.exchanges, queryInt(path_, "SELECT count(*) FROM exchanges"));
  EXPECT_EQ(counts.steps, 2);
  EXPECT_EQ(counts.steps, queryInt(path_, "SELECT count(*) FROM steps"));
  EXPECT_EQ(counts.candidates, 3);
  EXPECT_EQ(counts.candidates, queryInt(path_, "SELECT count(*) FROM candidates"));
  EXPECT_EQ(counts.internal_steps, queryInt(path_, "SELECT count(*) FROM internal_steps"));
  EXPECT_EQ(counts.conversations, 2);
  EXPECT_EQ(counts.conversations, queryInt(path_, "SELECT count(*) FROM conversations"));
  EXPECT_EQ(counts.blobs, queryInt(path_, "SELECT count(*) FROM blobs"));
  EXPECT_EQ(reader.schemaVersion(), queryInt(path_, "PRAGMA user_version"));

  std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].step_count, 2);
  EXPECT_EQ(sessions[0].candidate_count, 3);
  EXPECT_EQ(sessions[0].conversation_count, 2);
}

TEST_F(ArchiveReaderTest, StepOutlinesAreItsStepsInTreeOrderWithTheirCandidatesCounted) {
  Recorder recorder(path_, testSession(), testOptions());
  const Json start = Json{{"history", Json::array()}};
  // A root asked for two answers: a tool call and an error.
  submit(recorder, magmaExchange(request("t1", {input(0, "user", "Press sw1", start, 2)}),
                                 Json::array({callOutput("t1", 0, 0, memoryOf("t", 2), "sw1"),
                                              errorOutput("t1", 0, 1, start)})));
  // A continuation of the tool call the agent refused with a 422: a step without candidates.
  submit(recorder,
         httpExchange("POST", "/v1/responses",
                      request("t2", {input(0, "user", "Press sw2", memoryOf("t", 2))}).dump(), 422,
                      R"({"detail":[]})"));
  // A second continuation of the tool call, answered twice.
  submit(recorder,
         magmaExchange(request("t3", {input(0, "user", "Press sw3", memoryOf("t", 2), 2)}),
                       Json::array({sayOutput("t3", 0, 0, memoryOf("t", 4), "Done"),
                                    sayOutput("t3", 0, 1, memoryOf("t", 5), "Done too")})));
  // A conversation of its own, whose candidates must not mix in.
  submit(recorder, magmaExchange(request("o1", {input(0, "user", "Other", memoryOf("o", 1))}),
                                 Json::array({sayOutput("o1", 0, 0, memoryOf("o", 3), "Other")})));
  recorder.flush();
  ArchiveReader reader(path_);

  const std::vector<ConversationRow> conversations = reader.conversations(recorder.sessionId());
  ASSERT_EQ(conversations.size(), 2u);
  std::size_t outlined = 0;
  for (const ConversationRow& conversation : conversations) {
    const std::vector<StepRow> steps = reader.steps(conversation.id);
    const std::vector<StepOutline> outlines = reader.stepOutlines(conversation.id);
    ASSERT_EQ(outlines.size(), steps.size()) << "conversation " << conversation.id;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const StepOutline& got = outlines[i];
      const StepRow& want = steps[i];
      EXPECT_EQ(got.id, want.id);
      EXPECT_EQ(got.exchange_id, want.exchange_id);
      EXPECT_EQ(got.parent_candidate_id, want.parent_candidate_id);
      EXPECT_EQ(got.parent_step_id, want.parent_step_id);
      EXPECT_EQ(got.depth, want.depth);
      EXPECT_EQ(got.env, want.instruction_type == "env");
      EXPECT_EQ(got.env_failure, want.env_failure.value_or(false));
      std::int32_t errors = 0;
      std::int32_t forks = 0;
      for (const CandidateRow& candidate : reader.candidates(want.id)) {
        errors += candidate.status == "error" ? 1 : 0;
        forks += candidate.child_count > 0 ? 1 : 0;
      }
      EXPECT_EQ(got.error_candidates, errors);
      EXPECT_EQ(got.forking_candidates, forks);
    }
    outlined += outlines.size();
  }
  const std::vector<StepOutline> tree = reader.stepOutlines(conversations[0].id);
  ASSERT_EQ(tree.size(), 3u);
  EXPECT_EQ(tree[0].error_candidates, 1) << "the root's second answer is an error";
  EXPECT_EQ(tree[0].forking_candidates, 1) << "only its tool call continues, twice";
  EXPECT_EQ(tree[1].error_candidates + tree[2].error_candidates, 0);
  EXPECT_EQ(outlined, 4u);
  EXPECT_TRUE(reader.stepOutlines(42).empty());
}

TEST_F(ArchiveReaderTest, ForEachStepVisitsWhatStepsReturnsInTreeOrder) {
  Recorder recorder(path_, testSession(), testOptions());
  const std::string pressed =
      R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", )"
      R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";
  // A root answered twice; its first answer continued twice over, its second once, recorded so
  // that tree order (root, first answer's line, second answer's) is not id order.
  submit(recorder,
         magmaExchange(request("f1", {input(0, "user", "Press sw1", memoryOf("f", 0), 2)}),
                       Json::array({callOutput("f1", 0, 0, memoryOf("a", 2), "sw1"),
                                    sayOutput("f1", 0, 1, memoryOf("b", 2), "No")})));
  submit(recorder, magmaExchange(request("f2", {input(0, "env", pressed, memoryOf("a", 2))}),
                                 Json::array({sayOutput("f2", 0, 0, memoryOf("a", 4), "Done")})));
  submit(recorder,
         magmaExchange(request("f3", {input(0, "user", "Why not?", memoryOf("b", 2))}),
                       Json::array({sayOutput("f3", 0, 0, memoryOf("b", 4), "Because")})));
  submit(recorder, magmaExchange(request("f4", {input(0, "user", "Thanks", memoryOf("a", 4))}),
                                 Json::array({sayOutput("f4", 0, 0, memoryOf("a", 6), "Bye")})));
  recorder.flush();
  ArchiveReader reader(path_);
  const std::vector<ConversationRow> conversations = reader.conversations(recorder.sessionId());
  ASSERT_EQ(conversations.size(), 1u);

  const std::vector<StepRow> returned = reader.steps(conversations[0].id);
  std::vector<StepRow> visited;
  reader.forEachStep(conversations[0].id, [&](StepRow&& step) {
    EXPECT_TRUE(reader.step(step.id).has_value()) << "the reader is free during a visit";
    visited.push_back(std::move(step));
  });
  ASSERT_EQ(visited.size(), 4u);
  ASSERT_EQ(returned.size(), visited.size());
  for (std::size_t i = 0; i < visited.size(); ++i) {
    EXPECT_EQ(visited[i].id, returned[i].id);
    EXPECT_EQ(visited[i].depth, returned[i].depth);
    EXPECT_EQ(visited[i].env_feedback, returned[i].env_feedback);
  }
  std::vector<std::string> instructions;
  for (const StepRow& step : visited) {
    instructions.push_back(step.instruction_type == "env" ? "env" : step.instruction_content);
  }
  EXPECT_EQ(instructions, (std::vector<std::string>{"Press sw1", "env", "Thanks", "Why not?"}));
  EXPECT_TRUE(visited[1].env_feedback.is_object()) << "decoded before the visit";
  EXPECT_EQ(visited[1].env_feedback, reader.step(visited[1].id)->env_feedback);
}

TEST_F(ArchiveReaderTest, KeptStatementsSeeWhatWasCommittedSinceTheirLastUse) {
  Recorder recorder(path_, testSession(), testOptions());
  submit(recorder, magmaExchange(request("k1", {input(0, "user", "First", memoryOf("k", 0))}),
                                 Json::array({sayOutput("k1", 0, 0, memoryOf("k", 2), "One")})));
  recorder.flush();
  ArchiveReader reader(path_);
  const std::int64_t first = reader.steps(reader.conversations(recorder.sessionId())[0].id)[0].id;
  ASSERT_TRUE(reader.step(first).has_value());
  ASSERT_EQ(reader.candidates(first).size(), 1u);
  EXPECT_FALSE(reader.step(first + 1).has_value());
  EXPECT_TRUE(reader.candidates(first + 1).empty());

  submit(recorder, magmaExchange(request("k2", {input(0, "user", "Second", memoryOf("k", 2))}),
                                 Json::array({sayOutput("k2", 0, 0, memoryOf("k", 4), "Two")})));
  recorder.flush();
  // The same reader, its statements prepared already: a read transaction left open by the
  // first use would hide the second step.
  ASSERT_TRUE(reader.step(first + 1).has_value());
  EXPECT_EQ(reader.step(first + 1)->instruction_content, "Second");
  ASSERT_EQ(reader.candidates(first + 1).size(), 1u);
  EXPECT_EQ(reader.candidates(first + 1)[0].say.value_or(""), "Two");
}

TEST_F(ArchiveReaderTest, MissingRowsAreEmpty) {
  { Recorder recorder(path_, testSession(), testOptions()); }
  ArchiveReader reader(path_);
  EXPECT_FALSE(reader.session(42).has_value());
  EXPECT_FALSE(reader.conversation(42).has_value());
  EXPECT_FALSE(reader.step(42).has_value());
  EXPECT_FALSE(reader.candidate(42).has_value());
  EXPECT_FALSE(reader.exchange(42).has_value());
  EXPECT_FALSE(reader.blob(42).has_value());
  EXPECT_TRUE(reader.steps(42).empty());
  EXPECT_TRUE(reader.candidates(42).empty());
  EXPECT_TRUE(reader.internalSteps(42).empty());
  EXPECT_TRUE(reader.stepsWithReplayKey(42).empty());
}

TEST_F(ArchiveReaderTest, ReadersMoveAndWorkAfterTheRecorderClosed) {
  {
    Recorder recorder(path_, testSession(), testOptions());
    submit(recorder, httpExchange("GET", "/x"));
  }
  ArchiveReader first(path_);
  ArchiveReader moved(std::move(first));
  EXPECT_EQ(moved.sessions().size(), 1u);
  EXPECT_EQ(moved.counts().exchanges, 1);
}

// A read-only connection to a WAL archive makes -wal and -shm and cannot remove them: `ls` used
// to leave both beside every archive it read.
TEST_F(ArchiveReaderTest, AReaderLeavesNoLogOrSharedMemoryBesideTheArchive) {
  {
    Recorder recorder(path_, testSession(), testOptions());
    submit(recorder, httpExchange("GET", "/x"));
  }
  ASSERT_FALSE(std::filesystem::exists(path_ + "-wal"));
  {
    ArchiveReader reader(path_);
    EXPECT_EQ(reader.sessions().size(), 1u);
    EXPECT_TRUE(std::filesystem::exists(path_ + "-shm"));  // SQLite's, while it reads
  }
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path_ + "-shm"));
}

// The tidying never takes a writer's files away, nor moves what a writer logged.
TEST_F(ArchiveReaderTest, AReaderThatClosesWhileTheRecorderWritesLeavesItsLogAlone) {
  Recorder recorder(path_, testSession(), testOptions());
  submit(recorder, httpExchange("GET", "/x"));
  recorder.flush();
  { EXPECT_EQ(ArchiveReader(path_).sessions().size(), 1u); }
  EXPECT_TRUE(std::filesystem::exists(path_ + "-wal"));
  EXPECT_TRUE(std::filesystem::exists(path_ + "-shm"));
  submit(recorder, httpExchange("GET", "/y"));
  recorder.flush();
  EXPECT_EQ(ArchiveReader(path_).counts().exchanges, 2);
}

// A read that fails says which file, and for a damaged one how to save what it holds.
TEST_F(ArchiveReaderTest, AReadOfADamagedArchiveNamesTheFile) {
  {
    Recorder recorder(path_, testSession(), testOptions());
    for (int i = 0; i < 200; ++i) {
      submit(recorder, httpExchange("POST", "/p/" + std::to_string(i), std::string(2000, 'x')));
    }
  }
  {  // the exchanges' pages, past the schema: the archive opens, its rows do not read
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path_) / 2));
    const std::string garbage(std::filesystem::file_size(path_) / 2, '\xAA');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  try {
    ArchiveReader reader(path_);
    std::size_t read = 0;
    for (std::int64_t id = 1; id <= 200; ++id) {
      read += reader.exchange(id).has_value() ? 1 : 0;
    }
    ADD_FAILURE() << "read " << read << " exchanges of a damaged archive";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("[store.read] " + path_ + ": ", 0), 0u) << message;
    EXPECT_NE(message.find("the file is damaged"), std::string::npos) << message;
    EXPECT_NE(message.find("sqlite3 " + path_ + " .recover"), std::string::npos) << message;
  }
}

TEST_F(ArchiveReaderTest, ASessionIsRunningWhileItsRecorderIsOpenThenEnded) {
  Recorder recorder(path_, testSession(), testOptions());
  ArchiveReader reader(path_);  // a description of its own: it sees the recorder's lock
  ASSERT_EQ(reader.sessions().size(), 1u);
  EXPECT_EQ(reader.sessions()[0].state, SessionState::Running);
  recorder.close();
  EXPECT_EQ(reader.session(recorder.sessionId())->state, SessionState::Ended);
}

TEST_F(ArchiveReaderTest, ASessionWithoutAnEndWhoseLockIsFreeIsInterrupted) {
  std::int64_t id = 0;
  {
    Recorder recorder(path_, testSession(), testOptions());
    id = recorder.sessionId();
  }
  // What a killed recorder leaves: no end, and no process holding the session's lock.
  SQLite::Database(path_, SQLite::OPEN_READWRITE).exec("UPDATE sessions SET ended_ns = NULL");
  ArchiveReader reader(path_);
  EXPECT_EQ(reader.session(id)->state, SessionState::Interrupted);
  EXPECT_FALSE(reader.session(id)->ended_ns.has_value());
  // A recorder of the next session leaves the interrupted one as it is.
  Recorder next(path_, testSession("next"), testOptions());
  const std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].state, SessionState::Interrupted);
  EXPECT_EQ(sessions[1].state, SessionState::Running);
}

TEST_F(ArchiveReaderTest, ARecorderWhoseSessionCannotBeClaimedLeavesNoSession) {
  // Another holder of the byte the first session stands for (a recorder elsewhere that the
  // archive's sessions no longer show): the session row must not outlive the failed claim, or
  // it would read as interrupted at once.
  { Recorder first(path_, testSession(), testOptions()); }
  SQLite::Database(path_, SQLite::OPEN_READWRITE).exec("DELETE FROM sessions");
  detail::SessionLock holder(path_, 1);
  EXPECT_THROW(Recorder(path_, testSession(), testOptions()), std::runtime_error);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM sessions"), 0);
}

}  // namespace
}  // namespace agentvcr::store
