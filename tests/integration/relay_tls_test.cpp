// An https agent: the relay speaks TLS upstream, checks the certificate against the agent's
// name, and records the exchange like any other.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "proxy_fixture.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::HasSubstr;

FakeUpstream httpsAgent() {
  return FakeUpstream(
      [](const protocol::HttpRequest& request) {
        return FakeReply::http(200, R"({"path":")" + request.target + R"("})");
      },
      FakeTls{kTlsDir + "/agent-cert.pem", kTlsDir + "/agent-key.pem"});
}

class RelayTlsTest : public ProxyTest {};

TEST_F(RelayTlsTest, TrustedAgentIsRelayedAndRecorded) {
  auto agent = httpsAgent();
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) {
    config.relay.ca_file = kTlsDir + "/agent-cert.pem";
  });
  auto response = client().get("/v1/info");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, R"({"path":"/v1/info"})");
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].response_body, R"({"path":"/v1/info"})");
  EXPECT_EQ(archive().session(proxy_->sessionId())->upstream,
            "https://127.0.0.1:" + std::to_string(agent.port()));
}

TEST_F(RelayTlsTest, UntrustedCertificateIsRefusedWith502) {
  auto agent = httpsAgent();
  startProxy(agent.url());
  auto response = client().get("/v1/info");
  EXPECT_EQ(response.status, 502);
  EXPECT_THAT(response.body, HasSubstr("proxy.upstream.refused"));
  EXPECT_THAT(response.body, HasSubstr("certificate verify failed"));
  EXPECT_TRUE(agent.requests().empty());
}

TEST_F(RelayTlsTest, InsecureModeSkipsVerification) {
  auto agent = httpsAgent();
  startProxy(agent.url(),
             [](proxy::RecordingProxyConfig& config) { config.relay.verify_tls = false; });
  EXPECT_EQ(client().get("/x").status, 200);
}

}  // namespace
}  // namespace agentvcr::testing
