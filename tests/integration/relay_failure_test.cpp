// What the proxy does when the agent or the client misbehaves: a clear answer, a record of
// what happened, and service as usual for everyone else.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "proxy_fixture.hpp"
#include "raw_client.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class RelayFailureTest : public ProxyTest {};

TEST_F(RelayFailureTest, AgentDownGives502AndIsRecorded) {
  startProxy("http://127.0.0.1:" + std::to_string(deadPort()));
  auto response = client().postJson("/v1/responses", kValidRequest);
  EXPECT_EQ(response.status, 502);
  EXPECT_THAT(response.body, HasSubstr(R"("agentvcr_error":"proxy.upstream.refused")"));
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].outcome, "upstream_error");
  EXPECT_FALSE(exchanges[0].response_from_upstream);
  EXPECT_THAT(exchanges[0].error.value_or(""), StartsWith("[proxy.upstream.refused]"));
  EXPECT_EQ(exchanges[0].request_body, kValidRequest);
  // The request was read whole but never reached an agent.
  EXPECT_TRUE(exchanges[0].request_ended_ns.has_value());
  EXPECT_EQ(exchanges[0].upstream_sent_ns, std::nullopt);
  EXPECT_EQ(exchanges[0].upstream_first_byte_ns, std::nullopt);
}

TEST_F(RelayFailureTest, AgentResetMidBodyGives502BeforeAnyByteReachedTheCaller) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply{{{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n[{\"request", 20ms}}};
    reply.ending = FakeReply::Ending::Reset;
    return reply;
  });
  startProxy(agent.url());
  auto response = client().postJson("/v1/responses", kValidRequest);
  EXPECT_EQ(response.status, 502);
  EXPECT_THAT(response.body, HasSubstr("proxy.upstream.bad_response"));
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].outcome, "upstream_error");
  // The answer began and never ended: it has a first byte and no last one.
  EXPECT_TRUE(exchanges[0].upstream_first_byte_ns.has_value());
  EXPECT_EQ(exchanges[0].upstream_last_byte_ns, std::nullopt);
}

TEST_F(RelayFailureTest, AgentResetMidStreamCutsTheCallerAndRecordsWhatCame) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply = FakeReply::chunked(200, {"first part;", "second part;"}, 20ms);
    reply.segments.pop_back();  // no terminating chunk: the agent dies mid-stream
    reply.ending = FakeReply::Ending::Reset;
    return reply;
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
  auto received = raw.readAll();
  EXPECT_THAT(received, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(received, HasSubstr("second part;"));
  EXPECT_THAT(received, ::testing::Not(HasSubstr("\r\n0\r\n\r\n")));
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].outcome, "upstream_error");
  EXPECT_EQ(exchanges[0].response_body, "first part;second part;");
  EXPECT_THAT(exchanges[0].error.value_or(""), StartsWith("[proxy.upstream.broken_body]"));
  EXPECT_TRUE(exchanges[0].upstream_first_byte_ns.has_value());
  EXPECT_EQ(exchanges[0].upstream_last_byte_ns, std::nullopt);
}

TEST_F(RelayFailureTest, SlowAgentGives504AfterTheConfiguredTimeout) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply = FakeReply::http(200, "[]");
    reply.delay = 3s;
    return reply;
  });
  startProxy(agent.url(),
             [](proxy::RecordingProxyConfig& config) { config.relay.upstream_timeout = 300ms; });
  auto started = std::chrono::steady_clock::now();
  auto response = client().postJson("/v1/responses", kValidRequest);
  EXPECT_EQ(response.status, 504);
  EXPECT_THAT(response.body, HasSubstr("proxy.upstream.timeout"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2500ms);
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].outcome, "upstream_timeout");
}

TEST_F(RelayFailureTest, AgentStallingMidStreamTimesOut) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply = FakeReply::chunked(200, {"data: one\n\n"}, 0ms, "text/event-stream");
    reply.segments[reply.segments.size() - 2].pause = 3s;  // stalls before the last chunk
    return reply;
  });
  startProxy(agent.url(),
             [](proxy::RecordingProxyConfig& config) { config.relay.upstream_timeout = 300ms; });
  RawClient raw(proxyPort());
  raw.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  auto received = raw.readAll(2500ms);
  EXPECT_THAT(received, HasSubstr("data: one"));
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].outcome, "upstream_timeout");
  EXPECT_EQ(exchanges[0].response_body, "data: one\n\n");
}

TEST_F(RelayFailureTest, GarbageFromTheAgentGives502) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply{{{"SSH-2.0-OpenSSH_9.2\r\n\r\n", {}}}};
    reply.ending = FakeReply::Ending::Close;
    return reply;
  });
  startProxy(agent.url());
  auto response = client().get("/health");
  EXPECT_EQ(response.status, 502);
  EXPECT_THAT(response.body, HasSubstr("proxy.upstream.bad_response"));
  EXPECT_EQ(recordedExchanges().at(0).outcome, "upstream_error");
}

