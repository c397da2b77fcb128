// Agent cards through `agentvcr record`: the client gets a card pointed at the recorder, so
// that what it sends next is recorded too; the archive keeps the agent's own bytes and a note
// of what moved (docs/record.md, "Agent cards").

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "proxy_fixture.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::HasSubstr;

/// The card of an agent at `base`: a JSON-RPC and an HTTP+JSON interface there, a gRPC one, and
/// URLs of other kinds on the same origin, which stay.
std::string cardOfAgentAt(const std::string& base, const std::string& extra = "") {
  return R"({"name":"card-agent","url":")" + base + R"(/a2a","preferredTransport":"JSONRPC",)" +
         R"("additionalInterfaces":[{"url":")" + base + R"(/rest","transport":"HTTP+JSON"},)" +
         R"({"url":")" + base + R"(/grpc","transport":"GRPC"}],)" + R"("provider":{"url":")" +
         base + R"(/about","organization":"x"},"iconUrl":")" + base + R"(/icon.png")" + extra + "}";
}

/// The header as the agent received it; "<absent>" when it did not arrive.
std::string agentSaw(const protocol::HttpRequest& request, std::string_view name) {
  const protocol::HeaderField* field = protocol::findHeader(request.headers, name);
  return field ? field->value : "<absent>";
}

class RecordCardTest : public ProxyTest {
 protected:
  /// A fake agent under `/agent` that serves `card_` at its well-known path, with an ETag.
  void startAgent() {
    agent_ = std::make_unique<FakeUpstream>([this](const protocol::HttpRequest& request) {
      if (request.target == "/agent/.well-known/agent-card.json") {
        return FakeReply::http(200, card_, "application/json", "ETag: \"agent-tag\"\r\n");
      }
      return FakeReply::http(404, "{}");
    });
  }

  net::ClientResponse askForCard() {
    return client().send("GET", "/.well-known/agent-card.json", "",
                         {{"If-None-Match", "\"agent-tag\""}, {"Accept-Encoding", "gzip"}});
  }

  std::string agentBase() const { return agent_->url() + "/agent"; }

  std::string card_;
  std::unique_ptr<FakeUpstream> agent_;
};

TEST_F(RecordCardTest, ACardReachesTheClientPointedAtTheRecorderAndIsArchivedAsTheAgentWroteIt) {
  startAgent();
  card_ = cardOfAgentAt(agentBase());
  startProxy(agentBase());
  const std::string here = "http://127.0.0.1:" + std::to_string(proxyPort());

  const auto answer = askForCard();
  ASSERT_EQ(answer.status, 200) << "the agent's conditional headers are not forwarded";
  const protocol::Json card = protocol::Json::parse(answer.body);
  EXPECT_EQ(card["url"], here + "/a2a");
  EXPECT_EQ(card["additionalInterfaces"][0]["url"], here + "/rest");
  EXPECT_EQ(card["additionalInterfaces"][1]["url"], agentBase() + "/grpc");
  EXPECT_EQ(card["provider"]["url"], agentBase() + "/about");
  EXPECT_EQ(card["iconUrl"], agentBase() + "/icon.png");
  EXPECT_EQ(answer.header("Content-Length"), std::to_string(answer.body.size()));
  EXPECT_EQ(answer.header("ETag"),
            "\"" + protocol::hashHex(protocol::stableHash(answer.body)) + "\"");

  ASSERT_EQ(agent_->requests().size(), 1u);
  EXPECT_EQ(agentSaw(agent_->requests()[0], "If-None-Match"), "<absent>");
  EXPECT_EQ(agentSaw(agent_->requests()[0], "Accept-Encoding"), "identity");

  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].response_body, card_) << "the archive keeps the agent's bytes";
  EXPECT_EQ(protocol::headerValue(exchanges[0].response_headers, "ETag"), "\"agent-tag\"");
  EXPECT_EQ(protocol::headerValue(exchanges[0].request_headers, "If-None-Match"), "\"agent-tag\"");
  ASSERT_TRUE(exchanges[0].card_rewrite);
  const protocol::Json note = protocol::Json::parse(*exchanges[0].card_rewrite);
  ASSERT_EQ(note["urls"].size(), 2u);
  EXPECT_EQ(note["urls"][0]["from"], agentBase() + "/a2a");
  EXPECT_EQ(note["urls"][0]["to"], here + "/a2a");

  cli::ShowCommand show;
  show.db_path = db_path_;
  show.exchange = exchanges[0].id;
  std::ostringstream shown;
  ASSERT_EQ(cli::runShow(show, shown), cli::kExitOk);
  EXPECT_THAT(shown.str(), HasSubstr("agent card: the client got it pointed at agentvcr"));
}

