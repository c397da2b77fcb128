// Chaos over real loopback sockets: every fault kind as a raw client sees it, through the
// recording proxy and through replay; what the archive keeps of it; the seed's reproducible
// sequence; the header refused unless chaos was asked for.

#include "agentvcr/protocol/chaos.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "echo_agent.hpp"
#include "proxy_fixture.hpp"
#include "raw_client.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

/// What a raw caller got: the whole text, and how long it took.
struct RawAnswer {
  std::string text;
  std::chrono::milliseconds took{0};
};

class ChaosTest : public ProxyTest {
 protected:
  /// The proxy in front of the well-behaved agent, with `spec` as --chaos (none when empty)
  /// and --chaos-header as `honour_header` says.
  void startChaos(const std::string& spec, bool honour_header,
                  std::chrono::milliseconds upstream_timeout = 10s,
                  store::Durability durability = store::Durability::Normal) {
    startProxy(agent_.url(), [&](proxy::RecordingProxyConfig& config) {
      config.recorder.durability = durability;
      std::optional<protocol::ChaosSpec> parsed;
      if (!spec.empty()) {
        parsed = protocol::parseChaosSpec(spec);
      }
      if (parsed || honour_header) {
        config.relay.chaos = std::make_shared<protocol::Chaos>(parsed, honour_header);
      }
      config.relay.upstream_timeout = upstream_timeout;
    });
  }

  /// POSTs `body` to `port` byte for byte, forcing `fault` when given, and reads to the close.
  static RawAnswer post(std::uint16_t port, const std::string& target, const std::string& body,
                        const std::string& fault = {}) {
    return postWith(port, target, body, fault.empty() ? "" : "X-Agentvcr-Chaos: " + fault + "\r\n");
  }

