// Replay against archives recorded from a fake agent the test steers: repeated inputs,
// recorded failures, 422 bodies, coaching routes, identity stand-ins and selections.

#include <atomic>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "fake_upstream.hpp"
#include "replay_fixture.hpp"

namespace agentvcr::testing {
namespace {

using nlohmann::ordered_json;
using protocol::Json;
using ::testing::HasSubstr;

const char* const kSessionConfig =
    R"({"backends": {"local": {"type": "ollama", "endpoint": "http://127.0.0.1:1/v1", )"
    R"("default_model": "m", "headers": {"Authorization": "Bearer coach-secret"}, "timeout": 60, )"
    R"("max_retry": 3}}, "provider": "llm", "endpoint": null, "connect_timeout": 10, )"
    R"("capture_logs": true})";

std::string coachingRequest(const std::string& run_id, const std::string& request_id,
                            const std::string& goal = "Move damaged objects") {
  ordered_json body = ordered_json::parse(R"({"run_id":"","request_id":"","kind":"failure",
   "stage":{"id":0,"goal":"","hint":null},"active_errors":[],"diagnosis":null,"target_step_id":1,
   "trajectory":[{"id":1,"input":{"id":41,"instruction":{"type":"user","content":"Sort"},
     "tools":[],"attributes":{},"memory":{"history":[]},"num_outputs":1,"extra_keys":{}},
     "output":{"say":"Which fruits?","tool_calls":[]},"error":null,"internal_steps":[],
     "execution":{}}],
   "reinjection_points":[{"id":"p1","input_step_id":1}],"additional_info":{}})");
  body["run_id"] = run_id;
  body["request_id"] = request_id;
  body["stage"]["goal"] = goal;
  return protocol::pythonJsonDumps(body, protocol::kPythonDefaultStyle);
}

std::string coachingAnswer(const std::string& request_id) {
  ordered_json body = ordered_json::parse(
      R"({"logs":[{"coaching_type":"failure","content":"# Coaching"}],"request_id":"",)"
      R"("status":"corrected","proposals":[{"reinjection_point_id":"p1","extra_keys":{"k":1}}],)"
      R"("reason":null})");
  body["request_id"] = request_id;
  return protocol::pythonJsonDumps(body);
}

/// An agent that says "answer N" on its N-th /v1/responses input, and plays coaching.
FakeReply countingAgent(const protocol::HttpRequest& request, std::atomic<int>& counter) {
  const auto route = protocol::magma::routeOf(request.method, request.target);
  if (route == protocol::magma::Route::CoachingPut ||
      route == protocol::magma::Route::CoachingDelete) {
    return FakeReply::http(204, "", "");
  }
  if (route != protocol::magma::Route::Coaching && route != protocol::magma::Route::Responses) {
    return FakeReply::http(404, R"({"detail":"Not Found"})");
  }
  auto body = *protocol::parseJson(request.body).value;
  if (route == protocol::magma::Route::Coaching) {
    return FakeReply::http(200, coachingAnswer(body["request_id"]));
  }
  if (body["inputs"][0]["instruction"]["content"] == "fail") {
    return FakeReply::http(500, R"({"detail":"the model server is down"})");
  }
  // "python" inputs get json.dumps()'s own style and a non-ASCII answer.
  const bool python_style = body["inputs"][0]["instruction"]["content"] == "python";
  ordered_json outputs = ordered_json::array();
  for (const auto& input : body["inputs"]) {
    ordered_json output;
    output["request_id"] = body["request_id"];
    output["source_id"] = input["id"];
    output["candidate_index"] = 0;
    output["status"] = "completed";
    output["memory"] = {{"n", ++counter}};
    output["internal_steps"] = ordered_json::array();
    output["output"] = {
        {"say", (python_style ? "r\u00e9ponse " : "answer ") + std::to_string(counter.load())},
        {"tool_calls", ordered_json::array()}};
    output["error"] = nullptr;
    outputs.push_back(output);
  }
  return FakeReply::http(
      200,
      protocol::pythonJsonDumps(
          outputs, python_style ? protocol::kPythonDefaultStyle : protocol::PythonJsonStyle{}),
      "application/json", "server: uvicorn\r\n");
}

std::string requestBody(const std::string& request_id, const std::vector<std::int64_t>& ids,
                        const std::string& content = "hello") {
  ordered_json inputs = ordered_json::array();
  for (std::int64_t id : ids) {
    inputs.push_back({{"id", id},
                      {"instruction", {{"type", "user"}, {"content", content}}},
                      {"memory", ordered_json::object()}});
  }
  return protocol::pythonJsonDumps(ordered_json{{"request_id", request_id}, {"inputs", inputs}},
                                   protocol::kPythonDefaultStyle);
}

std::vector<std::string> says(const std::string& body) {
  std::vector<std::string> out;
  const Json outputs = *protocol::parseJson(body).value;
  for (const auto& output : outputs) {
    out.push_back(output["output"]["say"]);
  }
  return out;
}

class ReplayRoutesTest : public ReplayTest {
 protected:
  /// Records `calls` made against the counting agent into the test archive.
  void recordFromFake(const std::function<void(net::HttpClient&)>& calls) {
    FakeUpstream agent(
        [this](const protocol::HttpRequest& request) { return countingAgent(request, counter_); });
    auto recording = startRecording(agent.url(), db_path_, "fake");
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    calls(client);
    recording->settle();
    recording->stop();
  }

