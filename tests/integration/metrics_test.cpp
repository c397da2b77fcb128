// `--metrics-listen` over real loopback sockets: the record relay, replay and the A2A mock
// counting into their metrics, the recorder's figures read at scrape time, and the listener
// serving GET /metrics on a port of its own.

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/metrics_serving.hpp"
#include "agentvcr/metrics/exposition.hpp"
#include "agentvcr/services/a2a_mock_service.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "echo_agent.hpp"
#include "prometheus_text.hpp"
#include "proxy_fixture.hpp"
#include "raw_client.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr auto kThinkTime = 30ms;

/// The echo agent, thinking kThinkTime before each MAGMA answer.
FakeReply slowEcho(const protocol::HttpRequest& request) {
  FakeReply reply = echoAgent(request);
  if (request.target == "/v1/responses") {
    reply.delay = kThinkTime;
  }
  return reply;
}

protocol::Headers jsonHeaders() {
  return {{"Content-Type", "application/json"}};
}

/// What a scrape shows, with the listener's answer to it.
struct Scrape {
  net::ClientResponse response;
  std::map<std::string, double> samples;

  double operator[](const std::string& series) const {
    const auto found = samples.find(series);
    return found == samples.end() ? -1 : found->second;
  }
};

Scrape scrape(std::uint16_t port) {
  net::HttpClient http("127.0.0.1", port);
  Scrape result{http.get("/metrics"), {}};
  result.samples = prometheusSamples(result.response.body);
  return result;
}

class RecordMetricsTest : public ProxyTest {
 protected:
  /// The proxy in front of the slow echo agent, counting as `agentvcr record
  /// --metrics-listen 127.0.0.1:0` does; `chaos_header` as --chaos-header.
  void startCounting(bool chaos_header = false) {
    startProxy(agent_.url(), [&](proxy::RecordingProxyConfig& config) {
      config.relay.metrics = serving_.traffic();
      config.recorder.on_a2a_call = [traffic = serving_.traffic()](const protocol::a2a::Call& c) {
        traffic->observeA2aCall(c.method, c.error_code);
      };
      if (chaos_header) {
        config.relay.chaos = std::make_shared<protocol::Chaos>(std::nullopt, true);
      }
    });
    serving_.addRecorder(proxy_->recorder());
    std::ostringstream said;
    endpoint_ = serving_.serve(said, "record");
    EXPECT_THAT(said.str(), HasSubstr("/metrics"));
  }

  std::uint16_t metricsPort() const { return endpoint_->endpoint().port; }

  void TearDown() override {
    endpoint_.reset();  // stops serving before the recorder it reads goes
    ProxyTest::TearDown();
  }

  FakeUpstream agent_{slowEcho};
  cli::MetricsServing serving_{"127.0.0.1:0"};
  std::unique_ptr<proxy::MetricsEndpoint> endpoint_;
};

TEST_F(RecordMetricsTest, AKnownRunGivesKnownCounts) {
  startCounting();
  auto http = client();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(
        http.send("POST", "/v1/responses", magmaRequest("q" + std::to_string(i)), jsonHeaders())
            .status,
        200);
  }
  EXPECT_EQ(http.get("/health").status, 200);
  EXPECT_EQ(http.get("/health").status, 200);
  EXPECT_EQ(http.send("POST", "/a2a", kA2aRequest, jsonHeaders()).status, 200);
  ASSERT_TRUE(proxy_->settle());
  proxy_->recorder().flush();

  const Scrape after = scrape(metricsPort());
  EXPECT_EQ(after.response.status, 200);
  EXPECT_EQ(after.response.header("Content-Type"), metrics::kTextContentType);
  EXPECT_EQ(after[R"(agentvcr_exchanges_total{route="responses",status="200"})"], 4);
  EXPECT_EQ(after[R"(agentvcr_exchanges_total{route="health",status="200"})"], 2);
  EXPECT_EQ(after[R"(agentvcr_exchanges_total{route="none",status="200"})"], 1);
  EXPECT_EQ(after[R"(agentvcr_agent_think_seconds_count{route="responses"})"], 4);
  EXPECT_GE(after[R"(agentvcr_agent_think_seconds_sum{route="responses"})"],
            4 * std::chrono::duration<double>(kThinkTime).count());
  EXPECT_EQ(after[R"(agentvcr_agent_think_seconds_bucket{route="responses",le="0.01"})"], 0);
  EXPECT_EQ(after[R"(agentvcr_added_latency_seconds_count{route="responses"})"], 4);
  EXPECT_EQ(after[R"(agentvcr_request_bytes_total{route="responses"})"],
            static_cast<double>(4 * magmaRequest("q0").size()));
  EXPECT_EQ(after[R"(agentvcr_a2a_calls_total{method="message/send",code="none"})"], 1);
  EXPECT_EQ(after["agentvcr_captured_exchanges_total"], 7);
  EXPECT_EQ(after["agentvcr_indexed_exchanges_total"], 7);
  EXPECT_EQ(after["agentvcr_recorder_queue_depth"], 0);
  EXPECT_EQ(after["agentvcr_capture_lag_exchanges"], 0);
  EXPECT_EQ(after["agentvcr_index_lag_exchanges"], 0);
  EXPECT_EQ(after["agentvcr_index_lag_seconds"], 0);
  EXPECT_EQ(after["agentvcr_recorder_backpressure_waits_total"], 0);
  EXPECT_GT(after["process_resident_memory_bytes"], 0);
}

