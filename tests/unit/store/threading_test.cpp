// Conversation threading by memory (docs/schema.md, "Conversation threading").

#include <map>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/reindex.hpp"
#include "agentvcr/store/step_links.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::callOutput;
using testing::errorOutput;
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
using testing::thrownMessage;

const char* kPressed =
    R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", )"
    R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";

class ThreadingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RecorderOptions options = testOptions();
    options.batch_window = std::chrono::milliseconds{60000};  // one batch unless flushed
    recorder_ = std::make_unique<Recorder>(path_, testSession(), options);
  }

  void add(const Json& req, const Json& response) {
    submit(*recorder_, magmaExchange(req, response));
  }

  ArchiveReader reader() {
    recorder_->flush();
    return ArchiveReader(path_);
  }

  /// Steps of every exchange of the session, in recording order.
  std::vector<StepRow> allSteps(const ArchiveReader& r) {
    std::vector<StepRow> steps;
    for (const ExchangeRow& ex : r.exchanges(recorder_->sessionId(), 0, 1000)) {
      for (StepRow& s : r.stepsOfExchange(ex.id)) {
        steps.push_back(std::move(s));
      }
    }
    return steps;
  }

  std::int64_t candidateOf(const ArchiveReader& r, const StepRow& step, std::int64_t k) {
    std::vector<CandidateRow> c = r.candidates(step.id);
    return static_cast<std::size_t>(k) < c.size() ? c[static_cast<std::size_t>(k)].id : -1;
  }

  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
  std::unique_ptr<Recorder> recorder_;
};

TEST_F(ThreadingTest, ABenchEpisodeFormsOneChain) {
  // Episode A of magma-protocol.md §19: slot id 0 throughout, a new request_id every time,
  // the memory echoed verbatim. All in one writer batch: links work inside a batch too.
  const Json m0 = Json{{"history", Json::array()}};
  const Json m1 = memoryOf("a", 2);
  const Json m2 = memoryOf("a", 4);
  const Json m3 = memoryOf("a", 6);
  add(request("a1", {input(0, "user", "Please press sw1", m0)}),
      Json::array({callOutput("a1", 0, 0, m1, "sw1")}));
  add(request("a2", {input(0, "env", kPressed, m1)}),
      Json::array({sayOutput("a2", 0, 0, m2, "Done, sw1 is pressed.")}));
  add(request("a3", {input(0, "user", "Please press sw3", m2)}),
      Json::array({sayOutput("a3", 0, 0, m3, "sw3 is pressed.")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_FALSE(steps[0].parent_candidate_id.has_value());
  EXPECT_EQ(steps[0].parent_ambiguity, 0);
  EXPECT_EQ(steps[1].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[1].parent_step_id, steps[0].id);
  EXPECT_EQ(steps[1].parent_ambiguity, 1);
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[1], 0));
  EXPECT_EQ(steps[2].depth, 2);
  EXPECT_EQ(steps[0].conversation_id, steps[1].conversation_id);
  EXPECT_EQ(steps[0].conversation_id, steps[2].conversation_id);

  std::vector<ConversationRow> conversations = r.conversations(recorder_->sessionId());
  ASSERT_EQ(conversations.size(), 1u);
  const ConversationRow& c = conversations[0];
  EXPECT_EQ(c.root_step_id, steps[0].id);
  EXPECT_EQ(c.title.value_or(""), "Please press sw1");
  EXPECT_EQ(c.step_count, 3);
  EXPECT_EQ(c.candidate_count, 3);
  EXPECT_EQ(c.error_candidates, 0);
  EXPECT_EQ(c.env_failures, 0);
  EXPECT_EQ(c.max_depth, 2);
  EXPECT_EQ(c.ended_in.value_or(""), "say");
  EXPECT_TRUE(c.first_ns.has_value());
  EXPECT_LE(*c.first_ns, *c.last_ns);

  std::vector<StepRow> ordered = r.steps(c.id);
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[0].id, steps[0].id);
  EXPECT_EQ(ordered[1].id, steps[1].id);
  EXPECT_EQ(ordered[2].id, steps[2].id);
  EXPECT_EQ(r.session(recorder_->sessionId())->conversation_count, 1);
}