  /// post() with `header_lines` ("Name: value\r\n"…) as they are, repeated names included.
  static RawAnswer postWith(std::uint16_t port, const std::string& target, const std::string& body,
                            const std::string& header_lines) {
    RawClient raw(port);
    const auto start = std::chrono::steady_clock::now();
    raw.send("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
             header_lines + "Content-Length: " + std::to_string(body.size()) +
             "\r\nConnection: close\r\n\r\n" + body);
    RawAnswer answer;
    answer.text = raw.readAll(10'000ms);
    answer.took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    return answer;
  }

  RawAnswer post(const std::string& target, const std::string& body,
                 const std::string& fault = {}) {
    return post(proxyPort(), target, body, fault);
  }

  /// The body after the header of a raw answer.
  static std::string bodyOf(const std::string& text) {
    const auto end = text.find("\r\n\r\n");
    return end == std::string::npos ? std::string() : text.substr(end + 4);
  }

  /// The only exchange recorded; fails the test unless there is exactly one.
  store::ExchangeRow onlyExchange() {
    auto exchanges = recordedExchanges();
    EXPECT_EQ(exchanges.size(), 1u);
    return exchanges.empty() ? store::ExchangeRow{} : exchanges.front();
  }

  FakeUpstream agent_{echoAgent};
};

/// A kind that never reaches the agent: what the caller sees, and that the archive says
/// `injected` with the kind, without decoding the answer as the agent's.
struct InjectedCase {
  const char* kind;
  const char* target;
  std::string body;
  const char* status_line;  ///< how the raw answer starts; empty: nothing at all
  const char* body_marker;  ///< a part of the body
  int recorded_status;
};

void PrintTo(const InjectedCase& fault, std::ostream* out) {
  *out << fault.kind << " on " << fault.target;
}

class InjectedFaultTest : public ChaosTest, public ::testing::WithParamInterface<InjectedCase> {};

TEST_P(InjectedFaultTest, ReachesTheCallerNeverTheAgentAndIsRecordedAsInjected) {
  const InjectedCase& fault = GetParam();
  startChaos("stall_s=0.3,retry_after_s=2", true);
  const RawAnswer answer = post(fault.target, fault.body, fault.kind);
  if (std::string(fault.status_line).empty()) {
    EXPECT_THAT(answer.text, IsEmpty());
  } else {
    EXPECT_THAT(answer.text, StartsWith(fault.status_line));
    EXPECT_THAT(bodyOf(answer.text), HasSubstr(fault.body_marker));
  }
  EXPECT_THAT(agent_.requests(), IsEmpty());

  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.fault, fault.kind);
  EXPECT_EQ(recorded.outcome, "injected");
  EXPECT_EQ(recorded.status, fault.recorded_status);
  EXPECT_EQ(recorded.request_body, fault.body);
  EXPECT_FALSE(recorded.response_valid.has_value()) << "an injected answer is never validated";
  auto reader = archive();
  for (const store::StepRow& step : reader.stepsOfExchange(recorded.id)) {
    EXPECT_THAT(reader.candidates(step.id), IsEmpty()) << "decoded as the agent's answer";
  }
  for (const store::A2aCallRow& call : reader.a2aCallsOfExchange(recorded.id)) {
    EXPECT_FALSE(call.error_code.has_value()) << "decoded as the agent's error";
    EXPECT_EQ(call.fault, fault.kind);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, InjectedFaultTest,
    ::testing::Values(InjectedCase{"error", "/v1/responses", magmaRequest("a"), "HTTP/1.1 500",
                                   "chaos.error", 500},
                      InjectedCase{"malformed", "/v1/responses", magmaRequest("a"), "HTTP/1.1 200",
                                   "agentvcr_chaos", 200},
                      InjectedCase{"disconnect", "/v1/responses", magmaRequest("a"), "", "", 0},
                      InjectedCase{"stall", "/v1/responses", magmaRequest("a"), "HTTP/1.1 504",
                                   "chaos.stall", 504},
                      InjectedCase{"magma_error", "/v1/responses", magmaRequest("a"),
                                   "HTTP/1.1 200", R"("code":"chaos")", 200},
                      InjectedCase{"rate_limit", "/v1/responses", magmaRequest("a"), "HTTP/1.1 429",
                                   "chaos.rate_limit", 429},
                      InjectedCase{"a2a_error", "/a2a", kA2aRequest, "HTTP/1.1 200", "-32603", 200},
                      InjectedCase{"rate_limit", "/a2a", kA2aRequest, "HTTP/1.1 429",
                                   R"("retryAfter":2)", 429}),
    [](const ::testing::TestParamInfo<InjectedCase>& param_info) {
      return std::string(param_info.param.kind) +
             (param_info.param.target[1] == 'a' ? "_a2a" : "_magma");
    });

TEST_F(ChaosTest, RateLimitTellsTheCallerWhenToRetry) {
  startChaos("retry_after_s=2", false);
  EXPECT_THAT(post("/a2a", kA2aRequest, "rate_limit").text, HasSubstr("Retry-After: 2\r\n"));
}

TEST_F(ChaosTest, LatencyDelaysTheRealAnswerAndKeepsItsOutcome) {
  startChaos("latency_ms=400", true);
  const RawAnswer answer = post("/v1/responses", magmaRequest("slow"), "latency");
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(answer.text, HasSubstr("echo: slow"));
  EXPECT_GE(answer.took, 400ms);
  ASSERT_EQ(agent_.requests().size(), 1u);
  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.fault, "latency");
  EXPECT_EQ(recorded.outcome, "complete");
  // The added time is the proxy's share: the agent's think time does not include it.
  ASSERT_TRUE(recorded.upstream_sent_ns);
  EXPECT_GE(*recorded.upstream_sent_ns - recorded.started_ns, 400'000'000);
}

TEST_F(ChaosTest, TruncateCutsTheRealAnswerMidBodyAndRecordsItWhole) {
  startChaos("", true);
  const RawAnswer answer = post("/v1/responses", magmaRequest("cut"), "truncate");
  ASSERT_EQ(agent_.requests().size(), 1u);
  const std::string whole = echoAgent(agent_.requests().front()).segments.front().bytes;
  const std::string whole_body = bodyOf(whole);
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(answer.text,
              HasSubstr("Content-Length: " + std::to_string(whole_body.size()) + "\r\n"));
  EXPECT_EQ(bodyOf(answer.text), whole_body.substr(0, whole_body.size() / 2));
  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.fault, "truncate");
  EXPECT_EQ(recorded.outcome, "complete");
  EXPECT_EQ(recorded.response_body, whole_body);
  EXPECT_THAT(recorded.error.value_or(""), StartsWith("[chaos.truncate]"));
}

