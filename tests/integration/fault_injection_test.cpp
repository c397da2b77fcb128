// Hostile or broken traffic on both sides of the proxy, one case per fault: each gets a clear
// answer, leaves a record of what happened, and the proxy keeps serving everyone else.
// (The agent side's resets, stalls and garbage are in relay_failure_test.cpp.)

#include <atomic>
#include <stdexcept>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "proxy_fixture.hpp"
#include "raw_client.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class FaultInjectionTest : public ProxyTest {
 protected:
  /// An agent that answers every request with an empty JSON array.
  static FakeReply emptyAnswer(const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); }

  /// Another caller is still served normally.
  void expectOthersServed() {
    EXPECT_EQ(client().postJson("/v1/responses", kValidRequest).status, 200);
  }

  /// The recorded exchange for `target`; fails the test when there is none.
  store::ExchangeRow recordedFor(const std::string& target) {
    for (auto& row : recordedExchanges()) {
      if (row.target == target) {
        return row;
      }
    }
    ADD_FAILURE() << "no exchange recorded for " << target;
    return {};
  }

  /// POSTs `body` to `target`: the agent must get it byte for byte, the caller the agent's
  /// answer, and the archive the body verbatim, flagged as not JSON the contract accepts.
  void expectRelayedVerbatimAndFlagged(const FakeUpstream& agent, const std::string& target,
                                       const std::string& body) {
    EXPECT_THAT(postRaw(target, body), StartsWith("HTTP/1.1 200"));
    ASSERT_FALSE(agent.requests().empty());
    EXPECT_EQ(agent.requests().back().body, body);
    auto recorded = recordedFor(target);
    EXPECT_EQ(recorded.request_body, body);
    EXPECT_EQ(recorded.request_valid, false);
    EXPECT_THAT(recorded.findings.value_or(""), HasSubstr("json_invalid"));
  }

  /// POSTs `body` byte for byte (no client library in between) and returns the raw answer.
  std::string postRaw(const std::string& target, const std::string& body) {
    RawClient raw(proxyPort());
    raw.send("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
             "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
             body);
    return raw.readAll();
  }
};

TEST_F(FaultInjectionTest, OversizedResponseReachesTheCallerWholeAndIsRecordedUpToTheCap) {
  const std::vector<std::string> chunks(64, std::string(128 * 1024, 'z'));  // 8 MiB
  FakeUpstream agent([&](const protocol::HttpRequest& request) {
    return request.target == "/huge" ? FakeReply::chunked(200, chunks, {}, "text/plain")
                                     : FakeReply::http(200, "[]");
  });
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) {
    config.relay.max_recorded_response_body = 1 << 20;
  });
  auto response = client().get("/huge");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body.size(), 64u * 128 * 1024);
  expectOthersServed();
  auto huge = recordedFor("/huge");
  EXPECT_EQ(huge.response_body.size(), 1u << 20);
  EXPECT_THAT(huge.error.value_or(""), StartsWith("[proxy.record.truncated]"));
  EXPECT_EQ(huge.outcome, "complete");
}

TEST_F(FaultInjectionTest, SlowlorisHeaderTrickleGets408WhileOthersAreServed) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) {
    config.relay.client_header_timeout = 400ms;
  });
  RawClient slow(proxyPort());
  const std::string header = "GET /trickle HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  std::atomic<bool> answered{false};
  std::thread trickler([&] {
    try {
      for (std::size_t i = 0; i < header.size() && !answered; ++i) {
        slow.send(header.substr(i, 1));
        // The fault itself: a byte now and then, each well within the header timeout, the
        // whole header never.
        std::this_thread::sleep_for(50ms);
      }
    } catch (const std::runtime_error&) {
      // The proxy closed the connection after its 408: the trickle ends there.
    }
  });
  expectOthersServed();
  const std::string answer = slow.readAll(3000ms);
  answered = true;
  trickler.join();
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 408"));
  EXPECT_THAT(answer, HasSubstr("proxy.request.header_timeout"));
  EXPECT_TRUE(agent.requests().size() == 1u);  // only the other caller's request
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  const auto& trickled = exchanges[0].status == 408 ? exchanges[0] : exchanges[1];
  EXPECT_EQ(trickled.status, 408);
  EXPECT_EQ(trickled.outcome, "request_rejected");
}