TEST_F(ThreadingTest, ANewEpisodeOnTheSameSlotStartsANewConversation) {
  const Json m0 = Json{{"history", Json::array()}};
  add(request("a1", {input(0, "user", "Please press sw1", m0)}),
      Json::array({sayOutput("a1", 0, 0, memoryOf("a", 2), "ok")}));
  add(request("b1", {input(0, "user", "Please press sw2", m0)}),
      Json::array({sayOutput("b1", 0, 0, memoryOf("b", 2), "ok")}));
  ArchiveReader r = reader();
  std::vector<ConversationRow> conversations = r.conversations(recorder_->sessionId());
  ASSERT_EQ(conversations.size(), 2u);
  EXPECT_EQ(conversations[1].title.value_or(""), "Please press sw2");
}

TEST_F(ThreadingTest, AGenBatchFormsATree) {
  // B1: node 41 asks for two candidates, node 57 for one, in one request.
  const Json r41 =
      Json{{"memory_list", {"Only arm1 can inspect objects."}}, {"history", Json::array()}};
  const Json r57 = memoryOf("branch57", 3);
  const Json ma = memoryOf("A", 2);
  const Json mb = memoryOf("B", 2);
  const Json mc = memoryOf("C", 5);
  add(request("gen-0007", {input(41, "user", "Move every damaged fruit.", r41, 2),
                           input(57, "env", kPressed, r57, 1)}),
      Json::array({callOutput("gen-0007", 41, 0, ma, "x"), sayOutput("gen-0007", 41, 1, mb, "?"),
                   callOutput("gen-0007", 57, 0, mc, "y")}));
  recorder_->flush();  // B2 in another batch: links cross batches too
  // B2: three situations continue the three candidates, batched in an order of their own.
  add(request("gen-0008", {input(65, "env", kPressed, mc), input(64, "user", "apples", mb),
                           input(63, "env", kPressed, ma)}),
      Json::array({sayOutput("gen-0008", 65, 0, memoryOf("C", 7), "c"),
                   sayOutput("gen-0008", 64, 0, memoryOf("B", 4), "b"),
                   callOutput("gen-0008", 63, 0, memoryOf("A", 4), "z")}));
  // B3: a grandchild below 63.
  add(request("gen-0009", {input(66, "env", kPressed, memoryOf("A", 4))}),
      Json::array({sayOutput("gen-0009", 66, 0, memoryOf("A", 6), "done")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 6u);
  const StepRow& s41 = steps[0];
  const StepRow& s57 = steps[1];
  const StepRow& s65 = steps[2];
  const StepRow& s64 = steps[3];
  const StepRow& s63 = steps[4];
  const StepRow& s66 = steps[5];
  EXPECT_EQ(s63.parent_candidate_id, candidateOf(r, s41, 0));
  EXPECT_EQ(s64.parent_candidate_id, candidateOf(r, s41, 1));
  EXPECT_EQ(s65.parent_candidate_id, candidateOf(r, s57, 0));
  EXPECT_EQ(s66.parent_candidate_id, candidateOf(r, s63, 0));
  EXPECT_EQ(s63.conversation_id, s41.conversation_id);
  EXPECT_EQ(s64.conversation_id, s41.conversation_id);
  EXPECT_EQ(s66.conversation_id, s41.conversation_id);
  EXPECT_EQ(s65.conversation_id, s57.conversation_id);
  EXPECT_NE(s41.conversation_id, s57.conversation_id);
  EXPECT_EQ(s66.depth, 2);

  // Tree order: depth first, siblings by id: 41, 64 (id smaller than 63's), then 63, 66.
  std::vector<StepRow> tree = r.steps(s41.conversation_id);
  ASSERT_EQ(tree.size(), 4u);
  EXPECT_EQ(tree[0].id, s41.id);
  EXPECT_EQ(tree[1].id, s64.id);
  EXPECT_EQ(tree[2].id, s63.id);
  EXPECT_EQ(tree[3].id, s66.id);

  std::optional<ConversationRow> c41 = r.conversation(s41.conversation_id);
  ASSERT_TRUE(c41.has_value());
  EXPECT_EQ(c41->step_count, 4);
  EXPECT_EQ(c41->candidate_count, 5);
  EXPECT_EQ(c41->max_depth, 2);
  EXPECT_EQ(c41->title.value_or(""), "Move every damaged fruit.");
  std::optional<ConversationRow> c57 = r.conversation(s57.conversation_id);
  ASSERT_TRUE(c57.has_value());
  EXPECT_FALSE(c57->title.has_value());  // no user instruction in it
  EXPECT_EQ(c57->step_count, 2);

  std::vector<CandidateRow> c41_candidates = r.candidates(s41.id);
  ASSERT_EQ(c41_candidates.size(), 2u);
  EXPECT_EQ(c41_candidates[0].child_count, 1);
  EXPECT_EQ(c41_candidates[1].child_count, 1);
}

TEST_F(ThreadingTest, IdenticalMemoriesAreAmbiguousAndTheInputIdBreaksTies) {
  // Two episodes whose candidates return the very same memory (greedy decoding, say).
  const Json same = memoryOf("same", 2);
  add(request("r1", {input(0, "user", "first", memoryOf("start0", 1)),
                     input(1, "user", "second", memoryOf("start1", 1))}),
      Json::array({sayOutput("r1", 0, 0, same, "x"), sayOutput("r1", 1, 0, same, "x")}));
  // Slot 0 continues: the older candidate (of input 0) wins over the newer one.
  add(request("r2", {input(0, "user", "again", same)}),
      Json::array({sayOutput("r2", 0, 0, memoryOf("next0", 3), "y")}));
  // An id no candidate had: the newest match (of input 1).
  add(request("r3", {input(9, "user", "other", same)}),
      Json::array({sayOutput("r3", 9, 0, memoryOf("next9", 3), "z")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[2].parent_ambiguity, 2);
  EXPECT_EQ(steps[2].conversation_id, steps[0].conversation_id);
  EXPECT_EQ(steps[3].parent_candidate_id, candidateOf(r, steps[1], 0));
  EXPECT_EQ(steps[3].parent_ambiguity, 2);
  EXPECT_EQ(steps[3].conversation_id, steps[1].conversation_id);
}

TEST_F(ThreadingTest, IdenticalEpisodesAtOnceEachContinueTheirOwnCandidate) {
  // Eight callers run the same episode at once, all on input id 0: their first answers return
  // the same memory, and each second step continues a candidate of its own.
  const Json m0 = Json{{"history", Json::array()}};
  const Json m1 = memoryOf("same", 2);
  for (int k = 0; k < 8; ++k) {
    add(request("a" + std::to_string(k), {input(0, "user", "Please press sw1", m0)}),
        Json::array({callOutput("a" + std::to_string(k), 0, 0, m1, "sw1")}));
  }
  for (int k = 0; k < 8; ++k) {
    add(request("b" + std::to_string(k), {input(0, "env", kPressed, m1)}),
        Json::array({sayOutput("b" + std::to_string(k), 0, 0, memoryOf("same", 4), "Done")}));
  }
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 16u);
  for (std::size_t k = 0; k < 8; ++k) {
    // Each takes the answer given last before it was sent that no other step took: every
    // second step was sent after all eight answers, so the first takes the eighth answer, the
    // second the seventh...
    EXPECT_EQ(steps[8 + k].parent_candidate_id, candidateOf(r, steps[7 - k], 0)) << k;
    EXPECT_EQ(steps[8 + k].conversation_id, steps[7 - k].conversation_id) << k;
    EXPECT_EQ(steps[8 + k].parent_ambiguity, 8) << k;
  }
  std::vector<ConversationRow> conversations = r.conversations(recorder_->sessionId());
  ASSERT_EQ(conversations.size(), 8u);
  for (const ConversationRow& c : conversations) {
    EXPECT_EQ(c.step_count, 2);
  }
}

TEST_F(ThreadingTest, AStepPrefersACandidateOfItsOwnConnection) {
  const Json m1 = memoryOf("conn", 2);
  protocol::Exchange a = magmaExchange(request("a", {input(0, "user", "go", memoryOf("a", 0))}),
                                       Json::array({callOutput("a", 0, 0, m1, "sw1")}));
  a.client_address = "127.0.0.1:40001";
  protocol::Exchange b = magmaExchange(request("b", {input(0, "user", "go", memoryOf("b", 0))}),
                                       Json::array({callOutput("b", 0, 0, m1, "sw1")}));
  b.client_address = "127.0.0.1:40002";
  protocol::Exchange next =
      magmaExchange(request("n", {input(0, "env", kPressed, m1)}),
                    Json::array({sayOutput("n", 0, 0, memoryOf("n", 4), "ok")}));
  next.client_address = "127.0.0.1:40002";
  submit(*recorder_, a);
  submit(*recorder_, b);
  submit(*recorder_, next);
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[1], 0));  // not the older a
}

TEST_F(ThreadingTest, AStepNeverContinuesAnAnswerGivenAfterItWasAsked) {
  // b's answer came after the step was asked, although b was recorded before the step.
  const Json m1 = memoryOf("late", 2);
  protocol::Exchange a = magmaExchange(request("a", {input(0, "user", "go", memoryOf("a", 0))}),
                                       Json::array({callOutput("a", 0, 0, m1, "sw1")}));
  a.client_address = "127.0.0.1:40001";
  protocol::Exchange next =
      magmaExchange(request("n", {input(0, "env", kPressed, m1)}),
                    Json::array({sayOutput("n", 0, 0, memoryOf("n", 4), "ok")}));
  next.client_address = "127.0.0.1:40002";
  protocol::Exchange b = magmaExchange(request("b", {input(0, "user", "go", memoryOf("b", 0))}),
                                       Json::array({callOutput("b", 0, 0, m1, "sw1")}));
  b.client_address = "127.0.0.1:40002";
  b.started_ns = a.started_ns + 1;
  b.upstream_first_byte_ns = next.started_ns + 1;
  b.ended_ns = next.started_ns + 2;
  submit(*recorder_, a);
  submit(*recorder_, b);
  submit(*recorder_, next);
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[2].parent_ambiguity, 2);
}

