// A2A v1.0's HTTP+JSON binding through `agentvcr record` and `agentvcr replay`: the standard
// mock's REST routes over real loopback sockets, decoded into a2a_calls as JSON-RPC calls are
// (method, task, context, state, artifacts, errors, streams event by event), then served back
// as they were recorded.

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/lint_command.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/services/a2a_mock_service.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "replay_fixture.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;

class A2aRestRecordTest : public ReplayTest {
 protected:
  void SetUp() override {
    sim::a2a::MockConfig config;
    config.profile = sim::a2a::ProfileKind::Standard;
    auto load = sim::a2a::loadFixturesDir(std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/standard");
    ASSERT_TRUE(load.fixtures) << load.error;
    config.fixtures = std::move(*load.fixtures);
    config.stream_delay = 5ms;
    proxy::ServerOptions server;
    server.threads = 1;
    mock_ = std::make_unique<services::A2aMockService>(
        std::move(config), std::make_shared<sim::a2a::SystemClock>(), server);
    mock_->start();
  }

  void TearDown() override { mock_->stop(); }

  /// `method` `path` (under the binding's base) through a recorder, with A2A-Version 1.0.
  static net::ClientResponse ask(net::HttpClient& client, const std::string& method,
                                 const std::string& path, const std::string& body = "") {
    protocol::Headers headers = {{"A2A-Version", "1.0"}};
    if (!body.empty()) {
      headers.push_back({"Content-Type", "application/a2a+json"});
    }
    return client.send(method, "/api/v1/rest" + path, body, headers);
  }

  /// The REST conversation of the tests: send, get, cancel twice, a stream; each answer's
  /// status and body (a stream's events joined).
  static std::vector<std::string> converse(net::HttpClient& client, std::string& task_id) {
    std::vector<std::string> answers;
    const auto keep = [&](const net::ClientResponse& answer) {
      answers.push_back(std::to_string(answer.status) + " " + answer.body);
      return answer;
    };
    const auto sent = keep(ask(client, "POST", "/message:send",
                               R"({"message":{"messageId":"m-1","role":"ROLE_USER",)"
                               R"("contextId":"ctx-rest","parts":[{"text":"hello"}]}})"));
    task_id = protocol::Json::parse(sent.body)["task"]["id"];
    keep(ask(client, "GET", "/tasks/" + task_id + "?historyLength=1"));
    keep(ask(client, "POST", "/tasks/" + task_id + ":cancel"));
    keep(ask(client, "POST", "/tasks/" + task_id + ":cancel"));
    keep(ask(client, "POST", "/message:stream",
             R"({"message":{"messageId":"fate-stream-2","role":"ROLE_USER",)"
             R"("parts":[{"text":"go"}]}})"));
    keep(ask(client, "GET", "/tasks?pageSize=1"));
    keep(ask(client, "GET", "/tasks?pageSize=5"));
    return answers;
  }

  std::unique_ptr<services::A2aMockService> mock_;
};

TEST_F(A2aRestRecordTest, RestCallsAreDecodedLikeJsonRpcOnes) {
  std::string task_id;
  std::vector<std::string> recorded;
  {
    auto recording = startRecording(mock_->baseUrl(), db_path_, "rest");
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    recorded = converse(client, task_id);
    recording->settle();
    recording->stop();
  }
  ASSERT_EQ(recorded.size(), 7u);
  EXPECT_NE(recorded[5], recorded[6]) << "two pages of different sizes";
  EXPECT_EQ(recorded[0].substr(0, 4), "200 ");
  EXPECT_EQ(recorded[3].substr(0, 4), "400 ") << "the second cancel is refused";
  store::ArchiveReader reader(db_path_);
  std::vector<store::A2aCallRow> calls;
  for (const auto& conversation : reader.conversations(1)) {
    for (auto& call : reader.a2aCalls(conversation.id)) {
      calls.push_back(std::move(call));
    }
  }
  std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  ASSERT_EQ(calls.size(), 5u) << "the ListTasks calls name no context: no conversation";
  const auto row = [](const store::A2aCallRow& call) {
    return call.method.value_or("-") + " " + call.wire_version + " " +
           call.task_state_norm.value_or("-") + " " +
           (call.error_code ? std::to_string(*call.error_code) : std::string("-"));
  };
  EXPECT_EQ(row(calls[0]), "SendMessage 1.0 input-required -");
  EXPECT_EQ(row(calls[1]), "GetTask 1.0 input-required -");
  EXPECT_EQ(row(calls[2]), "CancelTask 1.0 canceled -");
  EXPECT_EQ(row(calls[3]), "CancelTask 1.0 - -32002");
  EXPECT_EQ(row(calls[4]), "SendStreamingMessage 1.0 completed -");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(calls[static_cast<std::size_t>(i)].task_id, task_id) << i;
  }
  EXPECT_EQ(calls[0].context_id, "ctx-rest");
  EXPECT_EQ(calls[0].request_text, "hello");
  EXPECT_EQ(calls[4].stream_event_count, 6);
  EXPECT_THAT(calls[3].error_data.value_or(""), ::testing::HasSubstr("TASK_NOT_CANCELABLE"));
  // The mock speaks the binding as the specification writes it: lint finds nothing.
  std::ostringstream linted;
  EXPECT_EQ(cli::runLint({db_path_, {}, "text"}, linted), cli::kExitOk) << linted.str();
  EXPECT_EQ(linted.str(), "0 violations\n");

