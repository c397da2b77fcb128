#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "agentvcr/metrics/traffic_metrics.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::proxy {

/// Decides the answer to one request without touching a socket. Runs on a worker thread and
/// may run on several workers at once: it must be safe to call concurrently.
using LocalHandler = std::function<protocol::HttpReply(const protocol::HttpRequest&)>;

struct LocalServiceOptions {
  std::uint64_t max_request_body = 64ull << 20;
  std::uint32_t max_header_bytes = 64u << 10;
  std::chrono::milliseconds idle_timeout{300'000};
  /// Where each answer is counted, with the A2A calls it carried (`--metrics-listen`). Null:
  /// not counted.
  std::shared_ptr<metrics::TrafficMetrics> metrics;
};

/// Serves `handler` over HTTP/1.1 keep-alive: the HTTP face of the mock agent (and of replay).
/// A request that names no Host reaches the handler with the address its connection reached as
/// its Host; a HEAD is answered with the header of the handler's answer alone.
HandlerFactory makeLocalServiceFactory(LocalHandler handler, LocalServiceOptions options = {});

}  // namespace agentvcr::proxy
