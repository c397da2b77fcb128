#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::proxy {

/// A request as a local service sees it: whole, body included.
struct LocalRequest {
  std::string method;
  std::string target;
  protocol::Headers headers;
  std::string body;
};

/// One piece of a streamed body (server-sent events), written `delay` after the previous one.
struct StreamChunk {
  std::chrono::nanoseconds delay{0};
  std::string bytes;
};

/// What a local service answers. `content_type` is left out when empty (e.g. for 204);
/// `headers` are written after it (Content-Length is always computed from the body).
struct LocalResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  protocol::Headers headers;
  /// When not empty the response is streamed instead of `body`: chunked transfer encoding,
  /// each piece flushed to the client on its own after its delay.
  std::vector<StreamChunk> stream;
};

/// Decides the answer to one request without touching a socket. Runs on a worker thread and
/// may run on several workers at once: it must be safe to call concurrently.
using LocalHandler = std::function<LocalResponse(const LocalRequest&)>;

struct LocalServiceOptions {
  std::uint64_t max_request_body = 64ull << 20;
  std::uint32_t max_header_bytes = 64u << 10;
  std::chrono::milliseconds idle_timeout{300'000};
};

/// Serves `handler` over HTTP/1.1 keep-alive: the HTTP face of the mock agent (and of replay).
HandlerFactory makeLocalServiceFactory(LocalHandler handler, LocalServiceOptions options = {});

}  // namespace agentvcr::proxy
