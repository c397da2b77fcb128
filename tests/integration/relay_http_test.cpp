// Transparency: any HTTP passes through unchanged and is recorded; connections are reused;
// many slow exchanges are in flight at once on two threads.

#include <future>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "proxy_fixture.hpp"
#include "raw_client.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

/// The header as the agent received it, in any case; "<absent>" when it did not arrive.
std::string headerOf(const protocol::HttpRequest& request, std::string_view name) {
  const protocol::HeaderField* field = protocol::findHeader(request.headers, name);
  return field ? field->value : "<absent>";
}

class RelayHttpTest : public ProxyTest {};

TEST_F(RelayHttpTest, PlainHttpPassesThroughByteForByte) {
  const std::string body = "\x01\x02 not json \xff";
  FakeUpstream agent([&](const protocol::HttpRequest&) {
    return FakeReply::http(201, body, "application/octet-stream", "X-Custom: Value\r\n");
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send("GET /any/path?x=1&y=%20 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto received = raw.readAll();
  EXPECT_THAT(received, StartsWith("HTTP/1.1 201 Fake\r\n"));
  EXPECT_THAT(received, HasSubstr("X-Custom: Value\r\n"));
  EXPECT_EQ(received.substr(received.find("\r\n\r\n") + 4), body);
  ASSERT_EQ(agent.requests().size(), 1u);
  EXPECT_EQ(agent.requests()[0].target, "/any/path?x=1&y=%20");

  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].protocol, "http");
  EXPECT_EQ(exchanges[0].target, "/any/path?x=1&y=%20");
  EXPECT_EQ(exchanges[0].status, 201);
  EXPECT_EQ(exchanges[0].response_body, body);
  EXPECT_FALSE(exchanges[0].request_valid.has_value());
}

TEST_F(RelayHttpTest, AgentErrorStatusesReachTheCallerUnchanged) {
  FakeUpstream agent([](const protocol::HttpRequest& request) {
    if (request.target == "/health") {
      return FakeReply::http(503, R"({"detail":"Models are not ready"})");
    }
    return FakeReply::http(422, R"({"detail":"memory.history must be a list"})");
  });
  startProxy(agent.url());
  auto health = client().get("/health");
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.body, R"({"detail":"Models are not ready"})");
  auto responses = client().postJson("/v1/responses", "{}");
  EXPECT_EQ(responses.status, 422);
  EXPECT_EQ(responses.body, R"({"detail":"memory.history must be a list"})");
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_EQ(exchanges[0].status, 503);
  EXPECT_EQ(exchanges[0].outcome, "complete");
  EXPECT_TRUE(exchanges[0].response_from_upstream);
}

TEST_F(RelayHttpTest, ChunkedResponseIsRelayedAndRecordedWhole) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    return FakeReply::chunked(200, {"[{\"a\":", "1}", "]"}, 10ms);
  });
  startProxy(agent.url());
  auto response = client().get("/chunks");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "[{\"a\":1}]");
  EXPECT_EQ(response.header("Transfer-Encoding"), "chunked");
  EXPECT_EQ(recordedExchanges().at(0).response_body, "[{\"a\":1}]");
}

TEST_F(RelayHttpTest, ChunkedRequestBodyIsForwardedWithItsLength) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "ok"); });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send(
      "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  EXPECT_THAT(raw.readAll(), StartsWith("HTTP/1.1 200"));
  ASSERT_EQ(agent.requests().size(), 1u);
  EXPECT_EQ(agent.requests()[0].body, "hello world");
  EXPECT_EQ(headerOf(agent.requests()[0], "Content-Length"), "11");
  EXPECT_EQ(headerOf(agent.requests()[0], "Transfer-Encoding"), "<absent>");
  EXPECT_EQ(recordedExchanges().at(0).request_body, "hello world");
}

