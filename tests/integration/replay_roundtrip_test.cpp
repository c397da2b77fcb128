// Record the scripted demo agent (BENCH-like episodes and a GEN tree with 2 candidates), replay
// the archive, and drive the same episodes again with new request ids, other input ids and
// another batching: every answer must be the recorded one.

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "replay_fixture.hpp"

namespace agentvcr::testing {
namespace {

using protocol::Json;

/// Each recorded input's candidates (without the ids replay re-stamps) by replay key, sorted
/// per key so that the comparison does not depend on which branch ran first.
std::map<std::uint64_t, std::vector<std::string>> answersByKey(const std::string& db_path) {
  store::ArchiveReader reader(db_path);
  std::map<std::uint64_t, std::vector<std::string>> answers;
  reader.forEachReplayStep({}, [&](const store::ReplayStepRef& step) {
    Json candidates = Json::array();
    for (const auto& candidate : reader.candidates(step.step_id)) {
      Json output = *reader.outputJson(candidate.id);
      output.erase("request_id");
      output.erase("source_id");
      candidates.push_back(std::move(output));
    }
    answers[step.replay_key].push_back(protocol::canonicalJson(candidates));
  });
  for (auto& [key, list] : answers) {
    std::sort(list.begin(), list.end());
  }
  return answers;
}

std::set<std::string> requestIds(const std::string& db_path) {
  store::ArchiveReader reader(db_path);
  std::set<std::string> ids;
  for (const auto& session : reader.sessions()) {
    for (const auto& exchange : reader.exchanges(session.id, 0, 10'000)) {
      if (exchange.magma_request_id) {
        ids.insert(*exchange.magma_request_id);
      }
    }
  }
  return ids;
}

std::set<std::int64_t> sourceIds(const std::string& db_path) {
  store::ArchiveReader reader(db_path);
  std::set<std::int64_t> ids;
  reader.forEachReplayStep({},
                           [&](const store::ReplayStepRef& step) { ids.insert(step.source_id); });
  return ids;
}

struct RecordedCall {
  std::string request;
  std::string response;
};

std::vector<RecordedCall> recordedCalls(const std::string& db_path) {
  store::ArchiveReader reader(db_path);
  std::vector<RecordedCall> calls;
  for (const auto& row : reader.exchanges(1, 0, 10'000)) {
    if (row.route == "responses") {
      auto exchange = *reader.exchange(row.id);
      calls.push_back({exchange.request_body, exchange.response_body});
    }
  }
  return calls;
}

TEST_F(ReplayTest, DemoReplaysWithNewIdsAndAnotherBatching) {
  const sim::magma::Summary recorded = recordDemo();
  ASSERT_FALSE(recorded.abort_reason);
  startReplay();

  // New request ids (seed), other BENCH slots and GEN ids, one slot instead of two: the
  // inputs reach replay in other requests, batched otherwise.
  sim::magma::DemoPlan plan = demoPlan();
  plan.seed += 1;
  plan.nb_env = 1;
  plan.gen_first_id = 900;
  const std::string replayed_db = temp_.file("replayed.sqlite");
  auto tap = startRecording(replayUrl(), replayed_db, "replayed");
  sim::magma::DemoDriver driver(plan);
  const sim::magma::Summary replayed = drive(driver, tap->endpoint().port);
  tap->settle();
  tap->stop();

  ASSERT_FALSE(replayed.abort_reason);
  EXPECT_NE(replayed.requests, recorded.requests) << "the batching should differ";
  ASSERT_EQ(replayed.outcomes.size(), recorded.outcomes.size());
  for (std::size_t i = 0; i < recorded.outcomes.size(); ++i) {
    SCOPED_TRACE(recorded.outcomes[i].label);
    EXPECT_EQ(replayed.outcomes[i].label, recorded.outcomes[i].label);
    EXPECT_EQ(replayed.outcomes[i].done, recorded.outcomes[i].done);
    EXPECT_EQ(replayed.outcomes[i].reason, recorded.outcomes[i].reason);
    EXPECT_EQ(replayed.outcomes[i].last_say, recorded.outcomes[i].last_say);
    EXPECT_EQ(replayed.outcomes[i].agent_calls, recorded.outcomes[i].agent_calls);
  }

  // Every decision, memory and internal step, input by input, is the recorded one.
  EXPECT_EQ(answersByKey(replayed_db), answersByKey(db_path_));

  // ...although nothing that identifies the calls was the same.
  std::vector<std::string> shared_request_ids;
  const auto recorded_ids = requestIds(db_path_);
  const auto replayed_ids = requestIds(replayed_db);
  std::set_intersection(recorded_ids.begin(), recorded_ids.end(), replayed_ids.begin(),
                        replayed_ids.end(), std::back_inserter(shared_request_ids));
  EXPECT_THAT(shared_request_ids, ::testing::IsEmpty());
  EXPECT_NE(sourceIds(replayed_db), sourceIds(db_path_));

  const replay::ReplayStats stats = replay_->replayer().stats();
  EXPECT_EQ(stats.misses, 0u);
  EXPECT_EQ(stats.hits, replay_->replayer().recordedSteps());
  EXPECT_THAT(missLog(), ::testing::IsEmpty());
  EXPECT_FALSE(replay_->recordingSessionId()) << "a replay without misses writes nothing";
}

TEST_F(ReplayTest, RecordedRequestsGetTheRecordedBytesEveryTime) {
  recordDemo();
  const std::vector<RecordedCall> calls = recordedCalls(db_path_);
  ASSERT_GE(calls.size(), 5u);

  std::vector<std::vector<std::string>> runs;
  for (int run = 0; run < 2; ++run) {
    startReplay();
    auto client = replayClient();
    std::vector<std::string> bodies;
    for (const RecordedCall& call : calls) {
      auto response = client.postJson("/v1/responses", call.request);
      EXPECT_EQ(response.status, 200);
      EXPECT_EQ(response.header("Content-Type"), "application/json");
      bodies.push_back(response.body);
    }
    runs.push_back(std::move(bodies));
    replay_->stop();
  }
  EXPECT_EQ(runs[0], runs[1]) << "the same requests must get the same bytes";
  for (std::size_t i = 0; i < calls.size(); ++i) {
    // Same request_id and ids as recorded: byte for byte what the agent sent.
    EXPECT_EQ(runs[0][i], calls[i].response) << "call " << i;
  }
}

TEST_F(ReplayTest, ConcurrentCallersAllGetValidAnswers) {
  recordDemo();
  const std::vector<RecordedCall> calls = recordedCalls(db_path_);
  startReplay([](auto& config) { config.server.threads = 4; });
  std::atomic<int> valid{0};
  std::vector<std::thread> callers;
  for (int caller = 0; caller < 4; ++caller) {
    callers.emplace_back([&, caller] {
      auto client = replayClient();
      for (int round = 0; round < 10; ++round) {
        for (const RecordedCall& call : calls) {
          Json request = *protocol::parseJson(call.request).value;
          request["request_id"] = "caller-" + std::to_string(caller) + "-" + std::to_string(round);
          auto response = client.postJson("/v1/responses", request.dump());
          auto parsed = protocol::magma::parseAgentRequest(request);
          auto body = protocol::parseJson(response.body);
          if (response.status == 200 && body.value &&
              protocol::magma::parseAgentResponse(*body.value, &*parsed.value).ok()) {
            ++valid;
          }
        }
      }
    });
  }
  for (auto& caller : callers) {
    caller.join();
  }
  EXPECT_EQ(valid.load(), static_cast<int>(4 * 10 * calls.size()));
  EXPECT_EQ(replay_->replayer().stats().misses, 0u);
}

TEST_F(ReplayTest, HealthAndInfoAreTheRecordedBytes) {
  recordDemo();
  startReplay();
  ScriptedAgentServer agent;
  net::HttpClient live("127.0.0.1", agent.port());
  auto client = replayClient();
  EXPECT_EQ(client.get("/health").body, live.get("/health").body);
  EXPECT_EQ(client.get("/v1/info").body, live.get("/v1/info").body);
}

}  // namespace
}  // namespace agentvcr::testing