TEST_F(RecordMetricsTest, InjectedFaultsAreCountedByKind) {
  startCounting(true);
  auto http = client();
  protocol::Headers forced = jsonHeaders();
  forced.push_back({"X-Agentvcr-Chaos", "error"});
  EXPECT_EQ(http.send("POST", "/v1/responses", magmaRequest("a"), forced).status, 500);
  forced.back().value = "rate_limit";
  EXPECT_EQ(http.send("POST", "/v1/responses", magmaRequest("b"), forced).status, 429);
  EXPECT_EQ(http.send("POST", "/v1/responses", magmaRequest("c"), forced).status, 429);
  ASSERT_TRUE(proxy_->settle());

  const Scrape after = scrape(metricsPort());
  EXPECT_EQ(after[R"(agentvcr_chaos_faults_total{kind="error"})"], 1);
  EXPECT_EQ(after[R"(agentvcr_chaos_faults_total{kind="rate_limit"})"], 2);
  EXPECT_EQ(after[R"(agentvcr_exchanges_total{route="responses",status="429"})"], 2);
  // The agent never saw them: no think time.
  EXPECT_EQ(after[R"(agentvcr_agent_think_seconds_count{route="responses"})"], -1);
}

TEST_F(RecordMetricsTest, TheListenerServesMetricsOnlyAndTheRelayedPortGrowsNoPath) {
  startCounting();
  net::HttpClient metrics_http("127.0.0.1", metricsPort());
  EXPECT_EQ(metrics_http.get("/").status, 404);
  EXPECT_EQ(metrics_http.get("/metrics/x").status, 404);
  const auto post = metrics_http.send("POST", "/metrics", "{}", jsonHeaders());
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD");
  EXPECT_EQ(metrics_http.get("/metrics?name[]=x").status, 200);

  // On the relayed port, /metrics is the agent's business.
  EXPECT_EQ(client().get("/metrics").status, 200);
  ASSERT_EQ(agent_.requests().size(), 1u);
  EXPECT_EQ(agent_.requests().front().target, "/metrics");
}

