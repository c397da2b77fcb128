// --pace over real loopback sockets: a generated archive whose agent thought 600 ms before each
// answer, replayed by a ReplayService. At the recorded pace an answer takes at least the think
// time; fast, well under it; at 0.5, about half. An event stream's first event waits the think
// time (streams keep the recorded pace without --pace). Bounds are one-sided or generous: the
// machine may be slow, never faster than the hold.

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "a2a_fixture.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "generated_archive.hpp"
#include "raw_client.hpp"
#include "replay_fixture.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// How long the recorded agent thought before each answer.
constexpr auto kThink = 600ms;
/// Far more than a loopback answer takes, even on a loaded machine.
constexpr auto kSlack = 2s;

class ReplayPaceTest : public ReplayTest {
 protected:
  void SetUp() override {
    archive_ = writeGeneratedArchive(db_path_, {.magma_steps = 12, .seed = 5});
    SQLite::Database db(db_path_, SQLite::OPEN_READWRITE);
    db.exec("UPDATE exchanges SET upstream_sent_ns = upstream_first_byte_ns - " +
            std::to_string(std::chrono::nanoseconds(kThink).count()) +
            " WHERE upstream_first_byte_ns IS NOT NULL");
  }

  void startPaced(double answer_pace, double stream_pace = replay::kRecordedPace) {
    startReplay([&](services::ReplayServiceConfig& config) {
      config.replay.answer_pace = answer_pace;
      config.replay.stream_pace = stream_pace;
    });
  }

  /// How long the first recorded MAGMA request, sent again, takes to be answered.
  Clock::duration timeFirstMagmaAnswer() {
    const protocol::HttpRequest& recorded = archive_.magma.at(0);
    net::HttpClient client = replayClient();
    const auto start = Clock::now();
    const auto answer =
        client.send(recorded.method, recorded.target, recorded.body, recorded.headers);
    const auto took = Clock::now() - start;
    EXPECT_EQ(answer.status, 200) << answer.body;
    return took;
  }

  /// The recorded message/stream call.
  const protocol::HttpRequest& streamCall() const {
    for (const protocol::HttpRequest& call : archive_.a2a) {
      if (call.body.find("message/stream") != std::string::npos) {
        return call;
      }
    }
    throw std::runtime_error("the generated archive has no message/stream call");
  }

  /// When the stream's first and last events arrived, in ms since the request was sent.
  std::vector<double> streamArrivals() {
    RawClient client(replayPort());
    const auto start = Clock::now();
    client.send(rawPost(streamCall().target, streamCall().body, "text/event-stream"));
    return arrivalTimes(client, {"\"submitted\"", "\"completed\""}, start);
  }

  GeneratedArchive archive_;
};

double ms(std::chrono::nanoseconds duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

TEST_F(ReplayPaceTest, AtTheRecordedPaceAnAnswerTakesTheRecordedThinkTime) {
  startPaced(replay::kRecordedPace);
  const auto took = timeFirstMagmaAnswer();
  EXPECT_GE(took, kThink);
  EXPECT_LT(took, kThink + kSlack);
}

TEST_F(ReplayPaceTest, FastAnswersWellUnderTheRecordedThinkTime) {
  startPaced(replay::kFastPace);
  EXPECT_LT(timeFirstMagmaAnswer(), kThink / 2);
}

TEST_F(ReplayPaceTest, AtHalfThePaceAnAnswerTakesHalfTheThinkTime) {
  startPaced(0.5);
  const auto took = timeFirstMagmaAnswer();
  EXPECT_GE(took, kThink / 2);
  EXPECT_LT(took, kThink);
}

TEST_F(ReplayPaceTest, AStreamsFirstEventWaitsTheThinkTimeEvenWhenAnswersAreFast) {
  startPaced(replay::kFastPace, replay::kRecordedPace);
  const std::vector<double> times = streamArrivals();
  ASSERT_EQ(times.size(), 2u);
  EXPECT_GE(times[0], ms(kThink));
  EXPECT_LT(times[1], ms(kThink + kSlack));
}

TEST_F(ReplayPaceTest, AFastStreamComesAtOnceEvenWhenAnswersKeepTheRecordedPace) {
  startPaced(replay::kRecordedPace, replay::kFastPace);
  const std::vector<double> times = streamArrivals();
  ASSERT_EQ(times.size(), 2u);
  EXPECT_LT(times[1], ms(kThink / 2));
}

}  // namespace
}  // namespace agentvcr::testing