TEST_F(RecordCardTest, PublicUrlNamesWhereClientsReachTheRecorder) {
  startAgent();
  card_ = cardOfAgentAt(agentBase());
  startProxy(agentBase(), [](proxy::RecordingProxyConfig& config) {
    config.relay.public_url = "https://front.example/recorder/";
  });
  const protocol::Json card = protocol::Json::parse(askForCard().body);
  EXPECT_EQ(card["url"], "https://front.example/recorder/a2a");
  EXPECT_EQ(card["additionalInterfaces"][0]["url"], "https://front.example/recorder/rest");
}

TEST_F(RecordCardTest, NoRewriteCardPassesCardsOnAsTheAgentWroteThem) {
  startAgent();
  card_ = cardOfAgentAt(agentBase());
  startProxy(agentBase(),
             [](proxy::RecordingProxyConfig& config) { config.relay.rewrite_cards = false; });
  const auto answer = askForCard();
  EXPECT_EQ(answer.body, card_);
  EXPECT_EQ(answer.header("ETag"), "\"agent-tag\"");
  EXPECT_EQ(agentSaw(agent_->requests()[0], "If-None-Match"), "\"agent-tag\"");
  EXPECT_FALSE(recordedExchanges()[0].card_rewrite);
}

TEST_F(RecordCardTest, ASignedCardIsLeftAsSignedAndTheArchiveSaysSo) {
  startAgent();
  card_ = cardOfAgentAt(agentBase(), R"(,"signatures":[{"protected":"e30","signature":"c2ln"}])");
  startProxy(agentBase());
  EXPECT_EQ(askForCard().body, card_);
  const auto exchanges = recordedExchanges();
  ASSERT_TRUE(exchanges[0].card_rewrite);
  EXPECT_EQ(*exchanges[0].card_rewrite, R"({"left":"signed"})");
}

TEST_F(RecordCardTest, AnExtendedCardIsRewrittenInAJsonRpcResultAndWhenSentInChunks) {
  std::string agent_base;
  FakeUpstream extended([&](const protocol::HttpRequest& request) {
    if (request.method == "POST") {
      return FakeReply::http(
          200, R"({"jsonrpc":"2.0","id":3,"result":)" + cardOfAgentAt(agent_base) + "}");
    }
    // v1.0's HTTP+JSON route, its card sent in two chunks of unknown total length.
    const std::string card = cardOfAgentAt(agent_base);
    return FakeReply::chunked(200, {card.substr(0, 10), card.substr(10)});
  });
  agent_base = extended.url();
  startProxy(extended.url());
  const std::string here = "http://127.0.0.1:" + std::to_string(proxyPort());

  auto rpc =
      client().postJson("/a2a", R"({"jsonrpc":"2.0","id":3,"method":"GetExtendedAgentCard"})");
  EXPECT_EQ(protocol::Json::parse(rpc.body)["result"]["url"], here + "/a2a");
  EXPECT_EQ(protocol::Json::parse(rpc.body)["id"], 3);
  auto rest = client().get("/rest/extendedAgentCard");
  EXPECT_EQ(protocol::Json::parse(rest.body)["url"], here + "/a2a");
  EXPECT_EQ(rest.header("Content-Length"), std::to_string(rest.body.size()));

  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_THAT(exchanges[0].response_body, HasSubstr(extended.url() + "/a2a"));
  EXPECT_EQ(exchanges[1].response_body, cardOfAgentAt(agent_base));
  EXPECT_TRUE(exchanges[0].card_rewrite);
  EXPECT_TRUE(exchanges[1].card_rewrite);
}

}  // namespace
}  // namespace agentvcr::testing
