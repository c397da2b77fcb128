// Replay as a GoogleTest fixture, the way docs/replay.md shows it: a real `agentvcr replay`
// process per test suite, started on a free port and asked over HTTP. The binary and the
// archive come from the environment (AGENTVCR, AGENTVCR_ARCHIVE), as they would in a user's
// own test suite.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/net/url.hpp"

extern char** environ;

namespace {

class ReplayedAgent : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::filesystem::path ready =
        std::filesystem::temp_directory_path() / ("replay-" + std::to_string(getpid()) + ".url");
    std::filesystem::remove(ready);
    std::vector<std::string> args = {std::getenv("AGENTVCR"),
                                     "replay",
                                     "--db",
                                     std::getenv("AGENTVCR_ARCHIVE"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--ready-file",
                                     ready.string()};
    std::vector<char*> argv;
    for (auto& arg : args) {
      argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!std::filesystem::exists(ready) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::ifstream(ready) >> url_;
    std::filesystem::remove(ready);
  }

  static void TearDownTestSuite() {
    kill(pid_, SIGINT);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  /// A client of the replayed agent, as the code under test would hold one.
  static agentvcr::net::HttpClient agent() {
    auto url = agentvcr::net::parseUrl(url_);
    EXPECT_TRUE(url) << "replay did not start";
    return agentvcr::net::HttpClient(url->host, url->port);
  }

  static inline pid_t pid_ = 0;
  static inline std::string url_;
};

TEST_F(ReplayedAgent, IsReady) {
  EXPECT_EQ(agent().get("/health").body, R"({"status":"ready"})");
}

TEST_F(ReplayedAgent, AnswersARecordedInputWithTheRecordedDecision) {
  const std::string request =
      R"({"request_id": "gtest-1", "inputs": [{"id": 5, "instruction": {"type": "user", )"
      R"("content": "Please press sw1"}, "tools": [{"name": "cancel_current_action", )"
      R"("description": "Cancel the current action running on the targeted robot.", )"
      R"("arguments": {}}, {"name": "press_button", "description": "Press a button.", )"
      R"("arguments": {"id": {"description": "Name of the button to press.", "type": "str"}}}], )"
      R"("attributes": {"objects": ["sw0", "sw1", "sw2", "sw3", "sw4"], "known_robots": )"
      R"(["panda"], "robot_statuses": {"panda": "FREE"}}, "memory": {"history": []}, )"
      R"("num_outputs": 1, "extra_keys": {"inference_mode": true}}]})";
  auto response = agent().postJson("/v1/responses", request);
  ASSERT_EQ(response.status, 200);
  EXPECT_NE(response.body.find(R"("request_id":"gtest-1","source_id":5)"), std::string::npos);
  EXPECT_NE(response.body.find(R"("name":"press_button","arguments":{"id":"sw1"})"),
            std::string::npos)
      << response.body;
}

}  // namespace
