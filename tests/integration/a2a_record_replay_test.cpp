// A2A recorded through the real proxy from a fake agent, then served by replay: the archive's
// calls and events, streaming relayed as it arrives, ids re-stamped, streams at the recorded
// pace or fast, cards pointed at the replay, and misses that say so.

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "a2a_fixture.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/step_links.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {
namespace {

using protocol::Json;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

constexpr const char* kEndpoint = "/api/v1/a2a";
const std::vector<std::string> kStreamMarkers = {"\"submitted\"", "\"working\"", "\"streamed\"",
                                                 "\"final\":true"};

Json post(std::uint16_t port, const std::string& body, int expected_status = 200) {
  net::HttpClient client("127.0.0.1", port);
  auto response = client.send(
      "POST", kEndpoint, body,
      {{"Content-Type", "application/json"}, {"Authorization", "Bearer a2a-secret-token-93f1"}});
  EXPECT_EQ(response.status, expected_status) << response.body;
  auto parsed = protocol::parseJson(response.body);
  EXPECT_TRUE(parsed.value) << response.body;
  return parsed.value ? *parsed.value : Json();
}

class A2aRecordReplayTest : public ::testing::Test {
 protected:
  /// Records, through the proxy, a card fetch, two sends in one context, a tasks/get, a
  /// refused cancel and a stream; returns when each stream event reached the client.
  std::vector<double> recordConversation() {
    FakeUpstream agent(fakeA2aAgent("http://127.0.0.1:1"));
    proxy::RecordingProxyConfig config;
    config.relay.upstream = *net::parseUrl(agent.url());
    config.db_path = db_path_;
    config.session.name = "a2a";
    config.probe_identity = false;
    proxy::RecordingProxy recording(config);
    recording.start();
    const std::uint16_t port = recording.endpoint().port;

    net::HttpClient(("127.0.0.1"), port).get("/.well-known/agent.json");
    post(port, sendBody(1, "m-1", "What is grace?"));
    post(port, sendBody(2, "m-2", "And mercy?", "message/send", "ctx-What"));
    post(port, taskCall(3, "tasks/get", "task-14"));
    post(port, taskCall(4, "tasks/cancel", "task-14"));

    RawClient stream_client(port);
    const auto start = Clock::now();
    stream_client.send(
        rawPost(kEndpoint, sendBody(5, "m-5", "Stream it", "message/stream"), "text/event-stream"));
    auto times = arrivalTimes(stream_client, kStreamMarkers, start);
    recording.settle();
    recording.stop();
    return times;
  }

  /// Replay with its event streams at `stream_pace` (replay::kRecordedPace, kFastPace, a factor).
  std::unique_ptr<services::ReplayService> startReplay(double stream_pace,
                                                       bool ignore_message_id = false) {
    services::ReplayServiceConfig config;
    config.db_path = db_path_;
    config.server.port = 0;
    config.replay.stream_pace = stream_pace;
    config.replay.a2a_ignore_message_id = ignore_message_id;
    config.log_miss = [this](const std::string& line) { miss_lines_.push_back(line); };
    auto service = std::make_unique<services::ReplayService>(config);
    service->start();
    return service;
  }