  /// Records one request, then replays forwarding misses to `live`, a counting agent too.
  void replayForwardingTo(const FakeUpstream& live) {
    recordFromFake(
        [](net::HttpClient& client) { client.postJson("/v1/responses", requestBody("r1", {0})); });
    startReplay([&](services::ReplayServiceConfig& config) {
      config.replay.on_miss = replay::MissPolicy::Forward;
      config.upstream = *net::parseUrl(live.url());
    });
  }

  std::atomic<int> counter_{0};
};

TEST_F(ReplayRoutesTest, RepeatedInputsAreServedInRecordedOrderThenTheLastAgain) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}));
    client.postJson("/v1/responses", requestBody("r2", {0}));
    client.postJson("/v1/responses", requestBody("r3", {0}, "other"));
  });
  startReplay();
  auto client = replayClient();
  EXPECT_THAT(says(client.postJson("/v1/responses", requestBody("a", {7})).body),
              ::testing::ElementsAre("answer 1"));
  EXPECT_THAT(says(client.postJson("/v1/responses", requestBody("b", {8})).body),
              ::testing::ElementsAre("answer 2"));
  EXPECT_THAT(says(client.postJson("/v1/responses", requestBody("c", {9})).body),
              ::testing::ElementsAre("answer 2"));
  replay_->stop();

  // A batch holding the same input twice takes both recorded answers, in order.
  startReplay();
  EXPECT_THAT(says(replayClient().postJson("/v1/responses", requestBody("d", {3, 4})).body),
              ::testing::ElementsAre("answer 1", "answer 2"));
}

