#include "agentvcr/protocol/chaos.hpp"

#include <map>
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::protocol {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr std::string_view kMagmaRequest =
    R"({"request_id": "r-1", "inputs": [)"
    R"({"id": 3, "instruction": {"type": "user", "content": "hi"}, "memory": {"turn": 2}},)"
    R"({"id": 4, "instruction": {"type": "user", "content": "yo"}, "num_outputs": 2}]})";
constexpr std::string_view kA2aRequest =
    R"({"jsonrpc": "2.0", "id": "call-9", "method": "message/send", "params": {}})";

ChaosCall post(std::string_view target, std::string_view body,
               std::optional<std::string_view> forced = std::nullopt) {
  return ChaosCall{"POST", target, body, forced};
}

std::string invalidMessage(std::string_view spec) {
  try {
    parseChaosSpec(spec);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(ChaosSpecTest, ReadsKindsAndSettingsInAFixedOrder) {
  const ChaosSpec spec =
      parseChaosSpec("rate_limit=0.1, error=0.25,seed=42,stall_s=1.5,latency_ms=250");
  ASSERT_EQ(spec.rates.size(), 2u);
  EXPECT_EQ(spec.rates[0], (ChaosSpec::Rate{FaultKind::Error, 0.25}));
  EXPECT_EQ(spec.rates[1], (ChaosSpec::Rate{FaultKind::RateLimit, 0.1}));
  EXPECT_EQ(spec.seed, 42u);
  EXPECT_EQ(spec.stall, 1500ms);
  EXPECT_EQ(spec.latency, 250ms);
  EXPECT_EQ(parseChaosSpec("error=0.25,rate_limit=0.1,seed=42,stall_s=1.5,latency_ms=250"), spec);
}

TEST(ChaosSpecTest, DefaultsAreAMinuteOfStallAndASecondOfLatency) {
  const ChaosSpec spec = parseChaosSpec("stall=1");
  EXPECT_EQ(spec.stall, 60s);
  EXPECT_EQ(spec.latency, 1s);
  EXPECT_EQ(spec.seed, 0u);
}

TEST(ChaosSpecTest, RefusesWhatItCannotMeanWithTheOffendingItem) {
  EXPECT_THAT(invalidMessage("explode=0.1"), HasSubstr("unknown fault or setting 'explode'"));
  EXPECT_THAT(invalidMessage("error=1.5"), HasSubstr("between 0 and 1"));
  EXPECT_THAT(invalidMessage("error=-0.1"), HasSubstr("between 0 and 1"));
  EXPECT_THAT(invalidMessage("error=nan"), HasSubstr("between 0 and 1"));
  EXPECT_THAT(invalidMessage("error=0.6,malformed=0.6"), HasSubstr("more than 1"));
  EXPECT_THAT(invalidMessage("error=0.1,error=0.2"), HasSubstr("given twice"));
  EXPECT_THAT(invalidMessage("error"), HasSubstr("NAME=VALUE"));
  EXPECT_THAT(invalidMessage("error=0.1,,seed=1"), HasSubstr("empty item"));
  EXPECT_THAT(invalidMessage("seed=x"), HasSubstr("needs a number"));
  EXPECT_THAT(invalidMessage("stall_s=-1"), HasSubstr("duration"));
  EXPECT_EQ(invalidMessage("error=0.5,malformed=0.5"), "(accepted)");
}

TEST(ChaosTest, TheSameSeedDrawsTheSameFaultsAndAnotherSeedOthers) {
  auto sequence = [](std::uint64_t seed) {
    Chaos chaos(parseChaosSpec("error=0.3,malformed=0.2,seed=" + std::to_string(seed)), false);
    std::string faults;
    for (int i = 0; i < 200; ++i) {
      const ChaosDecision decision = chaos.decide(post("/v1/responses", kMagmaRequest));
      faults += decision.fault ? faultName(*decision.fault)[0] : '.';
    }
    return faults;
  };
  EXPECT_EQ(sequence(7), sequence(7));
  EXPECT_NE(sequence(7), sequence(8));
}

TEST(ChaosTest, EachKindFallsOnItsFractionOfRequests) {
  Chaos chaos(parseChaosSpec("error=0.2,disconnect=0.1,rate_limit=0.05,seed=3"), false);
  std::map<std::string, int> counts;
  constexpr int kRequests = 20'000;
  for (int i = 0; i < kRequests; ++i) {
    const ChaosDecision decision = chaos.decide(post("/v1/responses", kMagmaRequest));
    ++counts[decision.fault ? faultName(*decision.fault) : "none"];
  }
  // Deterministic for this seed; the bounds say the draws are uniform, not tuned to it.
  EXPECT_NEAR(counts["error"] / double(kRequests), 0.2, 0.015);
  EXPECT_NEAR(counts["disconnect"] / double(kRequests), 0.1, 0.015);
  EXPECT_NEAR(counts["rate_limit"] / double(kRequests), 0.05, 0.015);
  EXPECT_NEAR(counts["none"] / double(kRequests), 0.65, 0.015);
}

TEST(ChaosTest, RandomFaultsSpareEverythingButPostRequests) {
  Chaos chaos(parseChaosSpec("error=1"), false);
  EXPECT_FALSE(chaos.decide({"GET", "/health", "", std::nullopt}).fault);
  EXPECT_EQ(chaos.draws(), 0u);
  EXPECT_EQ(chaos.decide(post("/v1/responses", kMagmaRequest)).fault, FaultKind::Error);
}

TEST(ChaosTest, AProtocolKindDrawnForAnotherProtocolLeavesTheRequestAlone) {
  Chaos chaos(parseChaosSpec("a2a_error=1"), false);
  EXPECT_FALSE(chaos.decide(post("/v1/responses", kMagmaRequest)).fault);
  EXPECT_EQ(chaos.decide(post("/a2a", kA2aRequest)).fault, FaultKind::A2aError);
  Chaos magma(parseChaosSpec("magma_error=1"), false);
  EXPECT_FALSE(magma.decide(post("/a2a", kA2aRequest)).fault);
  EXPECT_FALSE(magma.decide(post("/v1/responses", "{not json")).fault);
}

TEST(ChaosTest, TheHeaderIsRefusedUnlessChaosWasAskedFor) {
  Chaos off(std::nullopt, false);
  const ChaosDecision refused = off.decide(post("/v1/responses", kMagmaRequest, "error"));
  EXPECT_FALSE(refused.fault);
  ASSERT_TRUE(refused.refusal);
  EXPECT_EQ(refused.refusal->status, 400);
  EXPECT_THAT(refused.refusal->body, HasSubstr("chaos.refused"));
  EXPECT_THAT(refused.refusal_error, HasSubstr("--chaos-header"));

  Chaos header_only(std::nullopt, true);
  EXPECT_EQ(header_only.decide(post("/v1/responses", kMagmaRequest, "stall")).fault,
            FaultKind::Stall);
  EXPECT_FALSE(header_only.decide(post("/v1/responses", kMagmaRequest)).fault);

  Chaos random(parseChaosSpec("error=0"), false);
  EXPECT_EQ(random.decide(post("/v1/responses", kMagmaRequest, " truncate ")).fault,
            FaultKind::Truncate);
}

TEST(ChaosTest, AForcedFaultIsCheckedAndTakesNoDraw) {
  Chaos chaos(parseChaosSpec("error=0.5"), false);
  const ChaosDecision unknown = chaos.decide(post("/v1/responses", kMagmaRequest, "boom"));
  ASSERT_TRUE(unknown.refusal);
  EXPECT_THAT(unknown.refusal->body, HasSubstr("chaos.unknown_kind"));
  const ChaosDecision wrong = chaos.decide(post("/v1/responses", kMagmaRequest, "a2a_error"));
  ASSERT_TRUE(wrong.refusal);
  EXPECT_THAT(wrong.refusal->body, HasSubstr("chaos.not_applicable"));
  EXPECT_EQ(chaos.decide(post("/v1/responses", kMagmaRequest, "latency")).fault,
            FaultKind::Latency);
  EXPECT_EQ(chaos.draws(), 0u);
}

TEST(ChaosAnswerTest, ErrorIsA500NamingTheFault) {
  const Chaos chaos(std::nullopt, true);
  const HttpReply reply = chaos.injectedAnswer(FaultKind::Error, post("/x", ""));
  EXPECT_EQ(reply.status, 500);
  EXPECT_EQ(parseJson(reply.body).value->at("agentvcr_error"), "chaos.error");
  EXPECT_EQ(reply.delivery, Delivery::Whole);
}

TEST(ChaosAnswerTest, MalformedIsA200ThatIsNotJson) {
  const Chaos chaos(std::nullopt, true);
  const HttpReply reply = chaos.injectedAnswer(FaultKind::Malformed, post("/x", ""));
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_FALSE(parseJson(reply.body).value);
}

TEST(ChaosAnswerTest, DisconnectClosesBeforeAnyByteAndStallHoldsThen504) {
  const Chaos chaos(parseChaosSpec("stall_s=2"), true);
  EXPECT_EQ(chaos.injectedAnswer(FaultKind::Disconnect, post("/x", "")).delivery,
            Delivery::CloseBeforeAnswer);
  const HttpReply stall = chaos.injectedAnswer(FaultKind::Stall, post("/x", ""));
  EXPECT_EQ(stall.hold, 2s);
  EXPECT_EQ(stall.status, 504);
}

TEST(ChaosAnswerTest, MagmaErrorIsAValidAnswerOfErrorCandidatesOnly) {
  const Chaos chaos(std::nullopt, true);
  const HttpReply reply =
      chaos.injectedAnswer(FaultKind::MagmaError, post("/v1/responses", kMagmaRequest));
  EXPECT_EQ(reply.status, 200);
  const Json request = *parseJson(kMagmaRequest).value;
  const auto parsed_request = magma::parseAgentRequest(request);
  const auto response =
      magma::parseAgentResponse(*parseJson(reply.body).value, &*parsed_request.value);
  ASSERT_TRUE(response.ok()) << reply.body;
  ASSERT_EQ(response.value->size(), 3u);  // one for input 3, two for input 4
  for (const magma::AgentOutput& output : *response.value) {
    EXPECT_EQ(output.status, magma::OutputStatus::Error);
    EXPECT_EQ(output.error->code, "chaos");
    EXPECT_EQ(output.request_id, "r-1");
  }
  EXPECT_EQ(response.value->front().memory, Json({{"turn", 2}}));  // error candidates keep it
}

TEST(ChaosAnswerTest, A2aErrorAnswersEachCallWithItsId) {
  const Chaos chaos(std::nullopt, true);
  const Json single =
      *parseJson(chaos.injectedAnswer(FaultKind::A2aError, post("/a2a", kA2aRequest)).body).value;
  EXPECT_EQ(single["id"], "call-9");
  EXPECT_EQ(single["error"]["code"], -32603);
  const std::string batch = std::string("[") + std::string(kA2aRequest) +
                            R"(, {"jsonrpc": "2.0", "id": 2, "method": "tasks/get"}])";
  const Json answers =
      *parseJson(chaos.injectedAnswer(FaultKind::A2aError, post("/a2a", batch)).body).value;
  ASSERT_TRUE(answers.is_array());
  EXPECT_EQ(answers[1]["id"], 2);
}

TEST(ChaosAnswerTest, RateLimitIs429WithRetryAfterAndMagisteriumsErrorOnA2a) {
  const Chaos chaos(parseChaosSpec("retry_after_s=3"), true);
  const HttpReply a2a = chaos.injectedAnswer(FaultKind::RateLimit, post("/a2a", kA2aRequest));
  EXPECT_EQ(a2a.status, 429);
  EXPECT_EQ(headerValue(a2a.headers, "Retry-After"), "3");
  const Json body = *parseJson(a2a.body).value;
  EXPECT_EQ(body["error"]["code"], -32003);
  EXPECT_EQ(body["error"]["data"]["retryAfter"], 3);
  const HttpReply magma =
      chaos.injectedAnswer(FaultKind::RateLimit, post("/v1/responses", kMagmaRequest));
  EXPECT_EQ(magma.status, 429);
  EXPECT_EQ(parseJson(magma.body).value->at("agentvcr_error"), "chaos.rate_limit");
}

TEST(ChaosAnswerTest, KindsThatReachTheAgentHaveNoAnswerOfTheirOwn) {
  const Chaos chaos(std::nullopt, true);
  EXPECT_TRUE(faultReachesAgent(FaultKind::Latency));
  EXPECT_TRUE(faultReachesAgent(FaultKind::Truncate));
  EXPECT_FALSE(faultReachesAgent(FaultKind::Stall));
  EXPECT_THROW(chaos.injectedAnswer(FaultKind::Latency, post("/x", "")), std::logic_error);
}

TEST(ChaosTest, EveryKindIsNamedAndReadBack) {
  for (FaultKind kind : kFaultKinds) {
    EXPECT_EQ(faultFromName(faultName(kind)), kind);
  }
  EXPECT_FALSE(faultFromName("Error"));
}

}  // namespace
}  // namespace agentvcr::protocol
