// Misses are never silent: each policy, the near-miss report and its JSON paths, --ignore,
// num_outputs beyond the recording, and what is stored in the archive.

#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "fake_upstream.hpp"
#include "replay_fixture.hpp"
#include "timing_points.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using nlohmann::ordered_json;
using protocol::Json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// A recorded /v1/responses call, editable.
struct Call {
  ordered_json request;
  Json response;
};

class ReplayMissTest : public ReplayTest {
 protected:
  void SetUp() override {
    recordDemo();
    store::ArchiveReader reader(db_path_);
    for (const auto& row : reader.exchanges(1, 0, 10'000)) {
      if (row.route == "responses") {
        auto exchange = *reader.exchange(row.id);
        calls_.push_back({*protocol::parseOrderedJson(exchange.request_body),
                          *protocol::parseJson(exchange.response_body).value});
      }
    }
    ASSERT_GE(calls_.size(), 3u);
  }

  /// The first recorded call whose input 0 carries some history (a continued episode).
  Call continuedCall() const {
    for (const Call& call : calls_) {
      if (!call.request["inputs"][0]["memory"]["history"].empty()) {
        return call;
      }
    }
    ADD_FAILURE() << "no continued episode recorded";
    return calls_.front();
  }

  /// The recorded step a request's input was, found by its exchange and position.
  std::int64_t recordedStepOf(const std::string& request_id, std::int64_t position) {
    store::ArchiveReader reader(db_path_);
    for (const auto& row : reader.exchanges(1, 0, 10'000)) {
      if (row.magma_request_id == request_id) {
        return reader.stepsOfExchange(row.id).at(static_cast<std::size_t>(position)).id;
      }
    }
    ADD_FAILURE() << "request " << request_id << " not recorded";
    return 0;
  }

  net::ClientResponse post(const ordered_json& request) {
    return replayClient().postJson(
        "/v1/responses", protocol::pythonJsonDumps(request, protocol::kPythonDefaultStyle));
  }

  std::vector<store::ReplayMissRow> storedMisses() {
    replay_->flush();
    auto session = replay_->recordingSessionId();
    if (!session) {
      return {};
    }
    return store::ArchiveReader(db_path_).replayMisses(*session);
  }

  std::vector<Call> calls_;
};

TEST_F(ReplayMissTest, ErrorPolicyAnswersReplayMissCandidatesAndKeepsTheOthers) {
  startReplay();
  Call call = calls_.front();
  ordered_json request = call.request;
  request["request_id"] = "live-1";
  request["inputs"][0]["instruction"]["content"] = "Please press sw2 twice";

  auto response = post(request);
  ASSERT_EQ(response.status, 200);
  Json outputs = *protocol::parseJson(response.body).value;
  // Still a valid answer to the live request: candidate order, ids, one per num_outputs.
  auto parsed_request = protocol::magma::parseAgentRequest(
      *protocol::parseJson(protocol::pythonJsonDumps(request)).value);
  ASSERT_TRUE(parsed_request.ok());
  EXPECT_TRUE(protocol::magma::parseAgentResponse(outputs, &*parsed_request.value).ok());

  const Json& missed = outputs[0];
  EXPECT_EQ(missed["status"], "error");
  EXPECT_EQ(missed["error"]["code"], "replay_miss");
  EXPECT_EQ(missed["error"]["component"], "agentvcr-replay");
  EXPECT_THAT(missed["error"]["message"].get<std::string>(), HasSubstr("/instruction/content"));
  EXPECT_EQ(missed["memory"], Json(request["inputs"][0]["memory"]));
  EXPECT_EQ(missed["output"], nullptr);
  // The other inputs of the request are answered from the recording.
  for (std::size_t i = 1; i < outputs.size(); ++i) {
    EXPECT_EQ(outputs[i]["status"], call.response[i]["status"]);
    EXPECT_EQ(outputs[i]["memory"], call.response[i]["memory"]);
    EXPECT_EQ(outputs[i]["request_id"], "live-1");
  }

  const std::int64_t closest = recordedStepOf(call.request["request_id"], 0);
  auto log = missLog();
  ASSERT_EQ(log.size(), 1u);
  Json line = *protocol::parseJson(log[0]).value;
  EXPECT_EQ(line["event"], "replay_miss");
  EXPECT_EQ(line["request_id"], "live-1");
  EXPECT_EQ(line["closest_step_id"], closest);
  EXPECT_EQ(line["differences"], Json::array({"/instruction/content"}));
  EXPECT_EQ(line["input"]["instruction"], Json(request["inputs"][0]["instruction"]))
      << "the live input, as keyed";
  EXPECT_EQ(line["policy"], "error");

  auto stored = storedMisses();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].route, "responses");
  EXPECT_EQ(stored[0].request_id, "live-1");
  EXPECT_EQ(stored[0].position, 0);
  EXPECT_EQ(stored[0].closest_step_id, closest);
  EXPECT_EQ(stored[0].differences, R"(["/instruction/content"])");
  EXPECT_EQ(stored[0].policy, "error");
  EXPECT_THAT(stored[0].input, HasSubstr("Please press sw2 twice"));
  auto session = store::ArchiveReader(db_path_).session(*replay_->recordingSessionId());
  EXPECT_EQ(session->mode, "replay");
  EXPECT_EQ(session->exchange_count, 0);
  EXPECT_EQ(replay_->replayer().stats().misses, 1u);
}

