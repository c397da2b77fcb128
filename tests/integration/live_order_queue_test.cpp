// The live-order hold through the real relay: answers held back for a slow request that began
// first fill the recorder's queue by bytes long before the hold expires. The connections whose
// answers find no room wait for it before reading their next request; the hold must end there,
// as it ends at a full batch, and not keep every connection waiting until it expires.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/net/http_client.hpp"
#include "fake_upstream.hpp"
#include "proxy_fixture.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;

class LiveOrderQueueTest : public ProxyTest {};

TEST_F(LiveOrderQueueTest, AnswersHeldForASlowRequestNeverStallTheConnections) {
  // One slow 4 MB answer and 32 quick ones: sixteen of those fill the queue's 64 MiB.
  const std::string answer(4'000'000, 'x');
  FakeUpstream agent([&](const protocol::HttpRequest& request) {
    FakeReply reply = FakeReply::http(200, answer, "text/plain");
    if (request.target == "/slow") {
      reply.delay = 5s;
    }
    return reply;
  });
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) {
    config.server.threads = 4;
    config.recorder.live_order_hold = 120s;  // a stall would last as long
  });
  std::thread slow([&] {
    net::HttpClient client("127.0.0.1", proxyPort(), 60s);
    EXPECT_EQ(client.send("POST", "/slow").status, 200);
  });
  ASSERT_TRUE(waitUntil([&] { return !agent.requests().empty(); }));
  std::this_thread::sleep_for(100ms);

  // Each caller asks twice on its connection: the second request is read only once the first
  // exchange is queued.
  const auto started = std::chrono::steady_clock::now();
  std::atomic<int> answered{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 32; ++c) {
    callers.emplace_back([&, c] {
      net::HttpClient client("127.0.0.1", proxyPort(), 180s);
      for (int turn = 0; turn < 2; ++turn) {
        const auto reply =
            client.send("POST", "/quick/" + std::to_string(c) + "/" + std::to_string(turn));
        answered += reply.status == 200 && reply.body.size() == answer.size() ? 1 : 0;
      }
    });
  }
  for (std::thread& caller : callers) {
    caller.join();
  }
  const auto took = std::chrono::steady_clock::now() - started;
  slow.join();
  EXPECT_EQ(answered, 64);
  EXPECT_LT(took, 60s) << "the callers waited for the hold to expire";
  EXPECT_GT(proxy_->recorder().stats().refused_full, 0u) << "the queue never filled";
  EXPECT_EQ(recordedExchanges().size(), 65u) << "nothing lost";
}

}  // namespace
}  // namespace agentvcr::testing
