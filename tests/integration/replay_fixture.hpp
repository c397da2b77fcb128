#pragma once

// Replay between real loopback peers: the scripted demo agent recorded through the proxy into
// a real SQLite file, then that file served by a ReplayService on 127.0.0.1:0.

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_recording.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

class ReplayTest : public ::testing::Test {
 protected:
  /// The demo plan (BENCH-like episodes in 2 slots, a GEN tree with 2 candidates) played
  /// against the scripted agent, recorded once per test process: a copy is the test archive.
  sim::magma::Summary recordDemo() { return copyOfRecordedDemo(db_path_, "recorded"); }

  /// `plan` played against the scripted agent, recorded into the test archive.
  sim::magma::Summary recordDemo(sim::magma::DemoPlan plan) {
    return testing::recordDemo(db_path_, "recorded", std::move(plan));
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

  std::uint16_t replayPort() const { return replay_->endpoint().port; }

  std::string replayUrl() const { return "http://127.0.0.1:" + std::to_string(replayPort()); }

  net::HttpClient replayClient() const { return net::HttpClient("127.0.0.1", replayPort()); }

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
