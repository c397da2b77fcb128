#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "agentvcr/metrics/traffic_metrics.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/chaos.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::store {
class Recorder;
}

namespace agentvcr::proxy {

/// Limits and timeouts of the recording relay. Every one has a named default and a test.
struct RelayOptions {
  net::Url upstream;
  /// Largest request body accepted from a client; larger gets 413.
  std::uint64_t max_request_body = 64ull << 20;
  /// Largest request or response header block; a larger request header gets 431.
  std::uint32_t max_header_bytes = 64u << 10;
  /// Responses whose Content-Length is at most this are read whole and written to the client
  /// in one write; anything else (chunked, SSE, larger) is relayed chunk by chunk.
  std::uint64_t buffered_response_limit = 1ull << 20;
  /// Response bytes kept in the archive per exchange; the client always gets all of them.
  std::uint64_t max_recorded_response_body = 256ull << 20;
  /// Connect (and TLS handshake) to the upstream.
  std::chrono::milliseconds connect_timeout{10'000};
  /// Waiting for the upstream's response, and between two of its body chunks. Longer than
  /// BENCH's 360 s agent timeout, so the caller gives up first, as it would without us.
  std::chrono::milliseconds upstream_timeout{600'000};
  /// A client connection with no request in progress is closed after this.
  std::chrono::milliseconds client_idle_timeout{300'000};
  /// Once a request's first byte has arrived, its whole header must arrive within this; a
  /// client trickling it (slowloris) gets 408 and the connection is closed.
  std::chrono::milliseconds client_header_timeout{10'000};
  /// Reading one request (header and body) or writing one response chunk to the client.
  std::chrono::milliseconds client_io_timeout{60'000};
  /// Idle upstream connections kept per worker for reuse.
  std::size_t max_idle_upstream_connections = 256;
  /// Hold each response's last bytes back until its exchange is committed to the archive
  /// (`--durability full`): whatever response a client has received whole is in the archive,
  /// even if the proxy is killed the next instant. Costs one commit wait per exchange.
  bool commit_before_answer = false;
  /// Verify the upstream's TLS certificate and host name (https upstreams).
  bool verify_tls = true;
  /// Extra certificate authorities (PEM file) trusted besides the system's, for agents
  /// behind a private CA. Empty: the system's only.
  std::string ca_file;
  /// Point the agent cards the relay passes on at the relay (docs/record.md, "Agent cards"):
  /// their JSON-RPC and HTTP+JSON interfaces under `upstream` move to `public_url`, so that a
  /// client following a card keeps going through the recorder. Off: `--no-rewrite-card`.
  bool rewrite_cards = true;
  /// Where clients reach the relay ("http://127.0.0.1:8080"). Empty: the Host a request names.
  std::string public_url;
  /// Faults injected on purpose (`--chaos`, `--chaos-header`). Null: none, and a request that
  /// asks for one with X-Agentvcr-Chaos is refused.
  std::shared_ptr<protocol::Chaos> chaos;
  /// Where each finished exchange is counted (`--metrics-listen`). Null: not counted.
  std::shared_ptr<metrics::TrafficMetrics> metrics;
};

/// What the relay reports about itself while it runs. Shared by all workers.
struct RelayCounters {
  /// Exchanges whose request has arrived and that are not yet handed to the recorder. Zero
  /// means every exchange a client has seen an answer to is queued for the archive.
  std::atomic<std::int64_t> unrecorded{0};
};

/// The record tap in front of one upstream: relays every exchange byte for byte and hands a
/// copy of each finished exchange to `recorder`. `recorder` and `counters` must outlive the
/// server.
HandlerFactory makeRelayFactory(std::shared_ptr<const RelayOptions> options,
                                store::Recorder& recorder, RelayCounters& counters);

}  // namespace agentvcr::proxy