TEST_F(ReplayMissTest, NearMissReportNamesTheDeepPathsThatDiffer) {
  startReplay();
  Call call = continuedCall();
  ordered_json request = call.request;
  request["inputs"][0]["memory"]["history"][0]["content"] = "something else";
  request["inputs"][0]["attributes"]["robot_statuses"] = {
      {"panda", "RUNNING press_button(id=sw1)"}};
  post(request);

  auto log = missLog();
  ASSERT_EQ(log.size(), 1u);
  Json line = *protocol::parseJson(log[0]).value;
  EXPECT_EQ(line["closest_step_id"], recordedStepOf(call.request["request_id"], 0));
  EXPECT_EQ(line["differences"],
            Json::array({"/attributes/robot_statuses/panda", "/memory/history/0/content"}));
}

TEST_F(ReplayMissTest, NothingAlikeHasNoClosestInput) {
  startReplay();
  ordered_json request = calls_.front().request;
  ordered_json& input = request["inputs"][0];
  input["instruction"] = {{"type", "env"}, {"content", "{}"}};
  input["memory"] = {{"unrelated", true}};
  input["tools"] = ordered_json::array();
  input["attributes"] = ordered_json::object();
  input["extra_keys"] = {{"x", 1}};
  auto response = post(request);
  Json outputs = *protocol::parseJson(response.body).value;
  EXPECT_THAT(outputs[0]["error"]["message"].get<std::string>(),
              HasSubstr("no recorded input resembles it"));
  EXPECT_EQ(storedMisses().at(0).closest_step_id, std::nullopt);
}

TEST_F(ReplayMissTest, HttpPolicyAnswers503) {
  startReplay([](auto& config) { config.replay.on_miss = replay::MissPolicy::Http; });
  ordered_json request = calls_.front().request;
  request["inputs"][0]["instruction"]["content"] = "Please press sw2 twice";
  auto response = post(request);
  EXPECT_EQ(response.status, 503);
  Json body = *protocol::parseJson(response.body).value;
  EXPECT_EQ(body["agentvcr_error"], "replay.miss");
  EXPECT_THAT(body["detail"].get<std::string>(), HasSubstr("/instruction/content"));
  EXPECT_EQ(storedMisses().at(0).policy, "http");
}

TEST_F(ReplayMissTest, ForwardPolicyAsksTheLiveAgentAndRecordsTheNewExchange) {
  ScriptedAgentServer agent;
  startReplay([&](auto& config) {
    config.replay.on_miss = replay::MissPolicy::Forward;
    config.upstream = *net::parseUrl(agent.url());
  });
  Call call = calls_.front();
  ordered_json request = call.request;
  request["request_id"] = "live-forward";
  request["inputs"][0]["instruction"]["content"] = "Please press sw2";

  auto response = post(request);
  ASSERT_EQ(response.status, 200);
  Json outputs = *protocol::parseJson(response.body).value;
  auto parsed_request = protocol::magma::parseAgentRequest(
      *protocol::parseJson(protocol::pythonJsonDumps(request)).value);
  EXPECT_TRUE(protocol::magma::parseAgentResponse(outputs, &*parsed_request.value).ok());
  // The live agent decided the missed input; the recording answered the rest.
  EXPECT_EQ(outputs[0]["status"], "completed");
  EXPECT_EQ(outputs[0]["output"]["tool_calls"][0]["arguments"]["id"], "sw2");
  EXPECT_EQ(outputs[1]["memory"], call.response[1]["memory"]);

  replay_->flush();
  store::ArchiveReader reader(db_path_);
  auto session = reader.session(*replay_->recordingSessionId());
  EXPECT_EQ(session->mode, "replay-forward");
  EXPECT_EQ(session->upstream, agent.url());
  auto exchanges = reader.exchanges(session->id, 0, 10);
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].status, 200);
  EXPECT_EQ(exchanges[0].magma_request_id, "live-forward");
  expectTimingPointsInOrder(*reader.exchange(exchanges[0].id));
  auto steps = reader.stepsOfExchange(exchanges[0].id);
  ASSERT_EQ(steps.size(), 1u) << "only the missed input is forwarded";
  EXPECT_EQ(steps[0].instruction_content, "Please press sw2");
  EXPECT_EQ(steps[0].candidate_count, 1);
  EXPECT_EQ(reader.replayMisses(session->id).at(0).policy, "forward");
  EXPECT_EQ(replay_->replayer().stats().forwarded, 1u);
}

