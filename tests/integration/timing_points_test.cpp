// The timing points the relay records for every exchange (docs/schema.md, "Timing points"):
// always in order, and each share of the time where it was spent.

#include "timing_points.hpp"

#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/store/timing.hpp"
#include "proxy_fixture.hpp"
#include "raw_client.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::StartsWith;

/// Each test pauses one side for 150 ms. The proxy sees a pause a little shorter than the side
/// that made it, so a share holding it is at least 100 ms, and larger than the shares without
/// it (compared with each other, not with a fixed bound: a loaded machine slows them all).
constexpr std::int64_t kPauseNs = std::chrono::nanoseconds(100ms).count();

class TimingPointsTest : public ProxyTest {};

TEST_F(TimingPointsTest, AQuickExchangeHasAllFivePointsInOrder) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); });
  startProxy(agent.url());
  EXPECT_EQ(client().postJson("/v1/responses", "{}").status, 200);
  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  expectTimingPointsInOrder(exchanges[0]);
}

TEST_F(TimingPointsTest, ASlowCallerBodyIsTheCallersShare) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "ok"); });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\n");
  std::this_thread::sleep_for(150ms);
  raw.send("0123456789");
  EXPECT_THAT(raw.readAll(), StartsWith("HTTP/1.1 200"));

  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  expectTimingPointsInOrder(exchanges[0]);
  const store::TimingSplit split = store::timingSplit(exchanges[0]);
  EXPECT_GE(*split.caller_to_proxy, kPauseNs);
  EXPECT_GT(*split.caller_to_proxy, *split.agent);
}

TEST_F(TimingPointsTest, AThinkingAgentIsTheAgentsShare) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    std::this_thread::sleep_for(150ms);
    return FakeReply::http(200, "[]");
  });
  startProxy(agent.url());
  EXPECT_EQ(client().postJson("/v1/responses", "{}").status, 200);

  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  expectTimingPointsInOrder(exchanges[0]);
  const store::TimingSplit split = store::timingSplit(exchanges[0]);
  EXPECT_GE(*split.agent, kPauseNs);
  EXPECT_GT(*split.agent, *split.caller_to_proxy);
  EXPECT_GT(*split.agent, *split.proxy_to_agent);
}

TEST_F(TimingPointsTest, ChunkedBodiesBothWaysKeepTheOrderAndTheAnswerIsTheAgentsBody) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    return FakeReply::chunked(200, {"[{\"a\":", "1}", "]"}, 80ms);
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send(
      "POST /chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      "5\r\nhello\r\n");
  std::this_thread::sleep_for(150ms);
  raw.send("6\r\n world\r\n0\r\n\r\n");
  EXPECT_THAT(raw.readAll(), StartsWith("HTTP/1.1 200"));

  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].request_body, "hello world");
  expectTimingPointsInOrder(exchanges[0]);
  const store::TimingSplit split = store::timingSplit(exchanges[0]);
  EXPECT_GE(*split.caller_to_proxy, kPauseNs);
  EXPECT_GE(*split.agent_body, kPauseNs);  // two pauses of 80 ms between the answer's chunks
  EXPECT_GT(*split.agent_body, *split.relay);
}

TEST_F(TimingPointsTest, ManyConcurrentExchangesAreEachInOrder) {
  FakeUpstream agent([](const protocol::HttpRequest& request) {
    std::this_thread::sleep_for(5ms);
    return FakeReply::http(200, request.body);
  });
  startProxy(agent.url());
  std::vector<std::thread> callers;
  for (int c = 0; c < 8; ++c) {
    callers.emplace_back([this, c] {
      auto http = client();
      for (int i = 0; i < 10; ++i) {
        http.postJson("/v1/responses", "{\"caller\":" + std::to_string(c) + "}");
      }
    });
  }
  for (auto& caller : callers) {
    caller.join();
  }
  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 80u);
  for (const auto& exchange : exchanges) {
    SCOPED_TRACE(exchange.id);
    expectTimingPointsInOrder(exchange);
  }
}

TEST_F(TimingPointsTest, ShowPutsAnAgentPausingBetweenHeadersAndBodyInItsBodyNotTheRelay) {
  // The agent sends its headers, then its body 150 ms later.
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply;
    reply.segments = {{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       "Content-Length: 2\r\n\r\n",
                       150ms},
                      {"[]", 0ms}};
    return reply;
  });
  startProxy(agent.url());
  EXPECT_EQ(client().postJson("/v1/responses", "{}").status, 200);
  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);

  cli::ShowCommand show;
  show.db_path = db_path_;
  show.exchange = exchanges[0].id;
  std::ostringstream out;
  ASSERT_EQ(cli::runShow(show, out), cli::kExitOk);
  const std::regex line(
      "  timing: caller request ([0-9.]+) ms, agentvcr forwarding ([0-9.]+) ms, agent headers "
      "([0-9.]+) ms, agent body complete ([0-9.]+) ms, relay ([0-9.]+) ms\n");
  std::smatch parts;
  const std::string text = out.str();
  ASSERT_TRUE(std::regex_search(text, parts, line)) << text;
  const double pause_ms = static_cast<double>(kPauseNs) / 1e6;
  EXPECT_GE(std::stod(parts[4]), pause_ms) << text;  // the pause is the agent's
  // agentvcr's own shares hold no pause: smaller than the agent's body, whatever the load.
  EXPECT_LT(std::stod(parts[2]), pause_ms) << text;
  EXPECT_LT(std::stod(parts[5]), std::stod(parts[4])) << text;
  EXPECT_LT(std::stod(parts[5]), pause_ms) << text;
}

}  // namespace
}  // namespace agentvcr::testing