// The counting agent answers the same input otherwise each time, as a sampling agent does: a
// second run gets the first run's answers only from a rewind.
TEST_F(ReplayRoutesTest, ARewindServesTheSameRunAgain) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}));
    client.postJson("/v1/responses", requestBody("r2", {0}));
    client.send("POST", "/v1/coaching", coachingRequest("run-1", "c1"));
    client.send("POST", "/v1/coaching", coachingRequest("run-1", "c2"));
  });
  startReplay();
  auto client = replayClient();
  const auto run = [&] {
    std::vector<std::string> answers;
    for (const char* id : {"a", "b", "c"}) {
      answers.push_back(says(client.postJson("/v1/responses", requestBody(id, {7})).body).at(0));
    }
    for (const char* id : {"d", "e"}) {
      const auto coached = client.send("POST", "/v1/coaching", coachingRequest("run-9", id));
      answers.push_back(std::to_string(coached.status) + " " + coached.body);
    }
    return answers;
  };
  const std::vector<std::string> first = run();
  EXPECT_EQ(first[0], "answer 1");
  EXPECT_EQ(first[1], "answer 2");
  EXPECT_EQ(first[2], "answer 2") << "used up: the last again";
  EXPECT_NE(first[3], first[4]) << "each coaching answer names its own request id";
  EXPECT_EQ(run()[0], "answer 2") << "no rewind, no second run";

  EXPECT_EQ(client.get("/_agentvcr/replay/rewind").status, 405);
  const auto rewound = client.send("POST", "/_agentvcr/replay/rewind");
  ASSERT_EQ(rewound.status, 200);
  EXPECT_EQ(Json::parse(rewound.body)["rewinds"], 1);
  std::vector<std::string> again = run();
  // Coaching answers carry the live request id, the same in both runs.
  EXPECT_EQ(again, first);

  EXPECT_EQ(client.get("/v1/info").status, 200);
  EXPECT_EQ(run()[0], "answer 2") << "GET /v1/info rewinds only with --rewind-on-info";
  const auto status = Json::parse(client.get("/_agentvcr/replay").body);
  EXPECT_EQ(status["rewinds"], 1);
  EXPECT_EQ(status["requests"], 4 * 5 + 1) << "the rewinds and status asks are not requests";
}

TEST_F(ReplayRoutesTest, RewindOnInfoGivesEveryRunTheSameAnswers) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}));
    client.postJson("/v1/responses", requestBody("r2", {0}));
  });
  startReplay([](services::ReplayServiceConfig& config) { config.replay.rewind_on_info = true; });
  // One BENCH run after another against one replay process, each starting with its probe.
  for (int bench_run = 0; bench_run < 3; ++bench_run) {
    auto client = replayClient();
    ASSERT_EQ(client.get("/v1/info").status, 200);
    EXPECT_THAT(says(client.postJson("/v1/responses", requestBody("a", {bench_run})).body),
                ::testing::ElementsAre("answer 1"))
        << "run " << bench_run;
    EXPECT_THAT(says(client.postJson("/v1/responses", requestBody("b", {bench_run})).body),
                ::testing::ElementsAre("answer 2"))
        << "run " << bench_run;
  }
  EXPECT_EQ(Json::parse(replayClient().get("/_agentvcr/replay").body)["rewinds"], 3);
}

/// `body` posted to /v1/responses in scope `scope`: the answers' says.
std::vector<std::string> scopedSays(net::HttpClient& client, const std::string& scope,
                                    const std::string& body) {
  const auto reply =
      client.send("POST", "/v1/responses", body,
                  {{"Content-Type", "application/json"}, {"X-Agentvcr-Scope", scope}});
  EXPECT_EQ(reply.status, 200) << reply.body;
  return says(reply.body);
}

TEST_F(ReplayRoutesTest, ScopesEachSeeTheRecordingFromTheStartWhateverTheOthersDo) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}));
    client.postJson("/v1/responses", requestBody("r2", {0}));
  });
  startReplay();
  // Two test runs at once against one replay, each in its own scope, each twice through.
  std::vector<std::vector<std::string>> seen(2);
  std::vector<std::thread> tests;
  for (std::size_t t = 0; t < 2; ++t) {
    tests.emplace_back([&, t] {
      auto client = replayClient();
      for (const char* id : {"a", "b", "c"}) {
        seen[t].push_back(scopedSays(client, "test-" + std::to_string(t), requestBody(id, {1}))[0]);
      }
    });
  }
  for (std::thread& t : tests) {
    t.join();
  }
  const std::vector<std::string> run = {"answer 1", "answer 2", "answer 2"};
  EXPECT_EQ(seen[0], run);
  EXPECT_EQ(seen[1], run);

  auto client = replayClient();
  EXPECT_THAT(says(client.postJson("/v1/responses", requestBody("shared", {0})).body),
              ::testing::ElementsAre("answer 1"))
      << "the shared cursors never moved";
  auto status = Json::parse(client.get("/_agentvcr/replay").body);
  EXPECT_EQ(status["scopes"], Json::array({"test-0", "test-1"}));

  // One scope rewound: it starts again, the other goes on where it was.
  EXPECT_EQ(client.send("POST", "/_agentvcr/replay/rewind?scope=test-0").status, 200);
  EXPECT_EQ(scopedSays(client, "test-0", requestBody("d", {1}))[0], "answer 1");
  EXPECT_EQ(scopedSays(client, "test-1", requestBody("e", {1}))[0], "answer 2");
  EXPECT_EQ(client.send("POST", "/_agentvcr/replay/rewind?scope=no%20such").status, 400);
}

