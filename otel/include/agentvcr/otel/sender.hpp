#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "agentvcr/otel/endpoint.hpp"

/// Posting OTLP/HTTP JSON requests to a collector, retrying what the specification says to
/// retry: 429, 502, 503, 504 and failed connections, with exponential backoff and Retry-After.
namespace agentvcr::otel {

struct RetryPolicy {
  int attempts = 5;  ///< tries per request, the first included; 0: until the wait says stop
  std::chrono::milliseconds first{500};       ///< first wait after a failure, doubled up to
  std::chrono::milliseconds max{30'000};      ///< ... this (and the most a Retry-After is honoured)
  std::chrono::milliseconds timeout{10'000};  ///< per request: connecting, sending, the answer
};

/// How a request ended.
enum class Delivery {
  Sent,     ///< the collector took it (2xx)
  Refused,  ///< the collector answered with a status that retrying will not change
  GaveUp,   ///< every attempt failed with a retryable error
  Stopped,  ///< the wait said stop before it was sent
};

/// Waits `d` between attempts; false to stop waiting (shutting down).
using RetryWait = std::function<bool(std::chrono::milliseconds d)>;

/// Sleeps the whole wait, for a command that has nothing else to do.
RetryWait sleepingWait();

/// Thread-safety: one thread at a time.
class OtlpSender {
 public:
  explicit OtlpSender(OtlpEndpoint endpoint, RetryPolicy retry = {});
  ~OtlpSender();
  OtlpSender(const OtlpSender&) = delete;
  OtlpSender& operator=(const OtlpSender&) = delete;

  /// Posts one request body, retrying as the policy says and waiting through `wait`.
  Delivery send(const std::string& body, const RetryWait& wait);

  /// Why the last send() did not end Sent (or, Sent, why it needed retries): the status and
  /// the collector's message, or the connection error. Never a header's value.
  const std::string& lastError() const { return last_error_; }

  /// Attempts that failed and were retried, over every send().
  std::uint64_t retries() const { return retries_; }

  const OtlpEndpoint& endpoint() const { return endpoint_; }

 private:
  struct Client;
  OtlpEndpoint endpoint_;
  RetryPolicy retry_;
  std::unique_ptr<Client> client_;
  std::string last_error_;
  std::uint64_t retries_ = 0;
};

}  // namespace agentvcr::otel