TEST_F(RecordMetricsTest, AHeadOfMetricsIsAnsweredWithTheHeaderAlone) {
  startCounting();
  RawClient raw(metricsPort());
  raw.send("HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string answer = raw.readAll();
  EXPECT_THAT(answer, ::testing::StartsWith("HTTP/1.1 200 "));
  EXPECT_THAT(answer, HasSubstr("\r\nContent-Length: "));
  EXPECT_THAT(answer, ::testing::EndsWith("\r\n\r\n")) << "a HEAD's answer has no body";
}

TEST_F(RecordMetricsTest, AScrapeDuringTrafficNeverSeesACountGoBack) {
  startCounting();
  std::atomic<bool> done{false};
  std::thread caller([&] {
    auto http = client();
    for (int i = 0; i < 30; ++i) {
      http.get("/health");
    }
    done = true;
  });
  double last = 0;
  while (!done) {
    // Absent (-1) until the first exchange is counted.
    const double now = std::max(
        0.0, scrape(metricsPort())[R"(agentvcr_exchanges_total{route="health",status="200"})"]);
    EXPECT_GE(now, last);
    last = std::max(last, now);
  }
  caller.join();
  ASSERT_TRUE(proxy_->settle());
  EXPECT_EQ(scrape(metricsPort())[R"(agentvcr_exchanges_total{route="health",status="200"})"], 30);
}

TEST_F(ProxyTest, ReplayCountsHitsMissesAndItsAnswers) {
  FakeUpstream agent(echoAgent);
  startProxy(agent.url());
  {
    auto http = client();
    EXPECT_EQ(http.send("POST", "/v1/responses", magmaRequest("known"), jsonHeaders()).status, 200);
  }
  proxy_->stop();

  cli::MetricsServing serving("127.0.0.1:0");
  services::ReplayServiceConfig config;
  config.db_path = db_path_;
  config.server.drain_timeout = 2000ms;
  config.store_misses = false;
  config.log_miss = [](const std::string&) {};
  config.replay.on_miss = replay::MissPolicy::Http;
  config.metrics = serving.traffic();
  services::ReplayService replay(config);
  replay.start();
  std::ostringstream said;
  const auto endpoint = serving.serve(said, "replay");

  net::HttpClient http("127.0.0.1", replay.endpoint().port);
  EXPECT_EQ(http.send("POST", "/v1/responses", magmaRequest("known"), jsonHeaders()).status, 200);
  EXPECT_EQ(http.send("POST", "/v1/responses", magmaRequest("unknown"), jsonHeaders()).status, 503);

  const Scrape after = scrape(endpoint->endpoint().port);
  EXPECT_EQ(after[R"(agentvcr_replay_inputs_total{route="responses",result="hit"})"], 1);
  EXPECT_EQ(after[R"(agentvcr_replay_inputs_total{route="responses",result="miss"})"], 1);
  EXPECT_EQ(after[R"(agentvcr_exchanges_total{route="responses",status="200"})"], 1);
  EXPECT_EQ(after[R"(agentvcr_exchanges_total{route="responses",status="503"})"], 1);
  replay.stop();
}

TEST(A2aMockMetrics, CountsCallsByMethodAndErrorCode) {
  sim::a2a::MockConfig config;
  config.profile = *sim::a2a::profileFromName("magisterium");
  auto load = sim::a2a::loadFixturesDir(std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/magisterium");
  ASSERT_TRUE(load.fixtures) << load.error;
  config.fixtures = std::move(*load.fixtures);
  config.tokens.add("good", sim::a2a::Plan::Pro);
  auto traffic = std::make_shared<metrics::TrafficMetrics>();
  proxy::ServerOptions server;
  server.drain_timeout = 2000ms;
  services::A2aMockService mock(std::move(config), std::make_shared<sim::a2a::SystemClock>(),
                                server, traffic);
  mock.start();
  net::HttpClient http("127.0.0.1", mock.endpoint().port);
  protocol::Headers good = jsonHeaders();
  good.push_back({"Authorization", "Bearer good"});
  const std::string ask =
      R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message",)"
      R"("role":"user","messageId":"m-1","parts":[{"kind":"text","text":"What is grace?"}]}}})";
  EXPECT_EQ(http.send("POST", "/api/v1/a2a", ask, good).status, 200);
  EXPECT_EQ(http.send("POST", "/api/v1/a2a", ask, jsonHeaders()).status, 401);
  http.send("POST", "/api/v1/a2a",
            R"({"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"no-such-task"}})",
            good);
  mock.stop();

  metrics::Exposition exposition("test");
  exposition.addTraffic(traffic);
  const auto samples = prometheusSamples(exposition.scrape());
  EXPECT_EQ(samples.at(R"(agentvcr_a2a_calls_total{method="message/send",code="none"})"), 1);
  EXPECT_EQ(samples.at(R"(agentvcr_a2a_calls_total{method="message/send",code="-32004"})"), 1);
  EXPECT_EQ(samples.at(R"(agentvcr_a2a_calls_total{method="tasks/get",code="-32001"})"), 1);
}

}  // namespace
}  // namespace agentvcr::testing