TEST_F(ReplayRoutesTest, ABadOrOneTooManyScopeIsAClear400) {
  recordFromFake(
      [](net::HttpClient& client) { client.postJson("/v1/responses", requestBody("r1", {0})); });
  startReplay();
  auto client = replayClient();
  for (const std::string& bad : {std::string(""), std::string(65, 'x'), std::string("a b"),
                                 std::string("caf\xc3\xa9"), std::string("a/b")}) {
    const auto reply =
        client.send("POST", "/v1/responses", requestBody("r", {0}), {{"X-Agentvcr-Scope", bad}});
    EXPECT_EQ(reply.status, 400) << bad;
    EXPECT_THAT(reply.body, HasSubstr("1 to 64 letters")) << bad;
  }
  for (int s = 0; s < 256; ++s) {
    ASSERT_EQ(scopedSays(client, "t" + std::to_string(s), requestBody("r", {0})).size(), 1u);
  }
  const auto refused = client.send("POST", "/v1/responses", requestBody("r", {0}),
                                   {{"X-Agentvcr-Scope", "one-too-many"}});
  EXPECT_EQ(refused.status, 400);
  EXPECT_THAT(refused.body, HasSubstr("256 live scopes"));
  EXPECT_EQ(client.send("POST", "/_agentvcr/replay/rewind?scope=t7").status, 200);
  EXPECT_EQ(scopedSays(client, "one-too-many", requestBody("r", {0})).size(), 1u)
      << "a rewound scope makes room";
}

TEST_F(ReplayRoutesTest, AForwardedRequestGoesWithoutItsScope) {
  FakeUpstream live(
      [this](const protocol::HttpRequest& request) { return countingAgent(request, counter_); });
  replayForwardingTo(live);
  auto client = replayClient();
  EXPECT_EQ(scopedSays(client, "suite-1", requestBody("r", {0}, "never recorded")).size(), 1u);
  ASSERT_EQ(live.requests().size(), 1u);
  EXPECT_EQ(protocol::findHeader(live.requests()[0].headers, "X-Agentvcr-Scope"), nullptr);
}

TEST_F(ReplayRoutesTest, TwoScopeHeadersAreRefusedAndNeverForwarded) {
  FakeUpstream live(
      [this](const protocol::HttpRequest& request) { return countingAgent(request, counter_); });
  replayForwardingTo(live);
  auto client = replayClient();
  // Two good names, and a good one before a bad one: neither gets past.
  for (const char* second : {"suite-2", "no such"}) {
    const auto reply = client.send("POST", "/v1/responses", requestBody("r", {0}, "never recorded"),
                                   {{"X-Agentvcr-Scope", "suite-1"}, {"X-Agentvcr-Scope", second}});
    EXPECT_EQ(reply.status, 400) << second;
    EXPECT_THAT(reply.body, HasSubstr("one X-Agentvcr-Scope header")) << second;
  }
  EXPECT_TRUE(live.requests().empty()) << "a scope header reached the live agent";
  const auto status = ordered_json::parse(client.get("/_agentvcr/replay").body);
  EXPECT_TRUE(status["scopes"].empty()) << "a refused request took a scope";
}

