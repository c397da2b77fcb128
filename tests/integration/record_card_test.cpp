// Agent cards through `agentvcr record`: the client gets a card pointed at the recorder, so
// that what it sends next is recorded too; the archive keeps the agent's own bytes and a note
// of what moved (docs/record.md, "Agent cards").

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "a2a_fixture.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "proxy_fixture.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

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

/// The body of a raw HTTP answer: what follows the blank line after its header.
std::string rawAnswerBody(const std::string& answer) {
  const std::size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : answer.substr(end + 4);
}

class RecordCardTest : public ProxyTest {
 protected:
  /// A fake agent under `/agent` that serves `card_` at its well-known path, with an ETag; a
  /// HEAD there gets the GET's header alone.
  void startAgent() {
    agent_ = std::make_unique<FakeUpstream>([this](const protocol::HttpRequest& request) {
      if (request.target == "/agent/.well-known/agent-card.json") {
        FakeReply reply =
            FakeReply::http(200, card_, "application/json", "ETag: \"agent-tag\"\r\n");
        if (request.method == "HEAD") {
          std::string& bytes = reply.segments[0].bytes;
          bytes.resize(bytes.size() - card_.size());
        }
        return reply;
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

TEST_F(RecordCardTest, ACardLeftAsTheAgentWroteItArrivesWholeThoughSentInChunks) {
  const std::string signed_card =
      cardOfAgentAt("http://agent", R"(,"signatures":[{"protected":"e30","signature":"c2ln"}])");
  FakeUpstream agent([&](const protocol::HttpRequest&) {
    return FakeReply::chunked(200, {signed_card.substr(0, 10), signed_card.substr(10)});
  });
  startProxy(agent.url());
  RawClient raw(proxyPort());
  raw.send("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n\r\n");
  // The connection stays open: only the answer's framing says where the card ends.
  const std::string answer = raw.readUntil(signed_card, std::chrono::seconds(5));
  EXPECT_THAT(answer, HasSubstr("Content-Length: " + std::to_string(signed_card.size()) + "\r\n"));
  EXPECT_EQ(rawAnswerBody(answer), signed_card);
}

TEST_F(RecordCardTest, TheClientGetsTheAgentsOwnBytesWithOnlyTheInterfaceUrlsChanged) {
  startAgent();
  card_ = handWrittenCard(agentBase(), agentBase());
  startProxy(agentBase());
  const std::string here = "http://127.0.0.1:" + std::to_string(proxyPort());
  const auto answer = askForCard();
  EXPECT_EQ(answer.body, handWrittenCard(here, agentBase()))
      << "whitespace, number spellings and escapes are the agent's";
  EXPECT_EQ(answer.header("Content-Length"), std::to_string(answer.body.size()));
  EXPECT_EQ(recordedExchanges()[0].response_body, card_);
}

TEST_F(RecordCardTest, AHeadOfACardAnnouncesTheLengthAndTagOfTheCardAGetReceives) {
  startAgent();
  card_ = cardOfAgentAt(agentBase());
  startProxy(agentBase());
  const auto get = askForCard();
  ASSERT_EQ(get.status, 200);
  RawClient raw(proxyPort());
  raw.send("HEAD /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1:" +
           std::to_string(proxyPort()) + "\r\nConnection: close\r\n\r\n");
  const std::string head = raw.readAll();
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 "));
  EXPECT_THAT(head, HasSubstr("Content-Length: " + get.header("Content-Length") + "\r\n"));
  EXPECT_THAT(head, HasSubstr("ETag: " + get.header("ETag") + "\r\n"));
  EXPECT_THAT(head, EndsWith("\r\n\r\n")) << "a HEAD's answer has no body";

  const auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_EQ(exchanges[1].method, "HEAD");
  EXPECT_EQ(exchanges[1].response_body, "") << "kept as a HEAD: the agent's header, no body";
  EXPECT_EQ(protocol::headerValue(exchanges[1].response_headers, "ETag"), "\"agent-tag\"");
  ASSERT_TRUE(exchanges[1].card_rewrite);
  EXPECT_EQ(*exchanges[1].card_rewrite, *exchanges[0].card_rewrite);
}

TEST_F(RecordCardTest, TheCardAnsweringABatchedExtendedCardCallIsRewrittenAndNothingElse) {
  // The card's answer comes first, the batch's other call's second: answers are matched by id.
  // The other answer holds a `url` on the agent too, which is no card's and stays.
  const auto batchAnswer = [](const std::string& card_base, const std::string& agent_base) {
    return R"([{"jsonrpc":"2.0","id":"card","result":)" + cardOfAgentAt(card_base) + "},\n " +
           R"({"jsonrpc":"2.0","id":1,"result":{"url":")" + agent_base + R"(/a2a"}}])";
  };
  std::string agent_base;
  FakeUpstream agent([&](const protocol::HttpRequest&) {
    return FakeReply::http(200, batchAnswer(agent_base, agent_base));
  });
  agent_base = agent.url();
  startProxy(agent.url());
  const std::string here = "http://127.0.0.1:" + std::to_string(proxyPort());
  const auto answer = client().postJson(
      "/a2a", R"([{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}},)"
              R"({"jsonrpc":"2.0","id":"card","method":"GetExtendedAgentCard"}])");
  // cardOfAgentAt() puts its provider and icon on the card's base: those stay the agent's.
  std::string expected = batchAnswer(here, agent_base);
  for (const std::string kept : {"/about", "/icon.png", "/grpc"}) {
    const std::string moved = here + kept;
    expected.replace(expected.find(moved), moved.size(), agent_base + kept);
  }
  EXPECT_EQ(answer.body, expected);
  ASSERT_TRUE(recordedExchanges()[0].card_rewrite);
}

TEST_F(RecordCardTest, WithoutHostOnAWildcardListenerTheCardNamesTheAddressTheClientReached) {
  startAgent();
  card_ = cardOfAgentAt(agentBase());
  startProxy(agentBase(),
             [](proxy::RecordingProxyConfig& config) { config.server.host = "0.0.0.0"; });
  RawClient raw(proxyPort());
  // HTTP/1.0 names no Host; the relay's own listening address is 0.0.0.0, no place to call.
  raw.send("GET /.well-known/agent-card.json HTTP/1.0\r\n\r\n");
  const auto card = protocol::parseJson(rawAnswerBody(raw.readAll()));
  ASSERT_TRUE(card.value);
  EXPECT_EQ((*card.value)["url"], "http://127.0.0.1:" + std::to_string(proxyPort()) + "/a2a");
}

}  // namespace
}  // namespace agentvcr::testing