  // Replay serves the same conversation: the same statuses and bodies, the stream included.
  mock_->stop();
  startReplay(
      [](services::ReplayServiceConfig& config) { config.replay.stream_pace = replay::kFastPace; });
  auto client = replayClient();
  std::string replayed_task;
  EXPECT_EQ(converse(client, replayed_task), recorded);
  EXPECT_EQ(replayed_task, task_id);
  // The query is part of a call: asked the other way round, each page is still its own.
  replay_->stop();
  startReplay(
      [](services::ReplayServiceConfig& config) { config.replay.stream_pace = replay::kFastPace; });
  auto again = replayClient();
  const auto big = ask(again, "GET", "/tasks?pageSize=5");
  EXPECT_EQ(std::to_string(big.status) + " " + big.body, recorded[6]);
  const auto small = ask(again, "GET", "/tasks?pageSize=1");
  EXPECT_EQ(std::to_string(small.status) + " " + small.body, recorded[5]);
  const auto missed = ask(again, "GET", "/tasks/never-recorded");
  EXPECT_EQ(missed.status, 404);
  const auto status = protocol::Json::parse(missed.body)["error"];
  EXPECT_EQ(status["status"], "NOT_FOUND");
  EXPECT_EQ(status["details"][0]["reason"], "REPLAY_MISS");
}

TEST_F(A2aRestRecordTest, AGetThatMissesWithoutAnA2aVersionGetsTheBindingsNotFound) {
  std::string task_id;
  {
    auto recording = startRecording(mock_->baseUrl(), db_path_, "rest");
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    converse(client, task_id);
    recording->settle();
    recording->stop();
  }
  mock_->stop();
  startReplay();
  auto client = replayClient();
  // Paths where calls of the binding were recorded, asked for what was not, by a client that
  // names no A2A-Version (a v0.3 client, or one that leaves the default).
  for (const std::string& target : {std::string("/api/v1/rest/tasks?pageSize=3"),
                                    "/api/v1/rest/tasks/" + task_id + "?historyLength=7"}) {
    const auto missed = client.get(target);
    EXPECT_EQ(missed.status, 404) << target << ": " << missed.body;
    const auto parsed = protocol::parseJson(missed.body);
    ASSERT_TRUE(parsed.value) << missed.body;
    const protocol::Json& status = protocol::memberOrNull(*parsed.value, "error");
    EXPECT_EQ(protocol::memberOrNull(status, "status"), "NOT_FOUND") << missed.body;
    EXPECT_EQ(status.value("details", protocol::Json::array()).dump(),
              protocol::Json::array({{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                                      {"reason", "REPLAY_MISS"},
                                      {"domain", "agentvcr"},
                                      {"metadata", {{"agentvcr_error", "replay.miss"}}}}})
                  .dump());
  }
}

}  // namespace
}  // namespace agentvcr::testing