TEST_F(RelayHttpTest, RequestsPipelinedInOneWriteAreEachRelayedInOrder) {
  FakeUpstream agent([](const protocol::HttpRequest& request) {
    return FakeReply::http(200, "got " + request.body);
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send(
      "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
      "GET /two HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /three HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
      "vwxyz");
  const std::string received = raw.readAll();
  const std::size_t first = received.find("got abc");
  const std::size_t last = received.find("got vwxyz");
  ASSERT_NE(first, std::string::npos) << received;
  ASSERT_NE(last, std::string::npos) << received;
  EXPECT_LT(first, last);
  ASSERT_EQ(agent.requests().size(), 3u);
  EXPECT_EQ(agent.requests()[0].target, "/one");
  EXPECT_EQ(agent.requests()[1].target, "/two");
  EXPECT_EQ(agent.requests()[1].body, "");
  EXPECT_EQ(agent.requests()[2].body, "vwxyz");
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 3u);
  EXPECT_EQ(exchanges[0].request_body, "abc");
  EXPECT_EQ(exchanges[1].target, "/two");
  EXPECT_EQ(exchanges[2].response_body, "got vwxyz");
}

TEST_F(RelayHttpTest, StartLinesAndFieldsGoOutExactlyAsTheyCame) {
  // A status code and reason no table knows, repeated and odd-case fields, in an order no
  // sorting would give: the caller gets them as the agent wrote them. (Repeated fields are kept
  // together, each name's lines in their order, as RFC 9110 §5.3 asks; Beast files a repeated
  // field after its earlier lines.)
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply;
    reply.segments.push_back(
        {"HTTP/1.1 299 Quite Custom\r\nX-B: 1\r\nX-B: 3\r\nx-a: two\r\n"
         "Content-Length: 2\r\n\r\nok"});
    return reply;
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send(
      "REPORT /p?q=1 HTTP/1.1\r\nHost: x\r\nx-dup: 1\r\nX-Mixed-Case: V\r\nX-Dup: 2\r\n"
      "Content-Length: 3\r\n\r\nabc");
  EXPECT_EQ(raw.readUntil("ok"),
            "HTTP/1.1 299 Quite Custom\r\nX-B: 1\r\nX-B: 3\r\nx-a: two\r\n"
            "Content-Length: 2\r\n\r\nok");
  // An HTTP/1.0 caller on the same connection gets the answer in its own version, told that
  // the connection ends.
  raw.send("GET /old HTTP/1.0\r\nHost: x\r\n\r\n");
  EXPECT_EQ(raw.readAll(),
            "HTTP/1.0 299 Quite Custom\r\nX-B: 1\r\nX-B: 3\r\nx-a: two\r\n"
            "Content-Length: 2\r\n\r\nok");

  const std::vector<protocol::HttpRequest> requests = agent.requests();
  ASSERT_EQ(requests.size(), 2u);
  const protocol::HttpRequest& seen = requests[0];
  EXPECT_EQ(seen.method, "REPORT");
  EXPECT_EQ(seen.target, "/p?q=1");
  std::vector<std::string> fields;
  for (const auto& field : seen.headers) {
    fields.push_back(field.name + ": " + field.value);
  }
  // Host names the agent, and Content-Length is the proxy's own: both set anew, so last.
  EXPECT_THAT(fields, ::testing::ElementsAre("x-dup: 1", "X-Dup: 2", "X-Mixed-Case: V",
                                             "Host: 127.0.0.1:" + std::to_string(agent.port()),
                                             "Content-Length: 3"));
  EXPECT_EQ(seen.body, "abc");
  EXPECT_EQ(requests[1].target, "/old");
}

TEST_F(RelayHttpTest, ExpectContinueIsAnsweredBeforeTheBodyIsSent) {
  FakeUpstream agent([](const protocol::HttpRequest& request) {
    return FakeReply::http(200, "got " + request.body);
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send(
      "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
      "Connection: close\r\n\r\n");
  EXPECT_THAT(raw.readUntil("\r\n\r\n"), StartsWith("HTTP/1.1 100 Continue\r\n"));
  raw.send("hello");
  const std::string received = raw.readAll();
  EXPECT_THAT(received, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(received, HasSubstr("got hello"));
  ASSERT_EQ(agent.requests().size(), 1u);
  EXPECT_EQ(agent.requests()[0].body, "hello");
  EXPECT_EQ(headerOf(agent.requests()[0], "Expect"), "<absent>");
  EXPECT_EQ(recordedExchanges().at(0).request_body, "hello");
}

TEST_F(RelayHttpTest, HopByHopHeadersStopAtTheProxy) {
  FakeUpstream agent([](const protocol::HttpRequest&) {
    return FakeReply::http(200, "ok", "text/plain", "Keep-Alive: timeout=5\r\nX-End: kept\r\n");
  });
  startProxy(agent.url());
  auto response = client().send("GET", "/", "",
                                {{"Connection", "keep-alive, X-Hop"},
                                 {"X-Hop", "private"},
                                 {"Keep-Alive", "timeout=30"},
                                 {"TE", "trailers"},
                                 {"X-End", "end-to-end"}});
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.header("X-End"), "kept");
  EXPECT_EQ(response.header("Keep-Alive"), "");
  const auto requests = agent.requests();
  const auto& seen = requests.at(0);
  EXPECT_EQ(headerOf(seen, "X-Hop"), "<absent>");
  EXPECT_EQ(headerOf(seen, "Keep-Alive"), "<absent>");
  EXPECT_EQ(headerOf(seen, "TE"), "<absent>");
  EXPECT_EQ(headerOf(seen, "X-End"), "end-to-end");
  // The archive keeps what the caller sent, hop-by-hop headers included.
  bool recorded_hop = false;
  const auto exchanges = recordedExchanges();
  for (const auto& field : exchanges.at(0).request_headers) {
    recorded_hop |= field.name == "X-Hop";
  }
  EXPECT_TRUE(recorded_hop);
}

TEST_F(RelayHttpTest, UpstreamBasePathPrefixesEveryTarget) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "{}"); });
  startProxy(agent.url() + "/agent");
  EXPECT_EQ(client().get("/v1/info").status, 200);
  EXPECT_EQ(agent.requests().at(0).target, "/agent/v1/info");
  EXPECT_EQ(recordedExchanges().at(0).target, "/v1/info");
}

