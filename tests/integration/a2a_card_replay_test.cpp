// Agent cards under `agentvcr replay`: every card `record` points at itself, replay points at
// itself too (docs/replay.md, "A2A"): the card GET, the extended card asked by JSON-RPC (v1.0
// and v0.3 names, alone or in a batch) and by HTTP+JSON, and one forwarded from the live agent
// on a miss. The client gets the agent's own bytes but for those URLs, with an entity tag of
// its own; a HEAD announces what a GET would get; a card asked without Host names the address
// the client reached. Recorded through the proxy from a fake agent into a real SQLite file, and
// replayed over loopback sockets.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "a2a_fixture.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "replay_fixture.hpp"

namespace agentvcr::testing {
namespace {

using protocol::Json;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kWellKnownCard = "/.well-known/agent-card.json";
constexpr const char* kRestCard = "/rest/extendedAgentCard";

/// One JSON-RPC answer as an agent writes it: the id, then `result_text` as it is.
std::string rpcAnswerText(const Json& id, const std::string& result_text) {
  return R"({"jsonrpc":"2.0","id":)" + id.dump() + R"(,"result":)" + result_text + "}";
}

std::string cardCall(const Json& id, const std::string& method) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}}.dump();
}

/// A batch of a GetTask and a GetExtendedAgentCard.
std::string batchWithCardCall(const Json& task_call_id, const Json& card_call_id) {
  return "[" +
         Json{{"jsonrpc", "2.0"},
              {"id", task_call_id},
              {"method", "GetTask"},
              {"params", {{"id", "t-1"}}}}
             .dump() +
         "," + cardCall(card_call_id, "GetExtendedAgentCard") + "]";
}

/// What the card agent answers that batch: the task's result holds a `url` of the agent's,
/// which is no card's and stays.
std::string batchAnswerText(const Json& task_call_id, const Json& card_call_id,
                            const std::string& card_text, const std::string& agent) {
  return "[" + rpcAnswerText(card_call_id, card_text) + ",\n " +
         rpcAnswerText(task_call_id, R"({"url":")" + agent + R"(/a2a"})") + "]";
}

/// The body of a raw HTTP answer: what follows the blank line after its header.
std::string bodyOfRawAnswer(const std::string& answer) {
  const std::size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : answer.substr(end + 4);
}

class A2aCardReplayTest : public ReplayTest {
 protected:
  void SetUp() override {
    // Every card of this agent is handWrittenCard() at its own address: at the well-known path
    // and by HTTP+JSON, with an entity tag, and as the result of the extended-card calls of
    // either wire, alone or in a batch.
    agent_ = std::make_unique<FakeUpstream>([this](const protocol::HttpRequest& request) {
      const std::string card = handWrittenCard(agent_url_, agent_url_);
      if (request.target == kWellKnownCard || request.target == kRestCard) {
        return FakeReply::http(200, card, "application/json", "ETag: \"agent-tag\"\r\n");
      }
      const Json call = protocol::parseJson(request.body).value.value_or(Json());
      if (call.is_array()) {
        return FakeReply::http(200, batchAnswerText(call[0].value("id", Json()),
                                                    call[1].value("id", Json()), card, agent_url_));
      }
      return FakeReply::http(200, rpcAnswerText(call.value("id", Json()), card));
    });
    agent_url_ = agent_->url();
  }

  /// Asks the agent, through a recorder, for each of its cards once.
  void recordCards() {
    auto recording = startRecording(agent_url_, db_path_, "cards");
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    EXPECT_EQ(client.get(kWellKnownCard).status, 200);
    EXPECT_EQ(client.send("GET", kRestCard, "", {{"A2A-Version", "1.0"}}).status, 200);
    EXPECT_EQ(client.postJson("/a2a", cardCall(1, "GetExtendedAgentCard")).status, 200);
    EXPECT_EQ(client.postJson("/a2a", cardCall(2, "agent/getAuthenticatedExtendedCard")).status,
              200);
    EXPECT_EQ(client.postJson("/a2a", batchWithCardCall(3, "card")).status, 200);
    recording->settle();
    recording->stop();
  }

  /// The agent's card as a client of the replay must get it: its bytes, its interfaces here.
  std::string cardHere() const { return handWrittenCard(replayUrl(), agent_url_); }

  std::unique_ptr<FakeUpstream> agent_;
  std::string agent_url_;
};

