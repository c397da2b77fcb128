// `agentvcr record` under a stepped clock, as the fault campaigns run it: AGENTVCR_TEST_CLOCK_STEPS
// moves the clock the recorder and the relay read, the recording goes on, and a schedule that is
// not one stops the command with the offending item named.

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr_process.hpp"
#include "fake_upstream.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

/// Sets an environment variable for the children spawned while it lives.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }

  ~ScopedVariable() { ::unsetenv(name_); }

  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
};

class RecordClockTest : public ::testing::Test {
 protected:
  std::vector<std::string> recordArgs() const {
    return {"record",   "--upstream",  agent_.url(),   "--db", db_,
            "--listen", "127.0.0.1:0", "--ready-file", ready_, "--no-probe"};
  }

  FakeUpstream agent_{[](const protocol::HttpRequest&) { return FakeReply::http(200, "[]"); }};
  TempDir temp_;
  std::string db_ = temp_.file("archive.sqlite");
  std::string ready_ = temp_.file("ready");
};

TEST_F(RecordClockTest, TheRecordedClockStepsAsTheEnvironmentSays) {
  const std::int64_t day_ns = std::chrono::nanoseconds(24h).count();
  std::unique_ptr<AgentvcrProcess> record;
  {
    const ScopedVariable steps("AGENTVCR_TEST_CLOCK_STEPS", "0:-86400000");
    record = std::make_unique<AgentvcrProcess>(recordArgs(), temp_.file("out"), temp_.file("err"));
  }
  const std::uint16_t port = readyPort(ready_);
  ASSERT_NE(port, 0) << readWhole(temp_.file("err"));
  const std::int64_t asked_ns = protocol::nowNs();
  EXPECT_EQ(net::HttpClient("127.0.0.1", port).postJson("/v1/responses", "{}").status, 200);
  EXPECT_EQ(record->stop(SIGTERM), 0);
  EXPECT_THAT(readWhole(temp_.file("out")), HasSubstr("AGENTVCR_TEST_CLOCK_STEPS"));

  store::ArchiveReader reader(db_);
  const store::SessionRow session = reader.sessions().at(0);
  EXPECT_LT(session.started_ns, asked_ns - day_ns + std::chrono::nanoseconds(1h).count());
  const auto exchanges = reader.exchanges(session.id, 0, 10);
  ASSERT_EQ(exchanges.size(), 1u);
  const std::int64_t shift = asked_ns - exchanges[0].started_ns;
  EXPECT_GT(shift, day_ns - std::chrono::nanoseconds(1h).count()) << "the relay's stamp";
  EXPECT_LT(shift, day_ns + std::chrono::nanoseconds(1h).count());
}

TEST_F(RecordClockTest, AScheduleThatIsNotOneIsRefusedByName) {
  const ScopedVariable steps("AGENTVCR_TEST_CLOCK_STEPS", "500:-60000,soon:1");
  const Finished run = runAgentvcr(recordArgs(), temp_.path().string());
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.err, HasSubstr("AGENTVCR_TEST_CLOCK_STEPS: 'soon:1'"));
}

}  // namespace
}  // namespace agentvcr::testing
