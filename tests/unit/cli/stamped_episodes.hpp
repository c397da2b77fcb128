#pragma once

// Real archives for the noise, ignore-file and eval exit status tests: the same two-step
// episode recorded as several sessions that differ only in a clock and a trace id in the
// inputs' attributes and a stamp in the tool call's arguments, as two runs of one agent would.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "../store/store_test_support.hpp"
#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/replay_command.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/services/replay_service.hpp"

namespace agentvcr::testing {

/// What varies from one recording of the episode to the next.
struct EpisodeStamps {
  std::string clock;       ///< ISO 8601, in both inputs' attributes (the second a minute later)
  std::string trace_id;    ///< a UUID, in both inputs' attributes
  std::string pressed_at;  ///< ISO 8601, in the first answer's tool call arguments
};

inline const EpisodeStamps kMondayRun = {
    "2026-11-30T09:00:00Z", "0f8fad5b-d9cb-469f-a165-70867728950e", "2026-11-30T09:00:02Z"};
inline const EpisodeStamps kTuesdayRun = {
    "2026-12-01T14:30:00Z", "7c9e6679-7425-40de-944b-e07fc1f90ae7", "2026-12-01T14:30:03Z"};

/// The request of the episode's step `step` (0 or 1) as a caller stamped with `stamps` sends it.
inline protocol::Json stampedRequest(const EpisodeStamps& stamps, int step,
                                     const std::string& request_id) {
  using store::testing::input;
  using store::testing::memoryOf;
  protocol::Json asked = step == 0
                             ? input(7, "user", "Please press sw1",
                                     protocol::Json{{"history", protocol::Json::array()}})
                             : input(7, "user", "Thanks, that is all", memoryOf("episode", 2));
  asked["attributes"]["clock"] = step == 0 ? stamps.clock : stamps.clock.substr(0, 14) + "01:00Z";
  asked["attributes"]["trace_id"] = stamps.trace_id;
  return store::testing::request(request_id, {asked});
}

/// Records the episode into `path` (created or added to) as a session named `name`: "Please
/// press sw1" answered with a press_button call, then "Thanks" answered with a say.
inline void recordStampedEpisode(const std::string& path, const std::string& name,
                                 const EpisodeStamps& stamps) {
  using store::testing::callOutput;
  using store::testing::magmaExchange;
  using store::testing::memoryOf;
  using store::testing::sayOutput;
  store::Recorder recorder(path, store::testing::testSession(name), store::testing::testOptions());
  protocol::Json press = callOutput(name + "-1", 7, 0, memoryOf("episode", 2), "sw1");
  press["output"]["tool_calls"][0]["arguments"]["pressed_at"] = stamps.pressed_at;
  store::testing::submit(recorder, magmaExchange(stampedRequest(stamps, 0, name + "-1"),
                                                 protocol::Json::array({press})));
  store::testing::submit(
      recorder,
      magmaExchange(stampedRequest(stamps, 1, name + "-2"),
                    protocol::Json::array({sayOutput(name + "-2", 7, 0, memoryOf("episode", 4),
                                                     "You are welcome.")})));
  recorder.close();
}

/// Parses `args` (after the program name) on a fresh app with every command registered; the
/// invocation is what would run.
class ParsedCommandLine {
 public:
  explicit ParsedCommandLine(std::vector<std::string> args) {
    cli::registerAll(app_, invocation_, "agentvcr");
    std::reverse(args.begin(), args.end());  // CLI11 takes the vector last argument first
    app_.parse(args);
  }

  /// Runs the parsed command; what it printed is in out() and err().
  int run() { return cli::execute(invocation_, out_, err_); }

  std::string out() const { return out_.str(); }

  std::string err() const { return err_.str(); }

 private:
  CLI::App app_;
  cli::Invocation invocation_;
  std::ostringstream out_;
  std::ostringstream err_;
};

/// `agentvcr replay ARGS` started on a free loopback port (runReplay itself waits for a
/// signal): the live agent of these tests.
class ReplayAgent {
 public:
  explicit ReplayAgent(std::vector<std::string> args) {
    CLI::App app;
    cli::Invocation invocation;
    auto registration = cli::registerReplay(app, invocation);
    args.insert(args.end(), {"--listen", "127.0.0.1:0", "--no-store-misses"});
    std::reverse(args.begin(), args.end());
    app.parse(args);
    if (!invocation.usage_error.empty()) {
      throw std::invalid_argument(invocation.usage_error);
    }
    service_ = std::make_unique<services::ReplayService>(registration.command->config);
    service_->start();
  }

  ~ReplayAgent() { service_->stop(); }

  std::uint16_t port() const { return service_->endpoint().port; }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }

  /// The outputs answered to `request`.
  protocol::Json ask(const protocol::Json& request) const {
    net::HttpClient client("127.0.0.1", port());
    const net::ClientResponse answer = client.send("POST", "/v1/responses", request.dump(),
                                                   {{"content-type", "application/json"}});
    EXPECT_EQ(answer.status, 200) << answer.body;
    return protocol::Json::parse(answer.body);
  }

 private:
  std::unique_ptr<services::ReplayService> service_;
};

}  // namespace agentvcr::testing