  TempDir dir_;
  std::string db_path_ = dir_.file("a2a.sqlite");
  std::vector<std::string> miss_lines_;
};

TEST_F(A2aRecordReplayTest, StreamEventsReachTheClientAsTheAgentSendsThem) {
  auto times = recordConversation();
  ASSERT_EQ(times.size(), 4u);
  // The agent spends 3 gaps between its events: had the proxy buffered, all four would
  // arrive together once the agent finished.
  const double gap = static_cast<double>(kEventGap.count());
  EXPECT_GT(times[3] - times[0], 2.5 * gap);
  for (std::size_t i = 1; i < times.size(); ++i) {
    EXPECT_GT(times[i] - times[i - 1], 0.5 * gap) << "events " << i - 1 << " and " << i;
  }
}

TEST_F(A2aRecordReplayTest, TheArchiveHoldsEveryCallThreadedByContextAndTimedEvents) {
  recordConversation();
  store::ArchiveReader reader(db_path_);
  auto conversations = reader.conversations(1);
  ASSERT_EQ(conversations.size(), 2u);
  EXPECT_EQ(conversations[0].protocol, "a2a");
  EXPECT_EQ(conversations[0].context_id, "ctx-What");
  EXPECT_EQ(conversations[0].title, "What is grace?");
  auto calls = reader.a2aCalls(conversations[0].id);
  ASSERT_EQ(calls.size(), 4u);  // two sends, then get and cancel threaded by task id
  EXPECT_EQ(calls[0].method, "message/send");
  EXPECT_EQ(calls[0].task_state, "completed");
  EXPECT_EQ(calls[0].response_text, "answer: What is grace?");
  EXPECT_EQ(calls[1].request_text, "And mercy?");
  EXPECT_EQ(calls[2].method, "tasks/get");
  EXPECT_EQ(calls[3].error_code, -32002);

  auto stream_calls = reader.a2aCalls(conversations[1].id);
  ASSERT_EQ(stream_calls.size(), 1u);
  EXPECT_EQ(stream_calls[0].method, "message/stream");
  EXPECT_EQ(stream_calls[0].task_state, "completed");
  auto events = reader.streamEvents(stream_calls[0].exchange_id);
  ASSERT_EQ(events.size(), 4u);
  for (std::size_t i = 1; i < events.size(); ++i) {
    EXPECT_GT(events[i].at_ns - events[i - 1].at_ns, kEventGap.count() * 500'000);
  }

  auto exchanges = reader.exchanges(1, 0, 10);
  ASSERT_EQ(exchanges.size(), 6u);
  EXPECT_EQ(exchanges[0].route, "a2a.agent_card");
  auto full = reader.exchange(exchanges[1].id);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->protocol, "a2a");
  std::string headers;
  for (const auto& [name, value] : full->request_headers) {
    headers += name + ": " + value + "\n";
  }
  EXPECT_THAT(headers, Not(HasSubstr("a2a-secret-token-93f1")));
  EXPECT_THAT(headers, HasSubstr("REDACTED-"));
}

TEST_F(A2aRecordReplayTest, ReplayAnswersWithTheLiveIdsAndTheRecordedResults) {
  recordConversation();
  auto replay = startReplay(replay::kRecordedPace);
  const std::uint16_t port = replay->endpoint().port;
  // What the start line reports: every recorded call and the contexts they belong to.
  const replay::RecordedA2a loaded = replay->replayer().recordedA2a();
  store::ArchiveReader reader(db_path_);
  std::size_t calls = 0;
  for (const auto& conversation : reader.conversations(1)) {
    calls += reader.a2aCalls(conversation.id).size();
  }
  EXPECT_EQ(loaded.calls, calls);
  EXPECT_EQ(loaded.contexts, 2u);
  EXPECT_GE(loaded.exchanges, 1u);

  Json first = post(port, sendBody("string-id", "m-1", "What is grace?"));
  EXPECT_EQ(first["id"], "string-id");  // the live id, with its type
  EXPECT_EQ(first["result"]["id"], "task-14");
  EXPECT_EQ(first["result"]["artifacts"][0]["parts"][0]["text"], "answer: What is grace?");
  Json second = post(port, sendBody(77, "m-2", "And mercy?", "message/send", "ctx-What"));
  EXPECT_EQ(second["id"], 77);
  EXPECT_EQ(second["result"]["contextId"], "ctx-What");
  Json get = post(port, taskCall(nullptr, "tasks/get", "task-14"));
  EXPECT_TRUE(get["id"].is_null());
  EXPECT_EQ(get["result"]["id"], "task-14");
  Json cancel = post(port, taskCall(9, "tasks/cancel", "task-14"));
  EXPECT_EQ(cancel["id"], 9);
  EXPECT_EQ(cancel["error"]["code"], -32002);

  // Never asked as such: tasks/get of the task the second send returned, with historyLength.
  Json known = post(
      port,
      R"({"jsonrpc":"2.0","id":10,"method":"tasks/get","params":{"id":"task-10","historyLength":1}})");
  EXPECT_EQ(known["result"]["id"], "task-10");
  EXPECT_EQ(known["result"]["history"].size(), 1u);
  EXPECT_EQ(known["result"]["history"][0]["role"], "agent");
  EXPECT_TRUE(miss_lines_.empty());
}

TEST_F(A2aRecordReplayTest, ATasksGetAnsweredFromARecordedTaskKeepsTheAgentsBytes) {
  // A task as an agent may write it: spaced, `1.10`, a 23-digit integer, an escape.
  const std::string task =
      "{\"id\": \"task-7\", \"contextId\": \"c\", \"kind\": \"task\",\n"
      " \"status\": {\"state\": \"completed\"},\n"
      " \"metadata\": {\"score\": 1.10, \"serial\": 12345678901234567890123, \"name\": "
      "\"caf\\u00e9\"},\n \"history\": [";
  const std::string user = "{\"role\": \"user\", \"n\": 1.0}";
  const std::string agent_message = "{\"role\": \"agent\", \"n\": 2.50}";
  FakeUpstream agent([&](const protocol::HttpRequest& request) {
    const Json call = protocol::parseJson(request.body).value.value_or(Json());
    return FakeReply::http(200, R"({"jsonrpc":"2.0","id":)" + call.value("id", Json()).dump() +
                                    R"(,"result":)" + task + user + ", " + agent_message + "]}}");
  });
  {
    proxy::RecordingProxyConfig config;
    config.relay.upstream = *net::parseUrl(agent.url());
    config.db_path = db_path_;
    config.probe_identity = false;
    proxy::RecordingProxy recording(config);
    recording.start();
    post(recording.endpoint().port, sendBody(1, "m-1", "Hi"));
    recording.settle();
    recording.stop();
  }
  auto replay = startReplay(replay::kFastPace);
  // Never asked as such: answered from the task the send returned, its history cut to one.
  const auto answer = net::HttpClient("127.0.0.1", replay->endpoint().port)
                          .postJson(kEndpoint, R"({"jsonrpc":"2.0","id":8,"method":"tasks/get",)"
                                               R"("params":{"id":"task-7","historyLength":1}})");
  EXPECT_EQ(answer.body, R"({"jsonrpc":"2.0","id":8,"result":)" + task + agent_message + "]}}");
  EXPECT_TRUE(miss_lines_.empty());
}

TEST_F(A2aRecordReplayTest, ReplayPointsTheCardAtItself) {
  recordConversation();
  auto replay = startReplay(replay::kFastPace);
  net::HttpClient client("127.0.0.1", replay->endpoint().port);
  auto card = client.get("/.well-known/agent.json");
  ASSERT_EQ(card.status, 200);
  auto parsed = protocol::parseJson(card.body);
  ASSERT_TRUE(parsed.value);
  EXPECT_EQ((*parsed.value)["url"],
            "http://127.0.0.1:" + std::to_string(replay->endpoint().port) + kEndpoint);
  EXPECT_EQ(card.header("Cache-Control"), "public, max-age=3600");
  EXPECT_EQ(client.get("/.well-known/agent-card.json").status, 404);
}

TEST_F(A2aRecordReplayTest, ReplayStreamsEventByEventAtTheRecordedPaceOrFast) {
  recordConversation();
  for (auto pace : {replay::kRecordedPace, replay::kFastPace}) {
    auto replay = startReplay(pace);
    RawClient client(replay->endpoint().port);
    const auto start = Clock::now();
    client.send(rawPost(kEndpoint, sendBody("s", "m-5", "Stream it", "message/stream"),
                        "text/event-stream"));
    auto times = arrivalTimes(client, kStreamMarkers, start);
    ASSERT_EQ(times.size(), 4u);
    const double gap = static_cast<double>(kEventGap.count());
    if (pace == replay::kRecordedPace) {
      EXPECT_GT(times[3] - times[0], 2.5 * gap);
      EXPECT_GT(times[1] - times[0], 0.5 * gap);
    } else {
      EXPECT_LT(times[3], gap);
    }
  }
}

TEST_F(A2aRecordReplayTest, StreamedEventsCarryTheLiveId) {
  recordConversation();
  auto replay = startReplay(replay::kFastPace);
  RawClient client(replay->endpoint().port);
  client.send(rawPost(kEndpoint, sendBody("live-7", "m-5", "Stream it", "message/stream"),
                      "text/event-stream"));
  std::string body = client.readUntil("\"final\":true");
  EXPECT_THAT(body, HasSubstr("Content-Type: text/event-stream"));
  EXPECT_THAT(body, HasSubstr(R"(data: {"id":"live-7","jsonrpc":"2.0","result":{"contextId")"));
  EXPECT_THAT(body, Not(HasSubstr(R"("id":5,)")));
}

TEST_F(A2aRecordReplayTest, AMissIsAJsonRpcErrorNamingTheClosestRecording) {
  recordConversation();
  auto replay = startReplay(replay::kFastPace);
  Json miss = post(replay->endpoint().port, sendBody(3, "m-1", "What is sin?"));
  EXPECT_EQ(miss["id"], 3);
  EXPECT_EQ(miss["error"]["code"], -32603);
  EXPECT_EQ(miss["error"]["data"]["agentvcr_error"], "replay.miss");
  EXPECT_EQ(miss["error"]["data"]["differences"], Json::array({"/message/parts/0/text"}));
  EXPECT_THAT(miss["error"]["message"].get<std::string>(), HasSubstr("message/send"));
  ASSERT_EQ(miss_lines_.size(), 1u);
  EXPECT_THAT(miss_lines_[0], HasSubstr(R"("route":"a2a")"));
}

TEST_F(A2aRecordReplayTest, MessageIdsCanBeLeftOutOfTheKey) {
  recordConversation();
  {
    auto strict = startReplay(replay::kFastPace);
    Json miss = post(strict->endpoint().port, sendBody(1, "fresh-uuid", "What is grace?"));
    EXPECT_EQ(miss["error"]["data"]["differences"], Json::array({"/message/messageId"}));
  }
  auto lenient = startReplay(replay::kFastPace, /*ignore_message_id=*/true);
  Json hit = post(lenient->endpoint().port, sendBody(1, "fresh-uuid", "What is grace?"));
  EXPECT_EQ(hit["result"]["id"], "task-14");
}

TEST_F(A2aRecordReplayTest, AContextForksAtItsNthCallAndTheRestGoesLive) {
  recordConversation();
  // A changed agent: the recorded one, answering in other words.
  FakeUpstream changed([agent = fakeA2aAgent("http://127.0.0.1:1")](const auto& request) {
    FakeReply reply = agent(request);
    for (auto& segment : reply.segments) {
      for (auto at = segment.bytes.find("answer: "); at != std::string::npos;
           at = segment.bytes.find("answer: ", at)) {
        segment.bytes.replace(at, 8, "changed:");  // as long: Content-Length stays right
      }
    }
    return reply;
  });
  services::ReplayServiceConfig config;
  config.db_path = db_path_;
  config.server.port = 0;
  config.replay.stream_pace = replay::kFastPace;
  config.replay.on_miss = replay::MissPolicy::Forward;
  config.replay.fork_at = 2;
  config.upstream = *net::parseUrl(changed.url());
  config.log_miss = [this](const std::string& line) { miss_lines_.push_back(line); };
  services::ReplayService replay(config);
  replay.start();
  const std::uint16_t port = replay.endpoint().port;

  // Context ctx-What: its first two calls from the recording, its third and fourth live.
  Json first = post(port, sendBody(1, "m-1", "What is grace?"));
  EXPECT_EQ(first["result"]["artifacts"][0]["parts"][0]["text"], "answer: What is grace?");
  Json second = post(port, sendBody(2, "m-2", "And mercy?", "message/send", "ctx-What"));
  EXPECT_EQ(second["result"]["artifacts"][0]["parts"][0]["text"], "answer: And mercy?");
  Json get = post(port, taskCall(3, "tasks/get", "task-14"));
  EXPECT_EQ(get["id"], 3);
  EXPECT_EQ(get["result"]["artifacts"][0]["parts"][0]["text"], "changed:from get");
  Json cancel = post(port, taskCall(4, "tasks/cancel", "task-14"));
  EXPECT_EQ(cancel["error"]["code"], -32002);
  // The stream's context holds one call, above the fork point: recorded.
  net::HttpClient client("127.0.0.1", port);
  auto stream = client.send(
      "POST", kEndpoint, sendBody(5, "m-5", "Stream it", "message/stream"),
      {{"Content-Type", "application/json"}, {"Authorization", "Bearer a2a-secret-token-93f1"}});
  EXPECT_EQ(stream.status, 200);

  const auto live = changed.requests();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_THAT(live[0].body, HasSubstr("tasks/get"));
  EXPECT_THAT(live[1].body, HasSubstr("tasks/cancel"));
  const replay::ReplayStats stats = replay.replayer().stats();
  EXPECT_EQ(stats.hits, 3u);
  EXPECT_EQ(stats.forked, 2u);
  EXPECT_EQ(stats.misses, 0u);
  EXPECT_TRUE(miss_lines_.empty());

  replay.stop();
  store::ArchiveReader reader(db_path_);
  const auto sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[1].mode, "fork");
  EXPECT_EQ(sessions[1].name, "fork of 1 at 2");
  const auto stored = reader.exchanges(sessions[1].id, 0, 10);
  ASSERT_EQ(stored.size(), 2u);
  const store::A2aCallRow live_get = reader.a2aCallsOfExchange(stored[0].id).at(0);
  EXPECT_EQ(live_get.method, "tasks/get");
  EXPECT_EQ(reader.a2aCallsOfExchange(stored[1].id).at(0).method, "tasks/cancel");