TEST_F(A2aCardReplayTest, EveryCardRecordRewritesReplayPointsAtItselfKeepingTheAgentsBytes) {
  recordCards();
  startReplay();
  auto client = replayClient();

  const auto card = client.get(kWellKnownCard);
  EXPECT_EQ(card.body, cardHere());
  EXPECT_EQ(card.header("ETag"), "\"" + protocol::hashHex(protocol::stableHash(card.body)) + "\"")
      << "the tag names the bytes served, not the agent's";

  const auto rest = client.send("GET", kRestCard, "", {{"A2A-Version", "1.0"}});
  EXPECT_EQ(rest.body, cardHere());
  EXPECT_EQ(rest.header("ETag"), card.header("ETag"));

  // Live ids of other values and types than the recorded ones: re-stamped, the card rewritten.
  EXPECT_EQ(client.postJson("/a2a", cardCall(11, "GetExtendedAgentCard")).body,
            rpcAnswerText(11, cardHere()));
  EXPECT_EQ(client.postJson("/a2a", cardCall("v03", "agent/getAuthenticatedExtendedCard")).body,
            rpcAnswerText("v03", cardHere()));
  EXPECT_EQ(client.postJson("/a2a", batchWithCardCall("t", 4)).body,
            batchAnswerText("t", 4, cardHere(), agent_url_));
  EXPECT_TRUE(missLog().empty());
}

TEST_F(A2aCardReplayTest, AnExtendedCardForwardedOnAMissIsPointedAtTheReplayToo) {
  recordCards();
  startReplay([this](services::ReplayServiceConfig& config) {
    config.replay.on_miss = replay::MissPolicy::Forward;
    config.upstream = net::parseUrl(agent_url_);
  });
  // Params never recorded: a miss, which the live agent answers.
  const std::string call = R"({"jsonrpc":"2.0","id":5,"method":"GetExtendedAgentCard",)"
                           R"("params":{"tenant":"other"}})";
  EXPECT_EQ(replayClient().postJson("/a2a", call).body, rpcAnswerText(5, cardHere()));
  EXPECT_EQ(missLog().size(), 1u);
}

TEST_F(A2aCardReplayTest, AHeadOfACardAnnouncesTheLengthAndTagOfTheCardAGetReceives) {
  recordCards();
  startReplay();
  const auto get = replayClient().get(kWellKnownCard);
  RawClient raw(replayPort());
  raw.send(std::string("HEAD ") + kWellKnownCard + " HTTP/1.1\r\nHost: 127.0.0.1:" +
           std::to_string(replayPort()) + "\r\nConnection: close\r\n\r\n");
  const std::string head = raw.readAll();
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 "));
  EXPECT_THAT(head, HasSubstr("Content-Length: " + std::to_string(get.body.size()) + "\r\n"));
  EXPECT_THAT(head, HasSubstr("ETag: " + get.header("ETag") + "\r\n"));
  EXPECT_THAT(head, EndsWith("\r\n\r\n")) << "a HEAD's answer has no body";
}

TEST_F(A2aCardReplayTest, WithoutHostOnAWildcardListenerTheCardNamesTheAddressTheClientReached) {
  recordCards();
  startReplay([](services::ReplayServiceConfig& config) { config.server.host = "0.0.0.0"; });
  RawClient raw(replayPort());
  raw.send(std::string("GET ") + kWellKnownCard + " HTTP/1.0\r\n\r\n");
  EXPECT_EQ(bodyOfRawAnswer(raw.readAll()), cardHere());
}

TEST_F(A2aCardReplayTest, ACardAskedInProcessWithoutHostIsRefusedNotServedPointingAtTheAgent) {
  recordCards();
  startReplay();
  // Only a caller in the same process can name no Host: the local service names the address a
  // connection reached. The card would have nowhere to send it but the recorded agent.
  const replay::ReplayOutcome outcome =
      replay_->replayer().handle(protocol::HttpRequest{"GET", kWellKnownCard, {}, ""});
  EXPECT_EQ(outcome.reply.status, 400);
  EXPECT_THAT(outcome.reply.body, HasSubstr("replay.a2a.no_host"));
  EXPECT_THAT(outcome.reply.body, Not(HasSubstr(agent_url_)));
}

}  // namespace
}  // namespace agentvcr::testing
