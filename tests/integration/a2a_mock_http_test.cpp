// `agentvcr mock a2a` over real loopback sockets: the engine behind proxy::Server, answering
// cards, preflights, JSON-RPC and auth failures, serving concurrent clients, and writing the
// events of a stream one by one at their pace.

#include <chrono>
#include <future>
#include <set>
#include <thread>

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/services/a2a_mock_service.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "raw_client.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const sim::a2a::TimePoint kStart{std::chrono::seconds(1735689600)};

sim::a2a::MockConfig configFor(const std::string& profile) {
  sim::a2a::MockConfig config;
  config.profile = *sim::a2a::profileFromName(profile);
  auto load = sim::a2a::loadFixturesDir(std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/" + profile);
  EXPECT_TRUE(load.fixtures) << load.error;
  if (load.fixtures) {
    config.fixtures = std::move(*load.fixtures);
  }
  config.tokens.add("good", sim::a2a::Plan::Pro);
  config.tokens.add("free", sim::a2a::Plan::Free);
  return config;
}

std::string sendBody(const std::string& text, const sim::a2a::Json& id = 1,
                     const std::string& method = "message/send", const std::string& skill = "") {
  sim::a2a::Json message = {
      {"kind", "message"},
      {"messageId", "m-1"},
      {"role", "user"},
      {"parts", sim::a2a::Json::array({sim::a2a::Json{{"kind", "text"}, {"text", text}}})}};
  if (!skill.empty()) {
    message["metadata"] = {{"skillId", skill}};
  }
  sim::a2a::Json body = {
      {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", {{"message", message}}}};
  return sim::a2a::dumpJson(body);
}

protocol::Headers bearer(const std::string& token) {
  return {{"Content-Type", "application/json"}, {"Authorization", "Bearer " + token}};
}

class A2aMockHttpTest : public ::testing::Test {
 protected:
  void start(sim::a2a::MockConfig config) {
    proxy::ServerOptions server;
    server.threads = 2;
    server.drain_timeout = 2000ms;
    mock_ = std::make_unique<services::A2aMockService>(std::move(config), clock_, server);
    mock_->start();
  }

  void TearDown() override {
    if (mock_) {
      mock_->stop();
    }
  }

  std::uint16_t port() const { return mock_->endpoint().port; }

  net::HttpClient client() const { return net::HttpClient("127.0.0.1", port()); }

  std::shared_ptr<sim::a2a::ManualClock> clock_ = std::make_shared<sim::a2a::ManualClock>(kStart);
  std::unique_ptr<services::A2aMockService> mock_;
};

TEST_F(A2aMockHttpTest, CardPointsAtTheBoundAddress) {
  start(configFor("magisterium"));
  auto card = client().get("/.well-known/agent.json");
  EXPECT_EQ(card.status, 200);
  EXPECT_EQ(card.header("Content-Type"), "application/json");
  EXPECT_EQ(card.header("Cache-Control"), "public, max-age=3600");
  EXPECT_EQ(card.header("Access-Control-Allow-Origin"), "*");
  const sim::a2a::Json parsed = *sim::a2a::parseJsonText(card.body);
  EXPECT_EQ(parsed["url"], mock_->baseUrl() + "/api/v1/a2a");
  EXPECT_EQ(mock_->publicUrl(), mock_->baseUrl() + "/api/v1/a2a");
  EXPECT_EQ(client().get("/.well-known/agent-card.json").body, card.body);
}

// A revalidated card over the wire: 304 without content and without a Content-Length that
// would contradict the card's, and the connection carries the next request.
TEST_F(A2aMockHttpTest, ARevalidatedCardIsA304OnAKeptConnection) {
  start(configFor("standard"));
  const auto card =
      client().send("GET", "/.well-known/agent-card.json", "", {{"A2A-Version", "1.0"}});
  ASSERT_EQ(card.status, 200);
  const std::string etag = card.header("ETag");
  ASSERT_FALSE(etag.empty());
  RawClient raw(port());
  const std::string ask =
      "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n"
      "A2A-Version: 1.0\r\nIf-None-Match: " +
      etag + "\r\n\r\n";
  raw.send(ask);
  const std::string first = raw.readUntil("\r\n\r\n");
  EXPECT_THAT(first, StartsWith("HTTP/1.1 304 Not Modified\r\n"));
  EXPECT_THAT(first, HasSubstr("ETag: " + etag + "\r\n"));
  EXPECT_THAT(first, ::testing::Not(HasSubstr("Content-Length")));
  raw.send(ask);
  EXPECT_THAT(raw.readUntil("\r\n\r\n"), StartsWith("HTTP/1.1 304 Not Modified\r\n"))
      << "the connection stays usable";
}

TEST_F(A2aMockHttpTest, PublicUrlOverridesTheCardUrl) {
  auto config = configFor("magisterium");
  config.public_url = "http://127.0.0.1:47000/api/v1/a2a";
  start(std::move(config));
  EXPECT_THAT(client().get("/.well-known/agent.json").body,
              HasSubstr(R"("url":"http://127.0.0.1:47000/api/v1/a2a")"));
}

TEST_F(A2aMockHttpTest, PreflightOverTheWire) {
  start(configFor("magisterium"));
  RawClient raw(port());
  raw.send(
      "OPTIONS /api/v1/a2a HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\n"
      "Access-Control-Request-Method: POST\r\n"
      "Access-Control-Request-Headers: content-type, authorization\r\nConnection: close\r\n\r\n");
  const std::string received = raw.readAll();
  EXPECT_THAT(received, StartsWith("HTTP/1.1 204 No Content\r\n"));
  EXPECT_THAT(received, HasSubstr("Access-Control-Allow-Origin: *\r\n"));
  EXPECT_THAT(received, HasSubstr("Access-Control-Allow-Methods: POST, OPTIONS\r\n"));
  EXPECT_THAT(received, HasSubstr("Access-Control-Allow-Headers: Content-Type, Authorization\r\n"));
}

TEST_F(A2aMockHttpTest, JsonRpcStatusesOverTheWire) {
  auto config = configFor("magisterium");
  config.retry_after_header = true;
  start(std::move(config));
  auto http = client();
  auto sent = http.send("POST", "/api/v1/a2a", sendBody("What is grace?", 1), bearer("good"));
  EXPECT_EQ(sent.status, 200);
  const sim::a2a::Json task = (*sim::a2a::parseJsonText(sent.body))["result"];
  EXPECT_EQ(task["status"]["state"], "completed");

  auto unauthorized = http.send("POST", "/api/v1/a2a", sendBody("What is grace?", 2));
  EXPECT_EQ(unauthorized.status, 401);
  EXPECT_EQ(unauthorized.body,
            R"({"jsonrpc":"2.0","id":2,"error":{"code":-32004,"message":"Unauthorized"}})");
  auto free = http.send("POST", "/api/v1/a2a", sendBody("What is grace?", 3), bearer("free"));
  EXPECT_EQ(free.status, 403);
  EXPECT_EQ(http.send("POST", "/api/v1/a2a", sendBody("What is grace?", 4), bearer("good")).status,
            200);
  clock_->advance(20s);
  auto limited = http.send("POST", "/api/v1/a2a", sendBody("What is grace?", 5), bearer("good"));
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.header("Retry-After"), "40");
  EXPECT_EQ(limited.body,
            R"({"jsonrpc":"2.0","id":5,"error":{"code":-32003,"message":"Rate limit exceeded",)"
            R"("data":{"retryAfter":40}}})");
  const std::string get = R"({"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"id":")" +
                          task["id"].get<std::string>() + R"("}})";
  EXPECT_EQ(http.send("POST", "/api/v1/a2a", get, bearer("good")).status, 200);
  clock_->advance(24h);
  EXPECT_THAT(http.send("POST", "/api/v1/a2a", get, bearer("good")).body,
              HasSubstr(R"("code":-32001)"));
}

TEST_F(A2aMockHttpTest, StandardProfileAnswersBatchesAndV10OverTheWire) {
  start(configFor("standard"));
  auto http = client();
  const protocol::Headers json = {{"Content-Type", "application/json"}};
  // A batch: one array answer, each element on its own, framed as one HTTP body.
  auto batch =
      http.send("POST", "/api/v1/a2a",
                "[" + sendBody("hi", "a") + R"(,7,{"jsonrpc":"2.0","method":"nope"}])", json);
  EXPECT_EQ(batch.status, 200);
  EXPECT_EQ(batch.header("Content-Type"), "application/json");
  const sim::a2a::Json answers = *sim::a2a::parseJsonText(batch.body);
  ASSERT_EQ(answers.size(), 3u) << batch.body;
  EXPECT_EQ(answers[0]["result"]["status"]["state"], "input-required");
  EXPECT_EQ(answers[1]["error"]["code"], -32600);
  EXPECT_EQ(answers[2],
            *sim::a2a::parseJsonText(R"({"jsonrpc":"2.0","id":null,"error":)"
                                     R"({"code":-32601,"message":"Method not found: nope"}})"));

  // v1.0, selected by the header, then by the query parameter.
  const std::string v10 = R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":)"
                          R"({"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}]}}})";
  protocol::Headers with_version = json;
  with_version.push_back({"A2A-Version", "1.0"});
  auto by_header = http.send("POST", "/api/v1/a2a", v10, with_version);
  EXPECT_THAT(by_header.body, HasSubstr(R"("state":"TASK_STATE_INPUT_REQUIRED")"));
  auto by_query = http.send("POST", "/api/v1/a2a?A2A-Version=1.0", v10, json);
  EXPECT_THAT(by_query.body, HasSubstr(R"({"jsonrpc":"2.0","id":1,"result":{"task":{)"));
  with_version.back().value = "3.1";
  EXPECT_THAT(http.send("POST", "/api/v1/a2a", v10, with_version).body,
              HasSubstr(R"("code":-32009)"));
}