TEST_F(ThreadingTest, IdenticalCandidatesOfOneStepEachGetAChild) {
  // GEN asks for two candidates; greedy decoding makes them identical. Each continues.
  const Json m1 = memoryOf("greedy", 2);
  add(request("g1", {input(7, "user", "go", memoryOf("g", 0), 2)}),
      Json::array({callOutput("g1", 7, 0, m1, "sw1"), callOutput("g1", 7, 1, m1, "sw1")}));
  add(request("g2", {input(8, "env", kPressed, m1), input(9, "env", kPressed, m1)}),
      Json::array({sayOutput("g2", 8, 0, memoryOf("g8", 4), "a"),
                   sayOutput("g2", 9, 0, memoryOf("g9", 4), "b")}));
  // A third re-ask from the same state is a second child (a branch) of the newest.
  add(request("g3", {input(10, "env", kPressed, m1)}),
      Json::array({sayOutput("g3", 10, 0, memoryOf("g10", 4), "c")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[1].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[0], 1));
  EXPECT_EQ(steps[3].parent_candidate_id, candidateOf(r, steps[0], 1));
  EXPECT_EQ(steps[3].parent_ambiguity, 2);
  std::vector<CandidateRow> forks = r.candidates(steps[0].id);
  ASSERT_EQ(forks.size(), 2u);
  EXPECT_EQ(forks[0].child_count, 1);
  EXPECT_EQ(forks[1].child_count, 2);
}

TEST_F(ThreadingTest, IdenticalRunsThatContinueOneOfTwoCandidatesEachKeepTheirOwnTree) {
  // Two runs ask the same thing at once, two identical candidates each, and each continues
  // one. After the first next step took one of the second run's candidates (the answer given
  // last), its sibling is the newest open candidate: it loses to the first run's step, which
  // nothing continues yet.
  const Json m1 = memoryOf("greedy", 2);
  for (const char* run : {"a", "b"}) {
    add(request(std::string(run) + "1", {input(0, "user", "go", memoryOf("g", 0), 2)}),
        Json::array({callOutput(std::string(run) + "1", 0, 0, m1, "sw1"),
                     callOutput(std::string(run) + "1", 0, 1, m1, "sw1")}));
  }
  for (const char* run : {"a", "b"}) {
    add(request(std::string(run) + "2", {input(0, "env", kPressed, m1)}),
        Json::array({sayOutput(std::string(run) + "2", 0, 0, memoryOf(run, 4), "done")}));
  }
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[1], 0));
  EXPECT_EQ(steps[3].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[3].parent_ambiguity, 4) << "four candidates carried that memory";
  EXPECT_EQ(r.conversations(recorder_->sessionId()).size(), 2u);
}