TEST_F(ReplayRoutesTest, ARewindNamesOneScope) {
  recordFromFake(
      [](net::HttpClient& client) { client.postJson("/v1/responses", requestBody("r1", {0})); });
  startReplay();
  auto client = replayClient();
  ASSERT_EQ(scopedSays(client, "a", requestBody("r", {0})).size(), 1u);
  ASSERT_EQ(scopedSays(client, "b", requestBody("r", {0})).size(), 1u);
  const auto refused = client.send("POST", "/_agentvcr/replay/rewind?scope=a&scope=b");
  EXPECT_EQ(refused.status, 400);
  EXPECT_THAT(refused.body, HasSubstr("one scope"));
  const auto status = ordered_json::parse(client.get("/_agentvcr/replay").body);
  EXPECT_EQ(status["scopes"].size(), 2u) << "a refused rewind ended a scope";
}

TEST_F(ReplayRoutesTest, RecordRefusesTwoScopeHeadersBeforeTheAgent) {
  FakeUpstream agent(
      [this](const protocol::HttpRequest& request) { return countingAgent(request, counter_); });
  {
    auto recording = startRecording(agent.url(), db_path_, "fake");
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    for (const char* second : {"test-b", "no such"}) {
      const auto refused =
          client.send("POST", "/v1/responses", requestBody("two", {0}),
                      {{"X-Agentvcr-Scope", "test-a"}, {"X-Agentvcr-Scope", second}});
      EXPECT_EQ(refused.status, 400) << second;
      EXPECT_THAT(refused.body, HasSubstr("proxy.request.bad_scope")) << second;
      EXPECT_THAT(refused.body, HasSubstr("one X-Agentvcr-Scope header")) << second;
    }
    recording->settle();
    recording->stop();
  }
  EXPECT_TRUE(agent.requests().empty()) << "a request with two scopes reached the agent";
  store::ArchiveReader reader(db_path_);
  const auto exchanges = reader.exchanges(reader.sessions().at(0).id, 0, 10);
  ASSERT_EQ(exchanges.size(), 2u);
  for (const store::ExchangeRow& row : exchanges) {
    EXPECT_EQ(row.outcome, "request_rejected");
    const auto recorded = reader.exchange(row.id);
    std::size_t scopes = 0;
    for (const protocol::HeaderField& field : recorded->request_headers) {
      scopes += protocol::equalsIgnoreCase(field.name, "X-Agentvcr-Scope") ? 1 : 0;
    }
    EXPECT_EQ(scopes, 2u) << "the record keeps what the caller sent";
  }
}