TEST_F(A2aMockHttpTest, ConcurrentClientsGetDistinctTasks) {
  auto config = configFor("magisterium");
  config.quota = false;
  start(std::move(config));
  std::vector<std::future<std::vector<std::string>>> workers;
  for (int worker = 0; worker < 4; ++worker) {
    workers.push_back(std::async(std::launch::async, [this] {
      auto http = client();
      std::vector<std::string> ids;
      for (int i = 0; i < 10; ++i) {
        auto reply = http.send("POST", "/api/v1/a2a", sendBody("hope", i), bearer("good"));
        ids.push_back((*sim::a2a::parseJsonText(reply.body))["result"]["id"]);
      }
      return ids;
    }));
  }
  std::set<std::string> distinct;
  for (auto& worker : workers) {
    for (const std::string& id : worker.get()) {
      distinct.insert(id);
    }
  }
  EXPECT_EQ(distinct.size(), 40u);
}

/// Reads from `fd` until `done` holds for what arrived or `limit` passes.
template <class Done>
std::string readUntil(int fd, std::string received, Done done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buffer[4096];
  while (!done(received) && std::chrono::steady_clock::now() < deadline) {
    pollfd poll_fd{fd, POLLIN, 0};
    if (::poll(&poll_fd, 1, 100) <= 0) {
      continue;
    }
    const auto n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) {
      break;
    }
    received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t found = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++found;
  }
  return found;
}