TEST_F(FaultInjectionTest, IdleKeepAliveConnectionIsNotASlowloris) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) {
    config.relay.client_header_timeout = 200ms;
  });
  auto caller = client();
  EXPECT_EQ(caller.get("/first").status, 200);
  // A second caller, opened after the first went idle, starts a header and stops: its 408 says
  // the header timeout has run out, so by then the first has been idle longer than that.
  RawClient stalled(proxyPort());
  stalled.send("GET /stalled HTTP/1.1\r\nHost: x\r\n");
  EXPECT_THAT(stalled.readAll(), StartsWith("HTTP/1.1 408"));
  EXPECT_EQ(caller.get("/second").status, 200);
  EXPECT_EQ(agent.connections(), 1);
}

TEST_F(FaultInjectionTest, HundredMegabyteBodyGets413BeforeItIsRead) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url());  // default limit: 64 MiB
  RawClient raw(proxyPort());
  raw.send(
      "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 104857600\r\n\r\n" +
      std::string(64 * 1024, ' '));
  const std::string answer = raw.readAll();
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(answer, HasSubstr("request body larger than 67108864 bytes (64 MiB), the most "
                                "accepted; agentvcr record --max-body BYTES raises it"));
  EXPECT_TRUE(agent.requests().empty());
  expectOthersServed();
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_EQ(exchanges[0].status, 413);
  EXPECT_EQ(exchanges[0].outcome, "request_rejected");
}

TEST_F(FaultInjectionTest, ChunkedBodyOverTheLimitGets413WithoutBeingBuffered) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url(),
             [](proxy::RecordingProxyConfig& config) { config.relay.max_request_body = 1 << 20; });
  RawClient raw(proxyPort());
  raw.send("POST /v1/responses HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = "10000\r\n" + std::string(0x10000, 'a') + "\r\n";
  for (int i = 0; i < 20; ++i) {  // 1.25 MiB, past the limit
    raw.send(chunk);
  }
  const std::string answer = raw.readAll();
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(answer, HasSubstr("larger than 1048576 bytes (1 MiB), the most accepted; "
                                "agentvcr record --max-body BYTES raises it"));
  EXPECT_TRUE(agent.requests().empty());
  expectOthersServed();
}

TEST_F(FaultInjectionTest, InvalidUtf8IsRelayedByteForByteAndFlagged) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url());
  const std::string body =
      "{\"request_id\": \"r\xff\xfe\", \"inputs\": [{\"id\": 0, \"instruction\": "
      "{\"type\": \"user\", \"content\": \"caf\xc3\"}}]}";
  expectRelayedVerbatimAndFlagged(agent, "/v1/responses", body);
  expectOthersServed();
}

TEST_F(FaultInjectionTest, HundredThousandNestingLevelsAreRelayedAndFlaggedWithoutRecursion) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url());
  const std::string body = std::string(100'000, '[') + std::string(100'000, ']');
  expectRelayedVerbatimAndFlagged(agent, "/v1/responses", body);
  EXPECT_EQ(archive().counts().steps, 0);
  expectOthersServed();
}

TEST_F(FaultInjectionTest, NanAndInfinityLiteralsAreRelayedAndFlagged) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url());
  for (const char* literal : {"NaN", "Infinity", "-Infinity"}) {
    SCOPED_TRACE(literal);
    const std::string body = std::string(R"({"request_id": "r", "x": )") + literal + "}";
    expectRelayedVerbatimAndFlagged(agent, std::string("/v1/responses?") + literal, body);
  }
  expectOthersServed();
}

TEST_F(FaultInjectionTest, DuplicateKeysKeepTheLastValueAsTheAgentsPythonDoes) {
  FakeUpstream agent(emptyAnswer);
  startProxy(agent.url());
  const std::string body =
      R"({"request_id": "first", "request_id": "last", "inputs": [{"id": 0, "instruction": )"
      R"({"type": "user", "content": "one"}, "instruction": {"type": "user", "content": "two"}}]})";
  EXPECT_THAT(postRaw("/v1/responses", body), StartsWith("HTTP/1.1 200"));
  auto reader = archive();
  auto recorded = recordedFor("/v1/responses");
  EXPECT_EQ(recorded.request_body, body);
  EXPECT_EQ(recorded.request_valid, true);
  auto steps = reader.stepsOfExchange(recorded.id);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].instruction_content, "two");
  expectOthersServed();
}

}  // namespace
}  // namespace agentvcr::testing