// A streamed answer cut after its first piece: the caller loses the connection at once, while
// the archive keeps every piece the agent went on sending and says how much the caller got.
TEST_F(ChaosTest, TruncateOfAStreamRecordsEveryPieceTheAgentSent) {
  const std::vector<std::string> events = {"data: one\n\n", "data: two\n\n", "data: three\n\n"};
  FakeUpstream streaming([&](const protocol::HttpRequest&) {
    return FakeReply::chunked(200, events, 400ms, "text/event-stream");
  });
  startProxy(streaming.url(), [](proxy::RecordingProxyConfig& config) {
    config.relay.chaos = std::make_shared<protocol::Chaos>(std::nullopt, true);
  });
  const RawAnswer answer = post("/v1/responses", magmaRequest("cut"), "truncate");
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(answer.text, HasSubstr("data: one"));
  EXPECT_THAT(answer.text, Not(HasSubstr("data: two")));
  EXPECT_LT(answer.took, 600ms) << "the caller is cut at once, not when the agent ends";

  ASSERT_TRUE(waitUntil([&] { return recordedExchanges().size() == 1; }));
  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.fault, "truncate");
  EXPECT_EQ(recorded.response_body, events[0] + events[1] + events[2]);
  EXPECT_EQ(archive().streamEvents(recorded.id).size(), 3u) << "each with its arrival time";
  EXPECT_EQ(recorded.error, "[chaos.truncate] the client got the first " +
                                std::to_string(events[0].size()) + " body bytes");
}

TEST_F(ChaosTest, UnderFullDurabilityTheRowCommittedBeforeTheAnswerSaysItWasCut) {
  startChaos("", true, 10s, store::Durability::Full);
  const RawAnswer answer = post("/v1/responses", magmaRequest("cut"), "truncate");
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 200"));
  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.fault, "truncate");
  EXPECT_THAT(recorded.error.value_or(""), StartsWith("[chaos.truncate] the client got "));
}

TEST_F(ChaosTest, TheHeaderNeverReachesTheAgent) {
  startChaos("latency_ms=1", true);
  post("/v1/responses", magmaRequest("a"), "latency");
  ASSERT_EQ(agent_.requests().size(), 1u);
  EXPECT_EQ(protocol::findHeader(agent_.requests().front().headers, protocol::kChaosHeader),
            nullptr);
}

TEST_F(ChaosTest, TheHeaderIsRefusedWithoutChaosOrChaosHeader) {
  startChaos("", false);
  const RawAnswer answer = post("/v1/responses", magmaRequest("a"), "error");
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(answer.text, HasSubstr("chaos.refused"));
  EXPECT_THAT(agent_.requests(), IsEmpty());
  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.outcome, "request_rejected");
  EXPECT_FALSE(recorded.fault.has_value());
  // Without the header the same proxy relays as ever.
  EXPECT_THAT(post("/v1/responses", magmaRequest("a")).text, HasSubstr("echo: a"));
}

/// Two X-Agentvcr-Chaos headers: the first asks for a fault that reaches the agent, so taking
/// it alone would let the request through.
constexpr const char* kTwoChaosHeaders = "X-Agentvcr-Chaos: latency\r\nX-Agentvcr-Chaos: error\r\n";

TEST_F(ChaosTest, TwoChaosHeadersAreRefusedBeforeTheAgent) {
  startChaos("latency_ms=1", true);
  const RawAnswer answer =
      postWith(proxyPort(), "/v1/responses", magmaRequest("a"), kTwoChaosHeaders);
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(answer.text, HasSubstr("chaos.repeated"));
  EXPECT_THAT(agent_.requests(), IsEmpty());
  const store::ExchangeRow recorded = onlyExchange();
  EXPECT_EQ(recorded.outcome, "request_rejected");
  EXPECT_FALSE(recorded.fault.has_value());
}

TEST_F(ChaosTest, TheSeedReproducesTheFaultSequence) {
  int run = 0;
  auto faultsOfARun = [&] {
    db_path_ = temp_.file("run-" + std::to_string(++run) + ".sqlite");
    startChaos("error=0.3,malformed=0.2,seed=11", false);
    for (int i = 0; i < 30; ++i) {
      post("/v1/responses", magmaRequest(std::to_string(i)));
    }
    std::string faults;
    for (const store::ExchangeRow& row : recordedExchanges()) {
      faults += row.fault ? row.fault->substr(0, 1) : ".";
    }
    proxy_->stop();
    return faults;
  };
  const std::string first = faultsOfARun();
  EXPECT_EQ(first.size(), 30u);
  EXPECT_THAT(first, HasSubstr("e"));
  EXPECT_THAT(first, HasSubstr("m"));
  EXPECT_THAT(first, HasSubstr("."));
  EXPECT_EQ(faultsOfARun(), first);
}

