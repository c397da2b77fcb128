#pragma once

#include <fstream>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "fake_upstream.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

/// A small valid MAGMA request.
inline constexpr const char* kValidRequest =
    R"({"request_id": "r", "inputs": [{"id": 0, "instruction": {"type": "user", "content": "hi"}}]})";

/// A port nothing listens on. Not a port freed a moment ago: under parallel tests the kernel
/// hands it out again, even to this test's own proxy, which then relays to itself.
inline std::uint16_t deadPort() {
  return 1;  // tcpmux: never served on test machines
}

/// A recording proxy on 127.0.0.1:0 in front of an upstream the test chooses, writing a
/// fresh archive in a temp folder.
class ProxyTest : public ::testing::Test {
 protected:
  /// Starts the proxy in front of `upstream_url`; `tune` may adjust limits before start.
  void startProxy(const std::string& upstream_url,
                  const std::function<void(proxy::RecordingProxyConfig&)>& tune = {}) {
    proxy::RecordingProxyConfig config;
    config.relay.upstream = *net::parseUrl(upstream_url);
    config.server.threads = 2;
    config.server.drain_timeout = std::chrono::milliseconds(2000);
    config.db_path = db_path_;
    config.session.name = "test";
    config.session.mode = "record";
    config.probe_identity = false;
    if (tune) {
      tune(config);
    }
    proxy_ = std::make_unique<proxy::RecordingProxy>(config);
    proxy_->start();
  }

  std::uint16_t proxyPort() const { return proxy_->endpoint().port; }

  net::HttpClient client() const { return net::HttpClient("127.0.0.1", proxyPort()); }

  /// Everything recorded so far, committed and readable.
  store::ArchiveReader archive() {
    EXPECT_TRUE(proxy_->settle());
    return store::ArchiveReader(db_path_);
  }

  /// The exchanges of the session, in order.
  std::vector<store::ExchangeRow> recordedExchanges() {
    auto reader = archive();
    std::vector<store::ExchangeRow> rows;
    for (const auto& row : reader.exchanges(proxy_->sessionId(), 0, 10'000)) {
      rows.push_back(*reader.exchange(row.id));
    }
    return rows;
  }

  /// The archive's bytes on disk (main file and WAL), to look for secrets.
  std::string archiveBytes() {
    proxy_->stop();
    std::string bytes;
    for (const char* suffix : {"", "-wal"}) {
      std::ifstream file(db_path_ + suffix, std::ios::binary);
      std::ostringstream content;
      content << file.rdbuf();
      bytes += content.str();
    }
    return bytes;
  }

  void TearDown() override {
    if (proxy_) {
      proxy_->stop();
    }
  }

  TempDir temp_;
  std::string db_path_ = temp_.file("archive.sqlite");
  std::unique_ptr<proxy::RecordingProxy> proxy_;
};

}  // namespace agentvcr::testing
