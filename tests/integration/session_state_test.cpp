// Whether a session's recorder still runs, as `agentvcr ls` tells it. A recorder holds a lock on
// its session for as long as it runs, which the kernel drops when the process dies: a session
// whose recorder was SIGKILLed shows as interrupted, whatever runs on the archive afterwards.

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr_process.hpp"
#include "fake_upstream.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

class SessionStateTest : public ::testing::Test {
 protected:
  /// `agentvcr record` on the test's archive, answering one request before it is handed over.
  std::unique_ptr<AgentvcrProcess> startRecord() {
    const std::string run = std::to_string(++starts_);
    const std::string ready = temp_.file("ready-" + run);
    auto process = std::make_unique<AgentvcrProcess>(
        std::vector<std::string>{"record", "--upstream", agent_.url(), "--db", db_, "--listen",
                                 "127.0.0.1:0", "--ready-file", ready, "--no-probe"},
        temp_.file("record-" + run + ".out"), temp_.file("record-" + run + ".err"));
    const std::uint16_t port = readyPort(ready);
    EXPECT_NE(port, 0) << "agentvcr record never became ready";
    if (port != 0) {
      net::HttpClient client("127.0.0.1", port);
      EXPECT_EQ(client.postJson("/v1/responses", R"({"request_id": "r)" + run + R"("})").status,
                200);
    }
    return process;
  }

  /// The line `agentvcr ls` prints for session `id`.
  std::string lsLine(int id) {
    const Finished ls = runAgentvcr({"ls", "--db", db_}, temp_.path().string());
    EXPECT_EQ(ls.status, 0) << ls.err;
    std::istringstream lines(ls.out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind(std::to_string(id) + " ", 0) == 0) {
        return line;
      }
    }
    ADD_FAILURE() << "no session " << id << " in:\n" << ls.out;
    return {};
  }

  FakeUpstream agent_{[](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); }};
  TempDir temp_;
  std::string db_ = temp_.file("archive.sqlite");
  int starts_ = 0;
};

TEST_F(SessionStateTest, ASessionIsRunningWhileItsRecorderRunsAndEndsWithIt) {
  auto record = startRecord();
  EXPECT_THAT(lsLine(1), HasSubstr("running"));
  EXPECT_EQ(record->stop(SIGTERM), 0);
  const std::string ended = lsLine(1);
  EXPECT_THAT(ended, Not(HasSubstr("running")));
  EXPECT_THAT(ended, Not(HasSubstr("interrupted")));
}

TEST_F(SessionStateTest, AKilledRecordersSessionIsInterruptedWhateverRunsAfterIt) {
  auto killed = startRecord();
  ASSERT_THAT(lsLine(1), HasSubstr("running"));
  EXPECT_EQ(killed->stop(SIGKILL), -SIGKILL);
  EXPECT_THAT(lsLine(1), HasSubstr("interrupted"));

  // A new recorder on the same archive: the killed one's session stays interrupted beside it.
  auto next = startRecord();
  EXPECT_THAT(lsLine(1), HasSubstr("interrupted"));
  EXPECT_THAT(lsLine(2), HasSubstr("running"));
  EXPECT_EQ(next->stop(SIGTERM), 0);

  const Finished migrate = runAgentvcr({"migrate", "--db", db_}, temp_.path().string());
  EXPECT_EQ(migrate.status, 0) << migrate.err;
  EXPECT_THAT(lsLine(1), HasSubstr("interrupted"));
  EXPECT_THAT(lsLine(2), Not(HasSubstr("interrupted")));
  EXPECT_THAT(lsLine(2), Not(HasSubstr("running")));
}

}  // namespace
}  // namespace agentvcr::testing