TEST_F(ThreadingTest, ACandidateAnotherSlotTookIsNoPlaceToComeBackTo) {
  // Three GEN-like runs of one episode, distinct input ids, each carrying both of its
  // identical candidates on: the first on the step's own slot, the second on a new one. New
  // slots match no id, so the first two runs' second branches take the third run's untouched
  // candidates before its own branches come. Its first branch then takes an open candidate of
  // another run, not a second child of its own step: every candidate keeps one child.
  const Json m1 = memoryOf("greedy", 2);
  const std::vector<std::pair<std::string, std::int64_t>> runs = {{"a", 0}, {"b", 100}, {"c", 200}};
  for (const auto& [run, id] : runs) {
    add(request(run + "1", {input(id, "user", "go", memoryOf("g", 0), 2)}),
        Json::array(
            {callOutput(run + "1", id, 0, m1, "sw1"), callOutput(run + "1", id, 1, m1, "sw1")}));
  }
  // Steps on the roots' slots, then new slots, in the order the runs sent them.
  const std::vector<std::pair<std::string, std::int64_t>> next = {
      {"a2", 0}, {"b2", 100}, {"a3", 1}, {"b3", 101}, {"c2", 200}, {"c3", 201}};
  for (const auto& [name, id] : next) {
    add(request(name, {input(id, "env", kPressed, m1)}),
        Json::array({sayOutput(name, id, 0, memoryOf(name, 4), "done")}));
  }
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 9u);
  for (std::size_t root = 0; root < 3; ++root) {
    for (const CandidateRow& c : r.candidates(steps[root].id)) {
      EXPECT_EQ(c.child_count, 1) << "candidate " << c.candidate_index << " of root " << root;
    }
  }
  EXPECT_EQ(r.conversations(recorder_->sessionId()).size(), 3u);
}

