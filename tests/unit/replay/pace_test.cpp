// --pace: the pace parser, the recorded think time (schema 11 timing points, and the fallback
// for older rows), its scaling, and the holds a Replayer sets on its answers over an archive
// whose timing points the test chose. A Replayer only computes holds; nothing here waits.

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../store/store_test_support.hpp"
#include "agentvcr/replay/replay_index.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/store/recorder.hpp"

namespace agentvcr::replay {
namespace {

using namespace std::chrono_literals;
using protocol::HttpRequest;
using protocol::Json;
using store::testing::input;
using store::testing::sayOutput;

constexpr std::int64_t kMs = 1'000'000;

// --- the parser ---

TEST(ParsePace, ReadsTheNamesAndFactors) {
  EXPECT_EQ(parsePace("recorded"), kRecordedPace);
  EXPECT_EQ(parsePace("fast"), kFastPace);
  EXPECT_EQ(parsePace("0.5"), 0.5);
  EXPECT_EQ(parsePace("2"), 2.0);
  EXPECT_EQ(parsePace("0"), 0.0);
  EXPECT_EQ(parsePace("1e-1"), 0.1);
}

TEST(ParsePace, RefusesWhatIsNoFiniteFactorOfAtLeastZero) {
  for (const char* text : {"", "abc", "Recorded", "-0.5", "-1", "nan", "NaN", "inf", "-inf",
                           "1e400", "0.5x", " 1", "1 ", "+1", "0x10"}) {
    EXPECT_EQ(parsePace(text), std::nullopt) << "'" << text << "'";
  }
}

// --- the think time and its scaling ---

TEST(RecordedThinkTime, RunsFromSendingTheRequestToTheFirstAnswerByte) {
  EXPECT_EQ(recordedThinkTime(100 * kMs, 150 * kMs, 550 * kMs), 400ms);
}

TEST(RecordedThinkTime, CountsFromTheRequestsStartWhenTheSendingWasNotTimed) {
  // Rows older than schema 11 have no upstream_sent_ns.
  EXPECT_EQ(recordedThinkTime(100 * kMs, std::nullopt, 550 * kMs), 450ms);
}

TEST(RecordedThinkTime, IsZeroWhenTheAgentNeverAnsweredAndNeverNegative) {
  EXPECT_EQ(recordedThinkTime(100 * kMs, 150 * kMs, std::nullopt), 0ns);
  EXPECT_EQ(recordedThinkTime(100 * kMs, 600 * kMs, 550 * kMs), 0ns);
  EXPECT_EQ(recordedThinkTime(600 * kMs, std::nullopt, 550 * kMs), 0ns);
}

TEST(Paced, ScalesARecordedDurationByThePace) {
  EXPECT_EQ(paced(400ms, kRecordedPace), 400ms);
  EXPECT_EQ(paced(400ms, 0.5), 200ms);
  EXPECT_EQ(paced(400ms, 2), 800ms);
  EXPECT_EQ(paced(400ms, kFastPace), 0ns);
}

TEST(Paced, StaysAPositiveDurationForHugeFactors) {
  const auto held = paced(400ms, std::numeric_limits<double>::max());
  EXPECT_GT(held, std::chrono::hours(24 * 365));
}

TEST(RecordedStepOf, CarriesTheThinkTimeOfItsExchange) {
  store::ReplayStepRef ref;
  ref.started_ns = 100 * kMs;
  ref.upstream_sent_ns = 150 * kMs;
  ref.upstream_first_byte_ns = 550 * kMs;
  EXPECT_EQ(recordedStepOf(ref).think_ns, 400 * kMs);
  ref.upstream_sent_ns.reset();
  EXPECT_EQ(recordedStepOf(ref).think_ns, 450 * kMs);
}

// --- the holds of a Replayer ---

/// A recorded exchange whose agent sent its first answer byte `think` after receiving the
/// request; with `sending_timed` false, as rows older than schema 11 hold it (no
/// upstream_sent_ns), the request's start 20 ms earlier.
protocol::Exchange thoughtFor(protocol::Exchange exchange, std::chrono::milliseconds think,
                              bool sending_timed = true) {
  exchange.request_ended_ns = exchange.started_ns + 10 * kMs;
  exchange.upstream_sent_ns = sending_timed ? exchange.started_ns + 20 * kMs : 0;
  exchange.upstream_first_byte_ns = exchange.started_ns + 20 * kMs + think.count() * kMs;
  exchange.ended_ns = exchange.upstream_first_byte_ns + 5 * kMs;
  return exchange;
}

Json pressInput(std::int64_t id, const std::string& button) {
  return input(id, "user", "Please press " + button, Json{{"history", Json::array()}});
}

/// A MAGMA exchange answering `button`'s input (id 0) with a say.
protocol::Exchange pressExchange(const std::string& button) {
  return store::testing::magmaExchange(
      store::testing::request("r-" + button, {pressInput(0, button)}),
      Json::array({sayOutput("r-" + button, 0, 0, Json{{"history", Json::array()}}, "ok")}));
}

constexpr const char* kStreamRequest =
    R"({"jsonrpc":"2.0","id":7,"method":"message/stream","params":{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"go"}]}}})";

/// An A2A event stream of two events: the first 50 ms after the answer's first byte, the second
/// 100 ms after the first.
protocol::Exchange streamExchange() {
  const std::string first =
      R"(data: {"jsonrpc":"2.0","id":7,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}})"
      "\n\n";
  const std::string second =
      R"(data: {"jsonrpc":"2.0","id":7,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}})"
      "\n\n";
  auto exchange = thoughtFor(
      store::testing::httpExchange("POST", "/a2a", kStreamRequest, 200, first + second), 200ms);
  exchange.response_headers = {{"Content-Type", "text/event-stream"}};
  exchange.response_arrivals = {
      {first.size(), exchange.upstream_first_byte_ns + 50 * kMs},
      {first.size() + second.size(), exchange.upstream_first_byte_ns + 150 * kMs}};
  exchange.ended_ns = exchange.upstream_first_byte_ns + 150 * kMs;
  return exchange;
}

/// An archive of known think times: MAGMA inputs for sw1 (400 ms), sw2 (250 ms) and sw3 (300
/// ms, recorded before schema 11 timed the sending), a coaching session's end (350 ms), an A2A
/// message/send (120 ms) and the event stream above (200 ms).
class PacedReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::Recorder recorder(path_, store::testing::testSession(), store::testing::testOptions());
    store::testing::submit(recorder, thoughtFor(pressExchange("sw1"), 400ms));
    store::testing::submit(recorder, thoughtFor(pressExchange("sw2"), 250ms));
    store::testing::submit(recorder,
                           thoughtFor(pressExchange("sw3"), 300ms, /*sending_timed=*/false));
    store::testing::submit(
        recorder,
        thoughtFor(store::testing::httpExchange("DELETE", "/v1/coaching/sessions/run-1", "", 204),
                   350ms));
    store::testing::submit(
        recorder,
        thoughtFor(store::testing::httpExchange(
                       "POST", "/a2a", store::testing::a2aSend(3, "m-3", "What is grace?"), 200,
                       store::testing::a2aTask(3, "task-3", "ctx", "completed", "grace")),
                   120ms));
    store::testing::submit(recorder, streamExchange());
    recorder.flush();
  }