TEST_F(RelayFailureTest, MalformedJsonFromTheAgentIsRelayedAndFlagged) {
  const std::string broken = R"([{"request_id": "r", "source_id": 0, NaN)";
  FakeUpstream agent([&](const protocol::HttpRequest&) { return FakeReply::http(200, broken); });
  startProxy(agent.url());
  auto response = client().postJson("/v1/responses", kValidRequest);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, broken);
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].response_body, broken);
  EXPECT_EQ(exchanges[0].request_valid, true);
  EXPECT_EQ(exchanges[0].response_valid, false);
  EXPECT_EQ(archive().counts().candidates, 0);
  EXPECT_EQ(archive().counts().steps, 1);
}

TEST_F(RelayFailureTest, MalformedJsonFromTheCallerIsRelayedAndFlagged) {
  const std::string agent_answer =
      R"({"detail":[{"type":"json_invalid","loc":["body",1],"msg":"JSON decode error","input":{}}]})";
  FakeUpstream agent(
      [&](const protocol::HttpRequest&) { return FakeReply::http(422, agent_answer); });
  startProxy(agent.url());
  auto response = client().postJson("/v1/responses", "{not json");
  EXPECT_EQ(response.status, 422);
  EXPECT_EQ(response.body, agent_answer);
  ASSERT_EQ(agent.requests().size(), 1u);
  EXPECT_EQ(agent.requests()[0].body, "{not json");
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].request_valid, false);
  EXPECT_EQ(archive().counts().steps, 0);
}

TEST_F(RelayFailureTest, ClientVanishingMidRequestIsRecordedAndOthersAreServed) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); });
  startProxy(agent.url());
  {
    RawClient raw(proxyPort());
    raw.send("POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"requ");
    raw.close();
  }
  EXPECT_EQ(client().postJson("/v1/responses", kValidRequest).status, 200);
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  const auto& vanished = exchanges[0].outcome == "client_aborted" ? exchanges[0] : exchanges[1];
  EXPECT_EQ(vanished.outcome, "client_aborted");
  EXPECT_EQ(vanished.request_body, "{\"requ");
  EXPECT_EQ(agent.requests().size(), 1u);  // the half request never reached the agent
}

TEST_F(RelayFailureTest, ClientVanishingWhileTheAgentThinksLeavesTheProxyServing) {
  FakeUpstream agent([](const protocol::HttpRequest& request) {
    FakeReply reply = FakeReply::http(200, std::string(256 * 1024, 'x'));
    if (request.target == "/slow") {
      reply.delay = 300ms;
    }
    return reply;
  });
  startProxy(agent.url());
  {
    RawClient raw(proxyPort());
    raw.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  // Once the agent has the request the proxy counts the exchange as in flight, and settling
  // waits for the agent's late answer to meet the vanished caller.
  ASSERT_TRUE(waitUntil([&] { return agent.requests().size() == 1; }));
  ASSERT_TRUE(proxy_->settle());
  EXPECT_EQ(client().get("/fast").status, 200);
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_EQ(exchanges[0].target, "/slow");
}

TEST_F(RelayFailureTest, OversizedRequestBodyGets413AndNeverReachesTheAgent) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); });
  startProxy(agent.url(),
             [](proxy::RecordingProxyConfig& config) { config.relay.max_request_body = 1024; });
  auto response = client().postJson("/v1/responses", std::string(4096, ' '));
  EXPECT_EQ(response.status, 413);
  EXPECT_THAT(response.body, HasSubstr("proxy.request.body_too_large"));
  // The limit, and how to raise it: the caller can tell a bug from a setting.
  EXPECT_THAT(response.body, HasSubstr("request body larger than 1024 bytes, the most accepted; "
                                       "agentvcr record --max-body BYTES raises it"));
  EXPECT_TRUE(agent.requests().empty());
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].outcome, "request_rejected");
  EXPECT_EQ(exchanges[0].status, 413);
}

TEST_F(RelayFailureTest, OversizedHeaderGets431) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); });
  startProxy(agent.url(),
             [](proxy::RecordingProxyConfig& config) { config.relay.max_header_bytes = 1024; });
  RawClient raw(proxyPort());
  raw.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
  EXPECT_THAT(raw.readAll(), StartsWith("HTTP/1.1 431"));
  EXPECT_TRUE(agent.requests().empty());
  EXPECT_EQ(recordedExchanges().at(0).outcome, "request_rejected");
}

TEST_F(RelayFailureTest, MalformedRequestLineGets400) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send("THIS IS NOT HTTP\r\n\r\n");
  EXPECT_THAT(raw.readAll(), StartsWith("HTTP/1.1 400"));
  EXPECT_TRUE(agent.requests().empty());
}

}  // namespace
}  // namespace agentvcr::testing