TEST_F(RelayHttpTest, UpstreamConnectionsAreReused) {
  FakeUpstream agent([](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); });
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) { config.server.threads = 1; });
  auto caller = client();
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(caller.get("/n").status, 200);
  }
  EXPECT_EQ(agent.connections(), 1);
  EXPECT_EQ(recordedExchanges().size(), 20u);
}

TEST_F(RelayHttpTest, AgentClosingAnIdleKeepAliveConnectionIsInvisible) {
  // The agent closes after every answer without saying so, as servers with a short
  // keep-alive timeout do; the proxy's pooled connection is dead when it is next used.
  FakeUpstream agent([](const protocol::HttpRequest&) {
    FakeReply reply = FakeReply::http(200, "[]");
    reply.ending = FakeReply::Ending::Close;
    return reply;
  });
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) { config.server.threads = 1; });
  auto caller = client();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(caller.get("/again").status, 200);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(agent.requests().size(), 3u);
  for (const auto& exchange : recordedExchanges()) {
    EXPECT_EQ(exchange.outcome, "complete");
  }
}

TEST_F(RelayHttpTest, HundredsOfSlowExchangesInFlightOnTwoThreads) {
  constexpr int kCallers = 200;
  constexpr auto kAgentThinks = 500ms;
  FakeUpstream agent([&](const protocol::HttpRequest&) {
    FakeReply reply = FakeReply::http(200, "[]");
    reply.delay = kAgentThinks;
    return reply;
  });
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) { config.server.threads = 2; });
  auto started = std::chrono::steady_clock::now();
  std::vector<std::future<int>> statuses;
  for (int i = 0; i < kCallers; ++i) {
    statuses.push_back(std::async(std::launch::async, [port = proxyPort()] {
      net::HttpClient caller("127.0.0.1", port);
      return caller.postJson("/v1/responses", "{}").status;
    }));
  }
  for (auto& status : statuses) {
    EXPECT_EQ(status.get(), 200);
  }
  // One at a time would take 100 s; in flight together it is about one agent delay (the fake
  // agent serves its connections concurrently too).
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
  EXPECT_EQ(recordedExchanges().size(), static_cast<std::size_t>(kCallers));
}

}  // namespace
}  // namespace agentvcr::testing