TEST_F(A2aMockHttpTest, StreamEventsArriveOneByOne) {
  auto config = configFor("standard");
  config.tokens = {};
  config.stream_delay = 300ms;
  start(std::move(config));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port());
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const std::string body = sendBody("tell me", "s-1", "message/stream", "story");
  const std::string request =
      "POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
      "Content-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));

  const auto sent_at = std::chrono::steady_clock::now();
  std::string received = readUntil(
      fd, "", [](const std::string& text) { return count(text, "data: ") >= 1; }, 5s);
  const auto first_at = std::chrono::steady_clock::now();
  EXPECT_EQ(count(received, "data: "), 1u) << "only the first event is out yet:\n" << received;
  EXPECT_THAT(received, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(received, HasSubstr("Content-Type: text/event-stream\r\n"));
  EXPECT_THAT(received, HasSubstr("Transfer-Encoding: chunked\r\n"));
  EXPECT_THAT(received, HasSubstr(R"(data: {"jsonrpc":"2.0","id":"s-1","result":{"kind":"task",)"));

  received = readUntil(
      fd, received,
      [](const std::string& text) { return text.find("\r\n0\r\n\r\n") != std::string::npos; }, 10s);
  const auto last_at = std::chrono::steady_clock::now();
  ::close(fd);
  EXPECT_EQ(count(received, "data: "), 6u) << received;
  EXPECT_THAT(received, HasSubstr(R"("final":true)"));
  EXPECT_LT(first_at - sent_at, 1000ms);
  EXPECT_GE(last_at - first_at, 1200ms) << "five pauses of 300 ms come after the first event";
}

}  // namespace
}  // namespace agentvcr::testing