  // Each live call is linked to the recorded call it asked again: the context's third and
  // fourth, whose two calls before them are the recorded prefix.
  const auto links = reader.callLinksOfSession(sessions[1].id);
  ASSERT_EQ(links.size(), 2u);
  for (const store::CallLink& link : links) {
    const auto live_call = reader.a2aCall(link.call_id);
    const auto recorded = reader.a2aCall(link.recorded_call_id);
    ASSERT_TRUE(live_call && recorded);
    EXPECT_EQ(recorded->session_id, sessions[0].id);
    EXPECT_EQ(recorded->method, live_call->method);
  }
  ASSERT_TRUE(live_get.conversation_id);
  const auto origin = reader.a2aForkOrigin(*live_get.conversation_id);
  ASSERT_TRUE(origin);
  EXPECT_EQ(origin->reasked.method, "tasks/get");
  ASSERT_EQ(origin->prefix.size(), 2u);
  EXPECT_EQ(origin->prefix[0].method, "message/send");
  EXPECT_EQ(origin->prefix[1].message_id, "m-2");

  // `show` prints the recorded prefix once, the fork point, then the live calls.
  cli::ShowCommand show;
  show.db_path = db_path_;
  show.conversation = *live_get.conversation_id;
  std::ostringstream out;
  EXPECT_EQ(cli::runShow(show, out), cli::kExitOk);
  const std::string printed = out.str();
  EXPECT_THAT(printed, HasSubstr("recorded prefix: conversation " +
                                 std::to_string(*origin->reasked.conversation_id) + " of session " +
                                 std::to_string(sessions[0].id) + ", 2 calls\n"));
  const auto fork_line =
      printed.find("--- fork at call 3: the live agent from here (recorded call " +
                   std::to_string(origin->reasked.id) + " asked again)");
  ASSERT_NE(fork_line, std::string::npos) << printed;
  EXPECT_LT(printed.find("call " + std::to_string(origin->prefix[1].id) + " [message/send"),
            fork_line);
  EXPECT_GT(printed.find("call " + std::to_string(live_get.id) + " [tasks/get"), fork_line)
      << printed;
}

}  // namespace
}  // namespace agentvcr::testing