  ReplayOutcome ask(const ReplayOptions& options, const HttpRequest& request) {
    Replayer replayer(path_, options);
    return replayer.handle(request);
  }

  static HttpRequest responses(std::vector<Json> inputs) {
    return {"POST",
            "/v1/responses",
            {{"Content-Type", "application/json"}},
            store::testing::request("live", std::move(inputs)).dump()};
  }

  static ReplayOptions pacedAt(double answer_pace, double stream_pace = kRecordedPace) {
    ReplayOptions options;
    options.answer_pace = answer_pace;
    options.stream_pace = stream_pace;
    return options;
  }

  store::testing::TempDir dir_;
  std::string path_ = dir_.file("paced.sqlite");
};

TEST_F(PacedReplayTest, AtTheRecordedPaceAnAnswerIsHeldByItsThinkTime) {
  const ReplayOutcome outcome = ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw1")}));
  ASSERT_EQ(outcome.hits, 1u);
  EXPECT_EQ(outcome.reply.hold, 400ms);
}

TEST_F(PacedReplayTest, ByDefaultAnswersComeAtOnce) {
  const ReplayOutcome outcome = ask(ReplayOptions{}, responses({pressInput(5, "sw1")}));
  ASSERT_EQ(outcome.hits, 1u);
  EXPECT_EQ(outcome.reply.hold, 0ns);
}

TEST_F(PacedReplayTest, AFactorScalesTheHold) {
  EXPECT_EQ(ask(pacedAt(0.5), responses({pressInput(5, "sw1")})).reply.hold, 200ms);
  EXPECT_EQ(ask(pacedAt(2), responses({pressInput(5, "sw2")})).reply.hold, 500ms);
}