TEST_F(ThreadingTest, ReindexRebuildsTheConversationsAndRefusesAnOpenSession) {
  const Json m0 = Json{{"history", Json::array()}};
  const Json m1 = memoryOf("same", 2);
  for (int k = 0; k < 4; ++k) {
    add(request("a" + std::to_string(k), {input(0, "user", "Please press sw1", m0)}),
        Json::array({callOutput("a" + std::to_string(k), 0, 0, m1, "sw1")}));
  }
  for (int k = 0; k < 4; ++k) {
    add(request("b" + std::to_string(k), {input(0, "env", kPressed, m1)}),
        Json::array({sayOutput("b" + std::to_string(k), 0, 0, memoryOf("same", 4), "Done")}));
  }
  const std::int64_t session = recorder_->sessionId();
  std::vector<StepRow> recorded;
  {
    ArchiveReader r = reader();
    recorded = allSteps(r);
  }
  EXPECT_THAT(thrownMessage([&] { reindexSessions(path_, {session}); }),
              ::testing::HasSubstr("session " + std::to_string(session) + " is being recorded"));
  recorder_.reset();

  // What the newest-match rule made of it: every second step under the newest first step.
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE steps SET parent_candidate_id = (SELECT max(id) FROM candidates "
        "WHERE step_id IN (SELECT id FROM steps WHERE instruction_type = 'user')), "
        "conversation_id = (SELECT max(id) FROM conversations), depth = 1, "
        "parent_ambiguity = 4 WHERE instruction_type = 'env'");
    db.exec("DELETE FROM conversations WHERE id NOT IN (SELECT conversation_id FROM steps)");
    db.exec("UPDATE sessions SET conversation_count = 4");
  }
  std::vector<ReindexedSession> done = reindexSessions(path_, {session});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].steps, 8);
  EXPECT_EQ(done[0].conversations_before, 4);
  EXPECT_EQ(done[0].conversations_after, 4);

  ArchiveReader r(path_);
  std::vector<StepRow> steps;
  for (const ExchangeRow& ex : r.exchanges(session, 0, 1000)) {
    for (StepRow& s : r.stepsOfExchange(ex.id)) {
      steps.push_back(std::move(s));
    }
  }
  ASSERT_EQ(steps.size(), recorded.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    EXPECT_EQ(steps[k].parent_candidate_id, recorded[k].parent_candidate_id) << k;
    EXPECT_EQ(steps[k].depth, recorded[k].depth) << k;
    EXPECT_EQ(steps[k].parent_ambiguity, recorded[k].parent_ambiguity) << k;
  }
  std::vector<ConversationRow> conversations = r.conversations(session);
  ASSERT_EQ(conversations.size(), 4u);
  for (const ConversationRow& c : conversations) {
    EXPECT_EQ(c.step_count, 2);
    EXPECT_EQ(c.candidate_count, 2);
    EXPECT_EQ(c.max_depth, 1);
    EXPECT_EQ(c.title.value_or(""), "Please press sw1");
    EXPECT_EQ(c.ended_in.value_or(""), "say");
  }
  EXPECT_EQ(queryInt(path_, "SELECT conversation_count FROM sessions WHERE id = " +
                                std::to_string(session)),
            4);
  EXPECT_THAT(thrownMessage([&] { reindexSessions(path_, {session + 7}); }),
              ::testing::HasSubstr("no session"));
}