// Two tests recorded at once, each in its scope, interleaved with an unscoped caller: the agent
// never sees the header, and each scope gets its own recording back first, in any order.
TEST_F(ReplayRoutesTest, ARecordedScopeIsStrippedBeforeTheAgentAndReplayedToItsOwnScope) {
  FakeUpstream agent(
      [this](const protocol::HttpRequest& request) { return countingAgent(request, counter_); });
  {
    auto recording = startRecording(agent.url(), db_path_, "fake");
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    EXPECT_EQ(scopedSays(client, "test-a", requestBody("a1", {0}))[0], "answer 1");
    EXPECT_EQ(scopedSays(client, "test-b", requestBody("b1", {0}))[0], "answer 2");
    EXPECT_EQ(says(client.postJson("/v1/responses", requestBody("s1", {0})).body)[0], "answer 3");
    EXPECT_EQ(scopedSays(client, "test-a", requestBody("a2", {0}))[0], "answer 4");
    EXPECT_EQ(scopedSays(client, "test-b", requestBody("b2", {0}))[0], "answer 5");
    const auto refused = client.send("POST", "/v1/responses", requestBody("bad", {0}),
                                     {{"X-Agentvcr-Scope", "no such"}});
    EXPECT_EQ(refused.status, 400);
    EXPECT_THAT(refused.body, HasSubstr("proxy.request.bad_scope"));
    EXPECT_THAT(refused.body, HasSubstr("1 to 64 letters"));
    recording->settle();
    recording->stop();
  }
  ASSERT_EQ(agent.requests().size(), 5u) << "the badly scoped request never reached the agent";
  for (const protocol::HttpRequest& seen : agent.requests()) {
    EXPECT_EQ(protocol::findHeader(seen.headers, "X-Agentvcr-Scope"), nullptr);
  }
  {
    store::ArchiveReader reader(db_path_);
    const auto exchanges = reader.exchanges(reader.sessions().at(0).id, 0, 10);
    ASSERT_EQ(exchanges.size(), 6u);
    const auto first = reader.exchange(exchanges[0].id);
    EXPECT_EQ(protocol::headerValue(first->request_headers, "X-Agentvcr-Scope"), "test-a")
        << "the recorded request keeps the scope";
    EXPECT_EQ(exchanges[5].outcome, "request_rejected");
  }

  startReplay();
  auto client = replayClient();
  // Test b runs first this time; then a; then a scope nothing was recorded in, then no scope.
  EXPECT_EQ(scopedSays(client, "test-b", requestBody("x", {9}))[0], "answer 2");
  EXPECT_EQ(scopedSays(client, "test-b", requestBody("x", {9}))[0], "answer 5");
  EXPECT_EQ(scopedSays(client, "test-b", requestBody("x", {9}))[0], "answer 3")
      << "its own used up: the unscoped recording next";
  EXPECT_EQ(scopedSays(client, "test-a", requestBody("x", {9}))[0], "answer 1");
  EXPECT_EQ(scopedSays(client, "test-a", requestBody("x", {9}))[0], "answer 4");
  EXPECT_EQ(scopedSays(client, "test-c", requestBody("x", {9}))[0], "answer 3");
  EXPECT_EQ(scopedSays(client, "test-c", requestBody("x", {9}))[0], "answer 1");
  for (const char* expected : {"answer 1", "answer 2", "answer 3", "answer 4", "answer 5"}) {
    EXPECT_EQ(says(client.postJson("/v1/responses", requestBody("x", {9})).body)[0], expected)
        << "no scope: the whole recording in order";
  }
}

TEST_F(ReplayRoutesTest, AnswersAreRestampedAndKeepTheAgentsHeaders) {
  recordFromFake(
      [](net::HttpClient& client) { client.postJson("/v1/responses", requestBody("r1", {0})); });
  startReplay();
  auto response = replayClient().postJson("/v1/responses", requestBody("live", {12}));
  EXPECT_EQ(response.header("server"), "uvicorn");
  EXPECT_EQ(response.header("date"), "");
  EXPECT_EQ(response.body,
            R"([{"request_id":"live","source_id":12,"candidate_index":0,"status":"completed",)"
            R"("memory":{"n":1},"internal_steps":[],"output":{"say":"answer 1","tool_calls":[]},)"
            R"("error":null}])");
}

TEST_F(ReplayRoutesTest, AnswersFromTwoStylesAreWrittenInTheFirstOnesStyle) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}, "hello"));
    client.postJson("/v1/responses", requestBody("r2", {0}, "python"));
  });
  auto twoInputs = [](const std::string& first, const std::string& second) {
    ordered_json body = ordered_json::parse(requestBody("live", {7, 8}));
    body["inputs"][0]["instruction"]["content"] = first;
    body["inputs"][1]["instruction"]["content"] = second;
    return protocol::pythonJsonDumps(body, protocol::kPythonDefaultStyle);
  };
  startReplay();
  EXPECT_EQ(replayClient().postJson("/v1/responses", twoInputs("hello", "python")).body,
            R"([{"request_id":"live","source_id":7,"candidate_index":0,"status":"completed",)"
            R"("memory":{"n":1},"internal_steps":[],"output":{"say":"answer 1","tool_calls":[]},)"
            R"("error":null},{"request_id":"live","source_id":8,"candidate_index":0,)"
            R"("status":"completed","memory":{"n":2},"internal_steps":[],)"
            "\"output\":{\"say\":\"r\u00e9ponse 2\",\"tool_calls\":[]},\"error\":null}]");
  replay_->stop();

  startReplay();
  EXPECT_EQ(replayClient().postJson("/v1/responses", twoInputs("python", "hello")).body,
            R"([{"request_id": "live", "source_id": 7, "candidate_index": 0, )"
            R"("status": "completed", "memory": {"n": 2}, "internal_steps": [], )"
            R"("output": {"say": "r\u00e9ponse 2", "tool_calls": []}, "error": null}, )"
            R"({"request_id": "live", "source_id": 8, "candidate_index": 0, )"
            R"("status": "completed", "memory": {"n": 1}, "internal_steps": [], )"
            R"("output": {"say": "answer 1", "tool_calls": []}, "error": null}])");
}

