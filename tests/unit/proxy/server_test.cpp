#include "agentvcr/proxy/server.hpp"

#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/proxy/local_service.hpp"

namespace agentvcr::proxy {
namespace {

LocalHandler echoThreadId() {
  return [](const protocol::HttpRequest& request) {
    std::ostringstream id;
    id << std::this_thread::get_id();
    return protocol::HttpReply{
        200, "text/plain", {}, request.method + " " + request.target + " " + id.str(), {}};
  };
}

TEST(Server, BindsPortZeroOnLoopbackByDefault) {
  Server server({}, makeLocalServiceFactory(echoThreadId()));
  EXPECT_NE(server.endpoint().port, 0);
  EXPECT_EQ(server.endpoint().host, "127.0.0.1");
}

TEST(Server, EveryWorkerServesTheSamePort) {
  ServerOptions options;
  options.threads = 4;
  Server server(options, makeLocalServiceFactory(echoThreadId()));
  server.start();
  std::set<std::string> threads_seen;
  for (int i = 0; i < 64; ++i) {
    // A new connection each time: the kernel spreads them over the workers' acceptors.
    net::HttpClient client("127.0.0.1", server.endpoint().port);
    auto response = client.get("/x");
    ASSERT_EQ(response.status, 200);
    threads_seen.insert(response.body.substr(response.body.rfind(' ') + 1));
  }
  EXPECT_GT(threads_seen.size(), 1u);
  server.stop();
}

TEST(Server, KeepsAliveAcrossRequests) {
  Server server({}, makeLocalServiceFactory(echoThreadId()));
  server.start();
  net::HttpClient client("127.0.0.1", server.endpoint().port);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(client.get("/n/" + std::to_string(i)).status, 200);
  }
  EXPECT_EQ(server.openConnections(), 1u);
  server.stop();
}

TEST(Server, StopClosesIdleConnectionsPromptly) {
  ServerOptions options;
  options.drain_timeout = std::chrono::seconds(30);
  Server server(options, makeLocalServiceFactory(echoThreadId()));
  server.start();
  net::HttpClient client("127.0.0.1", server.endpoint().port);
  ASSERT_EQ(client.get("/").status, 200);
  auto started = std::chrono::steady_clock::now();
  server.stop();
  // Idle keep-alive connections are closed at once, not waited for until the drain timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(server.openConnections(), 0u);
}

// Replay's and the mocks' 413 names the limit too, and that no option raises it.
TEST(Server, ALocalServiceSaysWhatBodyItTakes) {
  LocalServiceOptions limits;
  limits.max_request_body = 1024;
  Server server({}, makeLocalServiceFactory(echoThreadId(), limits));
  server.start();
  net::HttpClient client("127.0.0.1", server.endpoint().port);
  const auto answer = client.postJson("/v1/responses", std::string(4096, ' '));
  EXPECT_EQ(answer.status, 413);
  EXPECT_NE(answer.body.find("request body larger than 1024 bytes, the most accepted; replay and "
                             "the mocks take no larger body"),
            std::string::npos)
      << answer.body;
}

TEST(Server, SecondServerOnATakenPortThrows) {
  Server first({}, makeLocalServiceFactory(echoThreadId()));
  ServerOptions options;
  options.port = first.endpoint().port;
  options.option = "--metrics-listen";
  // Two recorders on one port would split the traffic between two archives: refuse, naming the
  // address, the option that chose it and a port that binds, without Boost's source location.
  const std::string address = "127.0.0.1:" + std::to_string(options.port);
  try {
    Server second(options, makeLocalServiceFactory(echoThreadId()));
    ADD_FAILURE() << "two servers bound " << address;
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot listen on " + address +
                  " (--metrics-listen): Address already in use; stop what holds it, or let "
                  "agentvcr pick a free port with --metrics-listen 127.0.0.1:0");
  }
}

TEST(Server, AHostThatIsNotAnAddressIsRefusedByName) {
  ServerOptions options;
  options.host = "localhost";
  try {
    Server server(options, makeLocalServiceFactory(echoThreadId()));
    ADD_FAILURE() << "bound " << options.host;
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot listen on localhost:0 (--listen): not an IP address; --listen takes an IP "
              "address and a port, e.g. 127.0.0.1:0");
  }
}

}  // namespace
}  // namespace agentvcr::proxy
