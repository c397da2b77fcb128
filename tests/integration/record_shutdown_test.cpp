// `agentvcr record` as a child process, stopped while an agent call outlives the drain: the
// agent did run the request, so the exchange is recorded as far as it went, cut with
// `[proxy.shutdown]`, and a log line names it. A second signal stops at once, after saying what
// it cuts.

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr_process.hpp"
#include "fake_upstream.hpp"
#include "temp_dir.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

/// What the caller of a cut request got: a status (0: the connection was cut) and a body.
struct CallerResult {
  int status = 0;
  std::string body;
};

class RecordShutdownTest : public ::testing::Test {
 protected:
  /// `agentvcr record` in front of the fake agent, with `extra` arguments.
  void startRecord(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"record", "--upstream", agent_.url(),  "--db",
                                     db_,      "--listen",   "127.0.0.1:0", "--ready-file",
                                     ready_,   "--no-probe"};
    args.insert(args.end(), extra.begin(), extra.end());
    record_ = std::make_unique<AgentvcrProcess>(args, out_, err_);
    port_ = readyPort(ready_);
    ASSERT_NE(port_, 0) << "agentvcr record never became ready: " << readWhole(err_);
  }

  /// Sends `target` from another thread; its result once the proxy answered or cut it.
  std::future<CallerResult> call(const std::string& target) {
    return std::async(std::launch::async, [port = port_, target] {
      CallerResult result;
      try {
        net::HttpClient client("127.0.0.1", port, 120s);
        const auto response = client.postJson(target, R"({"request_id": "cut-me"})");
        result.status = response.status;
        result.body = response.body;
      } catch (const std::exception&) {
        result.status = 0;  // cut mid-answer
      }
      return result;
    });
  }

  /// Waits until the agent has the request: from then on the agent has run it.
  void untilTheAgentHasIt() {
    ASSERT_TRUE(waitUntil([&] { return !agent_.requests().empty(); }, 30s));
    // And, for a streamed answer, until the proxy relayed what came first.
    std::this_thread::sleep_for(200ms);
  }

  /// The only exchange of the archive, read once the recorder has exited.
  store::ExchangeRow onlyExchange() {
    store::ArchiveReader reader(db_);
    const auto rows = reader.exchanges(reader.sessions().at(0).id, 0, 10);
    EXPECT_EQ(rows.size(), 1u) << "the cut exchange has no row";
    if (rows.empty()) {
      return {};
    }
    return *reader.exchange(rows.front().id);
  }

  /// The agent takes a minute to answer /slow; /stream sends its first piece, then stalls.
  FakeUpstream agent_{[](const protocol::HttpRequest& request) {
    if (request.target == "/stream") {
      // The header and the first piece at once, then a minute of silence.
      FakeReply reply = FakeReply::chunked(200, {"first piece;", "never sent"});
      reply.segments[0].bytes += reply.segments[1].bytes;
      reply.segments[0].pause = 60s;
      reply.segments.erase(reply.segments.begin() + 1);
      return reply;
    }
    FakeReply reply = FakeReply::http(200, "[]");
    reply.delay = 60s;
    return reply;
  }};
  TempDir temp_;
  std::string db_ = temp_.file("archive.sqlite");
  std::string ready_ = temp_.file("ready");
  std::string out_ = temp_.file("record.out");
  std::string err_ = temp_.file("record.err");
  std::unique_ptr<AgentvcrProcess> record_;
  std::uint16_t port_ = 0;
};

TEST_F(RecordShutdownTest, AnExchangeThatOutlivesTheDrainIsRecordedAsCut) {
  startRecord();  // the default drain: 10 s
  std::future<CallerResult> caller = call("/slow");
  untilTheAgentHasIt();
  const auto stopped_at = std::chrono::steady_clock::now();
  EXPECT_EQ(record_->stop(SIGTERM), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - stopped_at, 9s) << "did not drain";

  const CallerResult got = caller.get();
  EXPECT_EQ(got.status, 503);
  EXPECT_THAT(got.body, HasSubstr("proxy.shutdown"));
  const store::ExchangeRow cut = onlyExchange();
  EXPECT_EQ(cut.target, "/slow");
  EXPECT_EQ(cut.request_body, R"({"request_id": "cut-me"})");
  EXPECT_THAT(cut.error.value_or(""), StartsWith("[proxy.shutdown]"));
  EXPECT_EQ(cut.outcome, "upstream_timeout");
  const std::string log = readWhole(err_);
  EXPECT_THAT(log, HasSubstr("[proxy.shutdown]"));
  EXPECT_THAT(log, HasSubstr("POST /slow"));
}

TEST_F(RecordShutdownTest, DrainTimeoutSetsHowLongTheDrainWaits) {
  startRecord({"--drain-timeout", "1"});
  std::future<CallerResult> caller = call("/slow");
  untilTheAgentHasIt();
  const auto stopped_at = std::chrono::steady_clock::now();
  EXPECT_EQ(record_->stop(SIGTERM), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - stopped_at, 8s);
  EXPECT_EQ(caller.get().status, 503);
  EXPECT_THAT(onlyExchange().error.value_or(""), StartsWith("[proxy.shutdown]"));
}

TEST_F(RecordShutdownTest, ASecondSignalCutsAtOnceAndKeepsWhatArrived) {
  startRecord();  // a drain of 10 s that the second signal cuts short
  std::future<CallerResult> caller = call("/stream");
  untilTheAgentHasIt();
  const auto stopped_at = std::chrono::steady_clock::now();
  record_->signal(SIGTERM);
  ASSERT_TRUE(waitUntil([&] { return readWhole(out_).find("draining") != std::string::npos; }));
  record_->signal(SIGTERM);
  EXPECT_EQ(record_->wait(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - stopped_at, 5s) << "the second signal was ignored";

  EXPECT_EQ(caller.get().status, 0) << "the answer had begun: the caller's connection is cut";
  const store::ExchangeRow cut = onlyExchange();
  EXPECT_EQ(cut.target, "/stream");
  EXPECT_EQ(cut.status, 200);
  EXPECT_EQ(cut.response_body, "first piece;") << "what arrived of the answer is kept";
  EXPECT_THAT(cut.error.value_or(""), StartsWith("[proxy.shutdown]"));
  EXPECT_THAT(readWhole(out_), HasSubstr("again, stopping now"));
  const std::string log = readWhole(err_);
  EXPECT_THAT(log, HasSubstr("[proxy.shutdown]"));
  EXPECT_THAT(log, HasSubstr("POST /stream"));
}

}  // namespace
}  // namespace agentvcr::testing
