#pragma once

// Replay between real loopback peers: the scripted demo agent recorded through the proxy into
// a real SQLite file, then that file served by a ReplayService on 127.0.0.1:0.

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/proxy/http_client.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "agentvcr/sim/magma/demo_driver.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

/// The demo's scripted MAGMA agent on 127.0.0.1:0.
class ScriptedAgentServer {
 public:
  ScriptedAgentServer()
      : server_(proxy::ServerOptions{},
                proxy::makeLocalServiceFactory(
                    services::scriptedAgentRoutes(services::loadScriptedAgent(
                        std::string(AGENTVCR_FIXTURES_DIR) + "/demo/agent-script.json")))) {
    server_.start();
  }

  std::uint16_t port() const { return server_.endpoint().port(); }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }

 private:
  proxy::Server server_;
};

inline sim::magma::DemoPlan demoPlan() {
  auto load = sim::magma::loadDemoPlanText(
      services::readTextFile(std::string(AGENTVCR_FIXTURES_DIR) + "/demo/episodes.json"));
  EXPECT_TRUE(load.plan) << load.error;
  return *load.plan;
}

/// Plays `driver` against the agent on `port`, one connection per call as BENCH does.
inline sim::magma::Summary drive(sim::magma::DemoDriver& driver, std::uint16_t port) {
  while (!driver.done()) {
    const std::string body = driver.nextRequestBody();
    if (body.empty()) {
      break;
    }
    proxy::HttpClient client("127.0.0.1", port);
    auto response = client.postJson("/v1/responses", body);
    if (auto error = driver.onResponse(response.status, response.body)) {
      ADD_FAILURE() << "the run was aborted: " << *error;
      break;
    }
  }
  return driver.summary();
}

/// A recording proxy in front of `upstream_url` writing session `name` into `db_path`.
/// The recorder asks the agent for /health and /v1/info at start only when `probe_identity`.
inline std::unique_ptr<proxy::RecordingProxy> startRecording(const std::string& upstream_url,
                                                             const std::string& db_path,
                                                             const std::string& name,
                                                             bool probe_identity = false) {
  proxy::RecordingProxyConfig config;
  config.relay.upstream = *proxy::parseUrl(upstream_url);
  config.server.threads = 2;
  config.db_path = db_path;
  config.session.name = name;
  config.session.mode = "record";
  config.probe_identity = probe_identity;
  auto recording = std::make_unique<proxy::RecordingProxy>(config);
  recording->start();
  return recording;
}

class ReplayTest : public ::testing::Test {
 protected:
  /// Records the demo plan (BENCH-like episodes in 2 slots, a GEN tree with 2 candidates)
  /// played against the scripted agent into the test archive.
  sim::magma::Summary recordDemo(sim::magma::DemoPlan plan = demoPlan()) {
    ScriptedAgentServer agent;
    auto recording = startRecording(agent.url(), db_path_, "recorded");
    {
      // The caller's start-up probes, as BENCH sends them.
      proxy::HttpClient client("127.0.0.1", recording->endpoint().port());
      client.get("/health");
      client.get("/v1/info");
    }
    sim::magma::DemoDriver driver(std::move(plan));
    auto summary = drive(driver, recording->endpoint().port());
    recording->settle();
    recording->stop();
    return summary;
  }

  void startReplay(const std::function<void(services::ReplayServiceConfig&)>& tune = {}) {
    services::ReplayServiceConfig config;
    config.db_path = db_path_;
    config.server.host = "127.0.0.1";
    config.server.port = 0;
    config.server.threads = 2;
    config.log_miss = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mutex_);
      miss_log_.push_back(line);
    };
    if (tune) {
      tune(config);
    }
    replay_ = std::make_unique<services::ReplayService>(std::move(config));
    replay_->start();
  }

  std::uint16_t replayPort() const { return replay_->endpoint().port(); }

  std::string replayUrl() const { return "http://127.0.0.1:" + std::to_string(replayPort()); }

  proxy::HttpClient replayClient() const { return proxy::HttpClient("127.0.0.1", replayPort()); }

  std::vector<std::string> missLog() {
    std::lock_guard<std::mutex> lock(log_mutex_);
    return miss_log_;
  }

  void TearDown() override {
    if (replay_) {
      replay_->stop();
    }
  }

  TempDir temp_;
  std::string db_path_ = temp_.file("archive.sqlite");
  std::unique_ptr<services::ReplayService> replay_;
  std::mutex log_mutex_;
  std::vector<std::string> miss_log_;
};

}  // namespace agentvcr::testing