TEST_F(ThreadingTest, ASessionWithStepLinksThreadsAsTheStepsItReasked) {
  // Recorded: a GEN root with two candidates, each continued by an env step (c1's first).
  const Json m0 = Json{{"history", Json::array()}};
  const auto play = [&](const std::string& run, const std::string& tag) {
    add(request(run + "1", {input(0, "user", "Please press sw1", m0, 2)}),
        Json::array({callOutput(run + "1", 0, 0, memoryOf(tag + "a", 2), "sw1"),
                     callOutput(run + "1", 0, 1, memoryOf(tag + "b", 2), "sw2")}));
    // The inputs carry the recorded memories, as an evaluation sends them.
    add(request(run + "2", {input(0, "env", kPressed, memoryOf("recorded-b", 2))}),
        Json::array({sayOutput(run + "2", 0, 0, memoryOf(tag + "b", 4), "Done")}));
    add(request(run + "3", {input(0, "env", kPressed, memoryOf("recorded-a", 2))}),
        Json::array({sayOutput(run + "3", 0, 0, memoryOf(tag + "a", 4), "Done")}));
  };
  play("r", "recorded-");
  const std::int64_t recorded_session = recorder_->sessionId();
  std::vector<StepRow> recorded;
  {
    ArchiveReader r = reader();
    recorded = allSteps(r);
  }
  recorder_.reset();
  // Evaluated: the same inputs, answered with memories of the live agent's own.
  recorder_ = std::make_unique<Recorder>(path_, testSession("eval"), testOptions());
  play("e", "live-");
  const std::int64_t session = recorder_->sessionId();
  std::vector<StepRow> evaluated;
  {
    ArchiveReader r = reader();
    evaluated = allSteps(r);
    // By memory, the env steps find no candidate of this session that returned theirs, and
    // the input-id fallback chains them: the recorded shape is lost.
    const auto by_memory = r.conversations(session);
    EXPECT_FALSE(by_memory.size() == 1 && by_memory[0].max_depth == 1);
  }
  recorder_.reset();
  ASSERT_EQ(evaluated.size(), recorded.size());
  std::vector<StepLink> links;
  for (std::size_t k = 0; k < evaluated.size(); ++k) {
    links.push_back({evaluated[k].id, recorded[k].id});
  }
  writeStepLinks(path_, links);

  const auto done = reindexSessions(path_, {session});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].conversations_after, 1);
  ArchiveReader r(path_);
  ASSERT_EQ(r.conversations(session).size(), 1u);
  const ConversationRow conversation = r.conversations(session)[0];
  EXPECT_EQ(conversation.step_count, 3);
  EXPECT_EQ(conversation.max_depth, 1);
  EXPECT_EQ(conversation.root_step_id, evaluated[0].id);
  // Step by step, in tree order, the recorded conversation's shape.
  const auto recorded_tree = r.steps(r.conversations(recorded_session)[0].id);
  const auto evaluated_tree = r.steps(conversation.id);
  ASSERT_EQ(evaluated_tree.size(), recorded_tree.size());
  std::map<std::int64_t, std::int64_t> copy_of;
  for (const StepLink& link : links) {
    copy_of[link.recorded_step_id] = link.step_id;
  }
  for (std::size_t k = 0; k < evaluated_tree.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(evaluated_tree[k].id, copy_of.at(recorded_tree[k].id));
    EXPECT_EQ(evaluated_tree[k].depth, recorded_tree[k].depth);
    ASSERT_EQ(evaluated_tree[k].parent_candidate_id.has_value(),
              recorded_tree[k].parent_candidate_id.has_value());
    if (recorded_tree[k].parent_candidate_id) {
      EXPECT_EQ(evaluated_tree[k].parent_ambiguity, 1);
      const auto recorded_parent = r.candidate(*recorded_tree[k].parent_candidate_id);
      const auto evaluated_parent = r.candidate(*evaluated_tree[k].parent_candidate_id);
      EXPECT_EQ(evaluated_parent->candidate_index, recorded_parent->candidate_index);
      EXPECT_EQ(evaluated_parent->step_id, copy_of.at(recorded_parent->step_id));
    }
  }
}