TEST_F(ReplayRoutesTest, RecordedFailureIsReplayedAsItWas) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}, "fail"));
  });
  startReplay();
  auto response = replayClient().postJson("/v1/responses", requestBody("live", {5}, "fail"));
  EXPECT_EQ(response.status, 500);
  EXPECT_EQ(response.body, R"({"detail":"the model server is down"})");
}

TEST_F(ReplayRoutesTest, InvalidRequestsGetFastApiShaped422s) {
  recordFromFake([](net::HttpClient&) {});
  startReplay();
  auto client = replayClient();
  auto response = client.postJson(
      "/v1/responses",
      R"({"request_id": "x", "inputs": [{"id": 1, "instruction": {"type": "robot", "content": "hi"}, "extra": 1}]})");
  EXPECT_EQ(response.status, 422);
  Json detail = (*protocol::parseJson(response.body).value)["detail"];
  ASSERT_EQ(detail.size(), 2u);
  // In the reference server's order (cross-checked against Pydantic in the protocol tests).
  EXPECT_EQ(detail[0]["loc"], Json::parse(R"(["body","inputs",0,"extra"])"));
  EXPECT_EQ(detail[0]["type"], "extra_forbidden");
  EXPECT_EQ(detail[1]["loc"], Json::parse(R"(["body","inputs",0,"instruction","type"])"));
  EXPECT_EQ(detail[1]["type"], "literal_error");

  response = client.postJson("/v1/responses", "{not json");
  EXPECT_EQ(response.status, 422);
  EXPECT_THAT(response.body, HasSubstr(R"("type":"json_invalid")"));
  response = client.postJson("/v1/responses", "");
  EXPECT_EQ(response.status, 422);
  EXPECT_THAT(response.body, HasSubstr(R"("type":"missing")"));
  EXPECT_EQ(replay_->replayer().stats().invalid, 3u);

  EXPECT_EQ(client.get("/v1/responses").status, 405);
  EXPECT_EQ(client.get("/nothing").status, 404);
  EXPECT_EQ(client.get("/nothing").body, R"({"detail":"Not Found"})");
}

TEST_F(ReplayRoutesTest, StatusRouteCountsHitsAndMisses) {
  recordFromFake(
      [](net::HttpClient& client) { client.postJson("/v1/responses", requestBody("r1", {0})); });
  startReplay();
  auto client = replayClient();
  client.postJson("/v1/responses", requestBody("a", {1}));
  client.postJson("/v1/responses", requestBody("b", {1}, "unknown"));
  Json status = *protocol::parseJson(client.get("/_agentvcr/replay").body).value;
  EXPECT_EQ(status["recorded_steps"], 1);
  EXPECT_EQ(status["hits"], 1);
  EXPECT_EQ(status["misses"], 1);
  EXPECT_EQ(status["on_miss"], "error");
  EXPECT_EQ(status["requests"], 2) << "asking for the counters does not count";
}