TEST_F(ChaosTest, AStallWaitsNoLongerThanTheUpstreamTimeout) {
  startChaos("stall_s=30", true, 300ms);
  const RawAnswer answer = post("/v1/responses", magmaRequest("a"), "stall");
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 504"));
  EXPECT_GE(answer.took, 300ms);
  EXPECT_LT(answer.took, 5s);
}

/// Replay of an archive recorded under chaos, and chaos injected by replay itself.
class ChaosReplayTest : public ChaosTest {
 protected:
  void startReplay(std::shared_ptr<protocol::Chaos> chaos) {
    proxy_->stop();
    services::ReplayServiceConfig config;
    config.db_path = db_path_;
    config.server.port = 0;
    config.server.threads = 2;
    config.store_misses = false;
    config.log_miss = [](const std::string&) {};
    config.chaos = std::move(chaos);
    replay_ = std::make_unique<services::ReplayService>(std::move(config));
    replay_->start();
  }

  RawAnswer ask(const std::string& content, const std::string& fault = {}) {
    return post(replay_->endpoint().port, "/v1/responses", magmaRequest(content), fault);
  }

  void TearDown() override {
    if (replay_) {
      replay_->stop();
    }
    ChaosTest::TearDown();
  }

  std::unique_ptr<services::ReplayService> replay_;
};

TEST_F(ChaosReplayTest, NeverServesAFaultedAnswerButALatencyOne) {
  startChaos("latency_ms=1", true);
  for (const char* kind : {"error", "magma_error", "truncate", "latency"}) {
    post("/v1/responses", magmaRequest(kind), kind);
  }
  ASSERT_EQ(recordedExchanges().size(), 4u);
  startReplay(nullptr);
  EXPECT_THAT(ask("latency").text, HasSubstr("echo: latency"));
  for (const char* kind : {"error", "magma_error", "truncate"}) {
    const std::string answer = ask(kind).text;
    EXPECT_THAT(answer, HasSubstr("replay_miss")) << kind;
    EXPECT_THAT(answer, ::testing::Not(HasSubstr("echo:"))) << kind;
  }
}

TEST_F(ChaosReplayTest, InjectsFaultsInPlaceOfRecordedAnswersAndKeepsThemForTheRetry) {
  startChaos("", false);
  post("/v1/responses", magmaRequest("a"));
  startReplay(std::make_shared<protocol::Chaos>(protocol::parseChaosSpec("latency_ms=300"), false));
  EXPECT_THAT(ask("a", "error").text, StartsWith("HTTP/1.1 500"));
  EXPECT_THAT(ask("a", "disconnect").text, IsEmpty());
  // The injected faults never used the recorded answer: it is still there.
  const RawAnswer cut = ask("a", "truncate");
  const std::string promised = cut.text.substr(cut.text.find("Content-Length: ") + 16);
  EXPECT_LT(bodyOf(cut.text).size(), std::stoul(promised.substr(0, promised.find('\r'))));
  EXPECT_EQ(replay_->replayer().stats().hits, 1u);
}

TEST_F(ChaosReplayTest, AddsLatencyToTheRecordedAnswer) {
  startChaos("", false);
  post("/v1/responses", magmaRequest("a"));
  startReplay(std::make_shared<protocol::Chaos>(protocol::parseChaosSpec("latency_ms=300"), false));
  const RawAnswer slow = ask("a", "latency");
  EXPECT_THAT(slow.text, HasSubstr("echo: a"));
  EXPECT_GE(slow.took, 300ms);
}

TEST_F(ChaosReplayTest, RefusesTwoChaosHeaders) {
  startChaos("", false);
  post("/v1/responses", magmaRequest("a"));
  startReplay(std::make_shared<protocol::Chaos>(std::nullopt, true));
  const RawAnswer answer =
      postWith(replay_->endpoint().port, "/v1/responses", magmaRequest("a"), kTwoChaosHeaders);
  EXPECT_THAT(answer.text, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(answer.text, HasSubstr("chaos.repeated"));
  EXPECT_EQ(replay_->replayer().stats().hits, 0u) << "the recorded answer was used";
}

TEST_F(ChaosReplayTest, RefusesTheHeaderWithoutChaos) {
  startChaos("", false);
  post("/v1/responses", magmaRequest("a"));
  startReplay(nullptr);
  EXPECT_THAT(ask("a", "error").text, HasSubstr("chaos.refused"));
  EXPECT_THAT(ask("a").text, HasSubstr("echo: a"));
}

}  // namespace
}  // namespace agentvcr::testing