TEST_F(ThreadingTest, AnUnchangedMemoryThreadsWhereItCameFrom) {
  // An error candidate returns its input memory; a retry with that memory is a sibling of the
  // failed step (a child of the candidate that produced the memory), not its child.
  const Json m1 = memoryOf("u", 2);
  add(request("r1", {input(5, "user", "go", memoryOf("u", 0))}),
      Json::array({callOutput("r1", 5, 0, m1, "sw1")}));
  add(request("r2", {input(5, "env", kPressed, m1)}), Json::array({errorOutput("r2", 5, 0, m1)}));
  add(request("r3", {input(5, "env", kPressed, m1)}),
      Json::array({sayOutput("r3", 5, 0, memoryOf("u", 4), "ok")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[0], 0));
  EXPECT_EQ(steps[2].parent_ambiguity, 1);
  std::optional<ConversationRow> c = r.conversation(steps[0].conversation_id);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->error_candidates, 1);
  EXPECT_EQ(c->ended_in.value_or(""), "say");
}

TEST_F(ThreadingTest, AnInitialMemoryNeverLinks) {
  // A candidate returns {"history":[]}, which also opens episodes: the next episode starting
  // with it is a new conversation, not a continuation.
  const Json m0 = Json{{"history", Json::array()}};
  add(request("r1", {input(0, "user", "one", m0)}),
      Json::array({sayOutput("r1", 0, 0, memoryOf("i", 2), "a")}));
  add(request("r2", {input(0, "user", "reset please", memoryOf("i", 2))}),
      Json::array({sayOutput("r2", 0, 0, m0, "reset")}));
  add(request("r3", {input(0, "user", "two", m0)}),
      Json::array({sayOutput("r3", 0, 0, memoryOf("j", 2), "b")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].conversation_id, steps[0].conversation_id);
  EXPECT_FALSE(steps[2].parent_candidate_id.has_value());
  EXPECT_NE(steps[2].conversation_id, steps[0].conversation_id);
  EXPECT_EQ(r.conversations(recorder_->sessionId()).size(), 2u);
}

TEST_F(ThreadingTest, AStatelessAgentIsThreadedByInputId) {
  // The agent keeps no memory: every candidate returns {}. Env feedback still continues the
  // step that made the call on the same slot; a user instruction starts a conversation.
  const Json none = Json::object();
  add(request("r1", {input(0, "user", "go", none), input(1, "user", "other", none)}),
      Json::array({callOutput("r1", 0, 0, none, "sw1"), callOutput("r1", 1, 0, none, "sw2")}));
  add(request("r2", {input(1, "env", kPressed, none), input(0, "env", kPressed, none)}),
      Json::array({sayOutput("r2", 1, 0, none, "b"), sayOutput("r2", 0, 0, none, "a")}));
  add(request("r3", {input(0, "user", "again", none)}),
      Json::array({sayOutput("r3", 0, 0, none, "c")}));
  ArchiveReader r = reader();

  std::vector<StepRow> steps = allSteps(r);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[2].parent_candidate_id, candidateOf(r, steps[1], 0));  // slot 1
  EXPECT_EQ(steps[3].parent_candidate_id, candidateOf(r, steps[0], 0));  // slot 0
  EXPECT_EQ(steps[3].parent_ambiguity, 0);  // linked by the fallback, not by memory
  EXPECT_FALSE(steps[4].parent_candidate_id.has_value());
  EXPECT_EQ(r.conversations(recorder_->sessionId()).size(), 3u);
}