TEST_F(ReplayRoutesTest, CoachingRoutesReplayKeyedOnContentWithoutIds) {
  recordFromFake([](net::HttpClient& client) {
    const protocol::Headers json = {{"Content-Type", "application/json"}};
    client.send("PUT", "/v1/coaching/sessions/run-1", kSessionConfig, json);
    client.postJson("/v1/coaching", coachingRequest("run-1", "c-1"));
    client.send("DELETE", "/v1/coaching/sessions/run-1");
  });
  startReplay();
  auto client = replayClient();
  const protocol::Headers json = {{"Content-Type", "application/json"}};
  // Other run and request ids: same content, same answers.
  EXPECT_EQ(client.send("PUT", "/v1/coaching/sessions/run-9", kSessionConfig, json).status, 204);
  auto coached = client.postJson("/v1/coaching", coachingRequest("run-9", "c-9"));
  EXPECT_EQ(coached.status, 200);
  EXPECT_EQ(coached.body, coachingAnswer("c-9"));
  EXPECT_EQ(client.send("DELETE", "/v1/coaching/sessions/run-9").status, 204);

  // Other content is a miss: a coaching error answer naming what differs...
  auto missed = client.postJson("/v1/coaching", coachingRequest("run-9", "c-10", "Another goal"));
  EXPECT_EQ(missed.status, 200);
  Json body = *protocol::parseJson(missed.body).value;
  EXPECT_EQ(body["status"], "error");
  EXPECT_EQ(body["request_id"], "c-10");
  EXPECT_THAT(body["reason"].get<std::string>(), HasSubstr("/stage/goal"));
  // ...and a session config never seen is a 503.
  std::string other_config = kSessionConfig;
  other_config.replace(other_config.find("\"m\""), 3, "\"m2\"");
  EXPECT_EQ(client.send("PUT", "/v1/coaching/sessions/run-9", other_config, json).status, 503);
  // Coaching requests are validated like the reference server does.
  EXPECT_EQ(client.postJson("/v1/coaching", R"({"run_id": "r"})").status, 422);

  // The stand-in info advertises coaching, since coaching was recorded.
  Json info = *protocol::parseJson(client.get("/v1/info").body).value;
  EXPECT_EQ(info["capabilities"]["coaching"], true);
}

TEST_F(ReplayRoutesTest, WithoutRecordedIdentityReplayStandsInAsAReadyAgent) {
  recordFromFake(
      [](net::HttpClient& client) { client.postJson("/v1/responses", requestBody("r1", {0})); });
  startReplay();
  auto client = replayClient();
  EXPECT_EQ(client.get("/health").body, R"({"status":"ready"})");
  auto info_body = client.get("/v1/info").body;
  auto info = protocol::magma::parseAgentInfo(*protocol::parseJson(info_body).value);
  ASSERT_TRUE(info.ok()) << info_body;
  EXPECT_TRUE(info.value->capabilities.at("inference"));
  EXPECT_FALSE(info.value->capabilities.contains("coaching"));
  // An agent without coaching has no coaching routes.
  EXPECT_EQ(client.postJson("/v1/coaching", coachingRequest("r", "c")).status, 404);
}

TEST_F(ReplayRoutesTest, SelectionServesOnlyTheChosenSessions) {
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r1", {0}, "first session"));
  });
  recordFromFake([](net::HttpClient& client) {
    client.postJson("/v1/responses", requestBody("r2", {0}, "second session"));
  });
  startReplay([](auto& config) { config.replay.selection.sessions = {2}; });
  auto client = replayClient();
  auto first = *protocol::parseJson(
                    client.postJson("/v1/responses", requestBody("a", {1}, "first session")).body)
                    .value;
  auto second = *protocol::parseJson(
                     client.postJson("/v1/responses", requestBody("b", {1}, "second session")).body)
                     .value;
  EXPECT_EQ(first[0]["status"], "error");
  EXPECT_EQ(second[0]["status"], "completed");
  replay_->stop();

  EXPECT_THROW(startReplay([](auto& config) { config.replay.selection.sessions = {7}; }),
               std::runtime_error);
  EXPECT_THROW(startReplay([](auto& config) { config.replay.selection.conversations = {99}; }),
               std::runtime_error);
}

}  // namespace
}  // namespace agentvcr::testing