TEST_F(PacedReplayTest, ABatchOfSeveralRecordedExchangesWaitsTheLongestThinkTime) {
  EXPECT_EQ(ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw2"), pressInput(6, "sw1")}))
                .reply.hold,
            400ms);
  EXPECT_EQ(ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw1"), pressInput(6, "sw2")}))
                .reply.hold,
            400ms);
  // sw3, timed as before schema 11, thought 320 ms counted from its start.
  EXPECT_EQ(ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw2"), pressInput(6, "sw3")}))
                .reply.hold,
            320ms);
}

TEST_F(PacedReplayTest, RowsRecordedBeforeSchema11CountTheThinkTimeFromTheRequestsStart) {
  // sw3's sending was not timed: its 300 ms and the 20 ms before the sending.
  EXPECT_EQ(ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw3")})).reply.hold, 320ms);
}

TEST_F(PacedReplayTest, AMissIsNotHeld) {
  const ReplayOutcome outcome = ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw9")}));
  ASSERT_EQ(outcome.misses.size(), 1u);
  EXPECT_EQ(outcome.reply.hold, 0ns);
  // Beside a hit, the reply still waits for the hit's think time only.
  EXPECT_EQ(ask(pacedAt(kRecordedPace), responses({pressInput(5, "sw9"), pressInput(6, "sw2")}))
                .reply.hold,
            250ms);
}

TEST_F(PacedReplayTest, CoachingAnswersAreHeldByTheirThinkTime) {
  const HttpRequest end{"DELETE", "/v1/coaching/sessions/run-7", {}, ""};
  const ReplayOutcome outcome = ask(pacedAt(kRecordedPace), end);
  ASSERT_EQ(outcome.hits, 1u);
  EXPECT_EQ(outcome.reply.status, 204);
  EXPECT_EQ(outcome.reply.hold, 350ms);
  EXPECT_EQ(ask(pacedAt(kFastPace), end).reply.hold, 0ns);
}

TEST_F(PacedReplayTest, A2aAnswersAreHeldByTheirThinkTime) {
  const HttpRequest send{"POST", "/a2a", {}, store::testing::a2aSend(11, "m-3", "What is grace?")};
  const ReplayOutcome outcome = ask(pacedAt(kRecordedPace), send);
  ASSERT_EQ(outcome.hits, 1u);
  EXPECT_EQ(outcome.reply.hold, 120ms);
  EXPECT_EQ(ask(pacedAt(0.5), send).reply.hold, 60ms);
}

TEST_F(PacedReplayTest, AStreamWaitsTheThinkTimeThenEachEventItsRecordedGap) {
  const HttpRequest stream{"POST", "/a2a", {}, kStreamRequest};
  // Streams keep the recorded pace while answers come at once (no --pace).
  const ReplayOutcome recorded = ask(ReplayOptions{}, stream);
  ASSERT_EQ(recorded.reply.stream.size(), 2u);
  EXPECT_EQ(recorded.reply.hold, 200ms);
  EXPECT_EQ(recorded.reply.stream[0].delay, 50ms);
  EXPECT_EQ(recorded.reply.stream[1].delay, 100ms);

  const ReplayOutcome halved = ask(pacedAt(kFastPace, 0.5), stream);
  ASSERT_EQ(halved.reply.stream.size(), 2u);
  EXPECT_EQ(halved.reply.hold, 100ms);
  EXPECT_EQ(halved.reply.stream[0].delay, 25ms);
  EXPECT_EQ(halved.reply.stream[1].delay, 50ms);

  // --sse-pace fast under --pace recorded: the stream comes at once.
  const ReplayOutcome fast = ask(pacedAt(kRecordedPace, kFastPace), stream);
  ASSERT_EQ(fast.reply.stream.size(), 2u);
  EXPECT_EQ(fast.reply.hold, 0ns);
  EXPECT_EQ(fast.reply.stream[0].delay, 0ns);
  EXPECT_EQ(fast.reply.stream[1].delay, 0ns);
}

TEST_F(PacedReplayTest, TheStatusRouteReportsThePaces) {
  Replayer replayer(path_, pacedAt(0.5, kRecordedPace));
  const auto status = replayer.handle({"GET", "/_agentvcr/replay", {}, ""});
  const auto body = protocol::parseJson(status.reply.body);
  ASSERT_TRUE(body.value);
  EXPECT_EQ((*body.value)["pace"], (Json{{"answers", 0.5}, {"streams", 1.0}}));
  EXPECT_EQ(status.reply.hold, 0ns);
}

}  // namespace
}  // namespace agentvcr::replay