TEST(ThreadingLimit, AForgottenParentStartsANewConversation) {
  TempDir dir;
  const std::string path = dir.file("archive.sqlite");
  RecorderOptions options = testOptions();
  options.threading_index_limit = 1;  // remembers one candidate memory
  Recorder recorder(path, testSession(), options);
  submit(recorder, magmaExchange(request("a1", {input(0, "user", "a", memoryOf("a", 0))}),
                                 Json::array({sayOutput("a1", 0, 0, memoryOf("a", 2), "x")})));
  submit(recorder, magmaExchange(request("b1", {input(1, "user", "b", memoryOf("b", 0))}),
                                 Json::array({sayOutput("b1", 1, 0, memoryOf("b", 2), "y")})));
  submit(recorder, magmaExchange(request("b2", {input(1, "user", "b2", memoryOf("b", 2))}),
                                 Json::array({sayOutput("b2", 1, 0, memoryOf("b", 4), "y")})));
  submit(recorder, magmaExchange(request("a2", {input(0, "user", "a2", memoryOf("a", 2))}),
                                 Json::array({sayOutput("a2", 0, 0, memoryOf("a", 4), "x")})));
  recorder.flush();
  ArchiveReader reader(path);
  std::vector<ConversationRow> conversations = reader.conversations(recorder.sessionId());
  ASSERT_EQ(conversations.size(), 3u);  // a1, b1+b2, a2 (its parent was forgotten)
  EXPECT_EQ(conversations[1].step_count, 2);
  EXPECT_EQ(conversations[2].title.value_or(""), "a2");
}

TEST_F(ThreadingTest, LongTitlesAreFoldedAndCut) {
  std::string content = "  Please\n\npress   ";
  for (int i = 0; i < 30; ++i) {
    content += "sw\xC3\xA9 ";  // "swé "
  }
  add(request("r1", {input(0, "user", content, memoryOf("t", 0))}),
      Json::array({sayOutput("r1", 0, 0, memoryOf("t", 1), "ok")}));
  ArchiveReader r = reader();
  std::vector<ConversationRow> c = r.conversations(recorder_->sessionId());
  ASSERT_EQ(c.size(), 1u);
  const std::string title = c[0].title.value_or("");
  EXPECT_EQ(title.rfind("Please press sw\xC3\xA9 sw\xC3\xA9", 0), 0u) << title;
  EXPECT_EQ(title.substr(title.size() - 3), "\xE2\x80\xA6");
  std::size_t code_points = 0;
  for (char ch : title) {
    code_points += (static_cast<unsigned char>(ch) & 0xC0U) != 0x80U ? 1 : 0;
  }
  EXPECT_EQ(code_points, 80u);
}

}  // namespace
}  // namespace agentvcr::store