TEST_F(ReplayMissTest, ForwardToADeadAgentIsA502) {
  startReplay([&](auto& config) {
    config.replay.on_miss = replay::MissPolicy::Forward;
    config.upstream = *net::parseUrl("http://127.0.0.1:1");
  });
  ordered_json request = calls_.front().request;
  request["inputs"][0]["instruction"]["content"] = "Please press sw2";
  auto response = post(request);
  EXPECT_EQ(response.status, 502);
  EXPECT_THAT(response.body, HasSubstr("replay.forward"));
}

TEST_F(ReplayMissTest, AForwardThatOutlivesTheDrainIsCutAndRecorded) {
  // A live agent that takes a minute: the stop waits for it no longer than the drain, and the
  // exchange it forwarded is recorded as cut, like the record relay's.
  FakeUpstream live([](const protocol::HttpRequest&) {
    FakeReply reply = FakeReply::http(200, "[]");
    reply.delay = std::chrono::seconds(60);
    return reply;
  });
  startReplay([&](auto& config) {
    config.replay.on_miss = replay::MissPolicy::Forward;
    config.upstream = *net::parseUrl(live.url());
    config.server.drain_timeout = std::chrono::milliseconds(500);
  });
  ordered_json request = calls_.front().request;
  request["inputs"][0]["instruction"]["content"] = "Please press sw2";
  std::thread caller([&] {
    try {
      post(request);
    } catch (const std::exception&) {
      // cut: what the caller gets is not the point here
    }
  });
  ASSERT_TRUE(waitUntil([&] { return !live.requests().empty(); }));
  const auto stopping = std::chrono::steady_clock::now();
  replay_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, std::chrono::seconds(10))
      << "the stop waited for the live agent";
  caller.join();

  store::ArchiveReader reader(db_path_);
  const auto session = reader.session(*replay_->recordingSessionId());
  ASSERT_TRUE(session);
  const auto exchanges = reader.exchanges(session->id, 0, 10);
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_THAT(exchanges[0].error.value_or(""), ::testing::StartsWith("[proxy.shutdown]"));
  EXPECT_EQ(exchanges[0].outcome, "upstream_timeout");
}

TEST_F(ReplayMissTest, IgnoredPartsAreLeftOutOfTheKey) {
  ordered_json request = calls_.front().request;
  request["inputs"][0]["attributes"]["robot_statuses"] = {
      {"panda", "RUNNING press_button(id=sw0)"}};

  startReplay();
  EXPECT_EQ((*protocol::parseJson(post(request).body).value)[0]["status"], "error");
  replay_->stop();

  startReplay([](auto& config) {
    config.replay.key_rules = replay::KeyRules::ignoring({"/attributes/robot_statuses"});
  });
  Json outputs = *protocol::parseJson(post(request).body).value;
  EXPECT_EQ(outputs[0]["status"], calls_.front().response[0]["status"]);
  EXPECT_EQ(outputs[0]["output"], calls_.front().response[0]["output"]);
  EXPECT_EQ(replay_->replayer().stats().misses, 0u);
  // Other parts still count.
  request["inputs"][0]["instruction"]["content"] = "Please press sw2 twice";
  EXPECT_EQ((*protocol::parseJson(post(request).body).value)[0]["status"], "error");
}

TEST_F(ReplayMissTest, MoreOutputsThanRecordedIsAMissNotAnInvention) {
  ordered_json request = calls_.front().request;
  request["inputs"][0]["num_outputs"] = 2;

  startReplay();
  Json outputs = *protocol::parseJson(post(request).body).value;
  EXPECT_EQ(outputs[0]["error"]["code"], "replay_miss");
  EXPECT_EQ(outputs[1]["error"]["code"], "replay_miss");
  EXPECT_EQ(outputs[1]["candidate_index"], 1);
  EXPECT_EQ(storedMisses().at(0).differences, R"(["/num_outputs"])");
  replay_->stop();

  // Even with num_outputs out of the key, the recording holds one candidate only.
  startReplay(
      [](auto& config) { config.replay.key_rules = replay::KeyRules::ignoring({"/num_outputs"}); });
  outputs = *protocol::parseJson(post(request).body).value;
  EXPECT_EQ(outputs[0]["error"]["code"], "replay_miss");
  EXPECT_THAT(outputs[0]["error"]["message"].get<std::string>(),
              HasSubstr("was answered with 1 candidates and 2 are asked for"));
}

}  // namespace
}  // namespace agentvcr::testing
