// collectStats() over a small archive recorded with the Recorder: every number checked.

#include "agentvcr/store/stats.hpp"

#include <gtest/gtest.h>

#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using namespace testing;  // NOLINT: the builders of store_test_support.hpp

protocol::Exchange lasting(protocol::Exchange ex, std::int64_t ms) {
  ex.ended_ns = ex.started_ns + ms * 1'000'000;
  return ex;
}

TEST(Stats, NearestRankPercentiles) {
  std::vector<std::int64_t> values;
  for (int i = 1; i <= 10; ++i) {
    values.push_back(i);
  }
  EXPECT_EQ(nearestRank(values, 50), 5);
  EXPECT_EQ(nearestRank(values, 90), 9);
  EXPECT_EQ(nearestRank(values, 95), 10);
  EXPECT_EQ(nearestRank(values, 100), 10);
  EXPECT_EQ(nearestRank({}, 50), 0);
}

TEST(Stats, CountsExchangesLatencyStatusesErrorsToolsEnvAndA2a) {
  TempDir dir;
  const std::string path = dir.file("stats.sqlite");
  {
    Recorder recorder(path, testSession("magma"), testOptions());
    Json m0 = memoryOf("a", 0);
    Json m1 = memoryOf("a", 1);
    Json m2 = memoryOf("a", 2);
    submit(recorder, lasting(magmaExchange(request("r1", {input(1, "user", "press sw1", m0, 2)}),
                                           Json::array({callOutput("r1", 1, 0, m1, "sw1"),
                                                        errorOutput("r1", 1, 1, m0)})),
                             10));
    submit(
        recorder,
        lasting(
            magmaExchange(
                request(
                    "r2",
                    {input(
                        2, "env",
                        R"({"infos": "panda: press_button failed with message: no", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})",
                        m1)}),
                Json::array({callOutput("r2", 2, 0, m2, "sw2")})),
            20));
    submit(recorder, lasting(httpExchange("GET", "/health", "", 503, "{}"), 30));
    recorder.flush();
  }
  {
    Recorder recorder(path, testSession("a2a"), testOptions());
    submit(recorder,
           httpExchange("POST", "/api/v1/a2a",
                        R"({"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}})", 200,
                        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone"}})"));
    recorder.flush();
  }

  ArchiveStats all = collectStats(path, {});
  ASSERT_EQ(all.sessions.size(), 2u);
  const SessionStats& s = all.sessions[0];
  EXPECT_EQ(s.name, "magma");
  EXPECT_EQ(s.exchanges, 3);
  EXPECT_EQ(s.latency.count, 3);
  EXPECT_DOUBLE_EQ(s.latency.p50_ms, 20);
  EXPECT_DOUBLE_EQ(s.latency.p90_ms, 30);
  EXPECT_DOUBLE_EQ(s.latency.max_ms, 30);
  EXPECT_EQ(s.http_statuses, (std::map<int, std::int64_t>{{200, 2}, {503, 1}}));
  EXPECT_EQ(s.steps, 2);
  EXPECT_EQ(s.candidates, 3);
  EXPECT_EQ(s.error_codes, (std::map<std::string, std::int64_t>{{"invalid_output", 1}}));
  EXPECT_EQ(s.tools_by_robot.at("panda").at("press_button"), 2);
  EXPECT_EQ(s.env_steps, 1);
  EXPECT_EQ(s.env_failures, 1);
  EXPECT_TRUE(s.a2a_methods.empty());

  const SessionStats& a = all.sessions[1];
  EXPECT_EQ(a.a2a_methods, (std::map<std::string, std::int64_t>{{"tasks/get", 1}}));
  EXPECT_EQ(a.a2a_errors, (std::map<std::int64_t, std::int64_t>{{-32001, 1}}));

  ArchiveStats only = collectStats(path, {a.session_id});
  ASSERT_EQ(only.sessions.size(), 1u);
  EXPECT_EQ(only.sessions[0].name, "a2a");
}

// What recording cost in bodies: each session's bodies as they crossed the wire and as stored,
// and the whole archive against every session's traffic, whichever sessions were asked for.
TEST(Stats, CountsBodyBytesOnTheWireAndAsStoredAndTheArchivesBytes) {
  TempDir dir;
  const std::string path = dir.file("bytes.sqlite");
  // A body that compresses (kept as a zstd frame with its size on the wire) and one too small to.
  const std::string repetitive = "{\"say\": \"" + std::string(4000, 'a') + "\"}";
  const std::string small = R"({"status":"ready"})";
  {
    Recorder recorder(path, testSession("bytes"), testOptions());
    submit(recorder, httpExchange("POST", "/v1/responses", repetitive, 200, small));
    submit(recorder, httpExchange("GET", "/health", "", 200, small));
    recorder.flush();
  }
  {
    Recorder recorder(path, testSession("other"), testOptions());
    submit(recorder, httpExchange("GET", "/health", "", 200, small));
    recorder.flush();
  }
  const ArchiveStats all = collectStats(path, {});
  ASSERT_EQ(all.sessions.size(), 2u);
  const SessionStats& s = all.sessions[0];
  const auto on_wire = static_cast<std::int64_t>(repetitive.size() + 2 * small.size());
  EXPECT_EQ(s.body_bytes_on_wire, on_wire);
  EXPECT_GT(s.body_bytes_stored, 2 * static_cast<std::int64_t>(small.size()));
  EXPECT_LT(s.body_bytes_stored, on_wire / 4) << "the repetitive body is stored compressed";
  EXPECT_EQ(all.sessions[1].body_bytes_on_wire, static_cast<std::int64_t>(small.size()));
  EXPECT_EQ(all.body_bytes_on_wire, on_wire + static_cast<std::int64_t>(small.size()));
  EXPECT_GT(all.archive_bytes, 0);
  EXPECT_EQ(all.archive_bytes % 512, 0) << "whole pages";

  const ArchiveStats only = collectStats(path, {all.sessions[1].session_id});
  EXPECT_EQ(only.body_bytes_on_wire, all.body_bytes_on_wire) << "every session's traffic";
  EXPECT_EQ(only.archive_bytes, all.archive_bytes);
}

}  // namespace
}  // namespace agentvcr::store
