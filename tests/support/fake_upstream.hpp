#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/server.hpp"

namespace boost::asio::ssl {
class context;
}

namespace agentvcr::testing {

/// What the fake agent does with one request: write these byte segments (each followed by a
/// pause), then end as told. Raw bytes let a test send exactly what a broken agent would.
struct FakeReply {
  struct Segment {
    std::string bytes;
    std::chrono::milliseconds pause{0};
  };
  enum class Ending { KeepAlive, Close, Reset };

  std::vector<Segment> segments;
  Ending ending = Ending::KeepAlive;
  /// Wait this long before writing anything (a slow agent).
  std::chrono::milliseconds delay{0};

  /// A well-formed response with Content-Length.
  static FakeReply http(int status, std::string body, std::string content_type = "application/json",
                        std::string extra_headers = "");
  /// A chunked response, one chunk per element, pausing `pause` between chunks.
  static FakeReply chunked(int status, const std::vector<std::string>& chunks,
                           std::chrono::milliseconds pause = {},
                           std::string content_type = "application/json");
};

using FakeHandler = std::function<FakeReply(const protocol::HttpRequest&)>;

/// Certificate and key files (PEM) that make the fake agent speak TLS.
struct FakeTls {
  std::string certificate_file;
  std::string key_file;
};

/// fixtures/tls/: agent-cert.pem, a certificate for 127.0.0.1 that is also the authority a client
/// trusts, and agent-key.pem, its key.
inline const std::string kTlsDir = std::string(AGENTVCR_FIXTURES_DIR) + "/tls";

/// A fake agent on 127.0.0.1:0 that answers each request with whatever the test's handler
/// says, byte for byte, including broken answers. Records the requests it received.
class FakeUpstream {
 public:
  explicit FakeUpstream(FakeHandler handler, std::optional<FakeTls> tls = std::nullopt);
  ~FakeUpstream();

  std::uint16_t port() const { return server_->endpoint().port; }

  std::string url() const {
    return (tls_context_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port());
  }

  /// The requests received so far (exactly as parsed: method, target, headers, body).
  std::vector<protocol::HttpRequest> requests() const;

  /// TCP connections accepted so far.
  int connections() const { return connections_.load(); }

 private:
  class Handler;

  std::shared_ptr<FakeHandler> handler_;
  std::shared_ptr<boost::asio::ssl::context> tls_context_;
  mutable std::mutex mutex_;
  std::vector<protocol::HttpRequest> requests_;
  std::atomic<int> connections_{0};
  std::unique_ptr<proxy::Server> server_;
};

}  // namespace agentvcr::testing
