#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace agentvcr::testing {

/// A plain TCP client for tests that need to send exactly some bytes (a truncated body, a
/// malformed header) and see exactly what comes back.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void send(const std::string& bytes);
  /// Reads until the peer closes or nothing arrives for `quiet`; returns what arrived.
  std::string readAll(std::chrono::milliseconds quiet = std::chrono::milliseconds(2000));
  /// Reads until what arrived since this call contains `marker`, the peer closes, or `timeout`
  /// passes; returns what arrived. For watching a streamed response arrive piece by piece.
  std::string readUntil(const std::string& marker,
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  /// Closes the socket at once (the client vanishes).
  void close();

 private:
  int fd_ = -1;
};

}  // namespace agentvcr::testing
