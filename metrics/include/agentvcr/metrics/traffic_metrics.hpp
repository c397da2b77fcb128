#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <prometheus/metric_family.h>

#include "agentvcr/metrics/labels.hpp"
#include "agentvcr/metrics/thread_shards.hpp"
#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::metrics {

/// What crosses agentvcr's listeners: exchanges by route and status, the agent's think time and
/// the proxy's added latency, bytes, chaos faults, replay's hits, misses and forwards, A2A calls
/// by method and error code. Every writer thread counts into its own shard (thread_shards.hpp);
/// collect() sums them. docs/observability.md lists every metric.
///
/// Thread-safety: every method may be called from any thread, concurrently.
class TrafficMetrics {
 public:
  TrafficMetrics();
  ~TrafficMetrics();
  TrafficMetrics(const TrafficMetrics&) = delete;
  TrafficMetrics& operator=(const TrafficMetrics&) = delete;

  /// One exchange the record relay finished: its route, the status the client got, its bytes,
  /// the agent's think time and the relay's own share when the agent was reached, and its fault.
  void observeRelayed(const protocol::Exchange& exchange);

  /// One answer a local service (replay, a mock) gave to `request`, with the A2A calls it
  /// carried. An answer delivered as a close counts with status `none`.
  void observeServed(const protocol::HttpRequest& request, const protocol::HttpReply& answer);

  /// A chaos fault injected outside the relay (replay's chaos).
  void observeFault(protocol::FaultKind kind);

  /// What replay did with one request's inputs: `hits` answered from the archive, `misses`
  /// not found (forwarded to the live agent when `forwarded`).
  void observeReplay(protocol::magma::Route route, std::size_t hits, std::size_t misses,
                     bool forwarded);

  /// One A2A call, as the indexer or a service decoded it.
  void observeA2aCall(const std::optional<std::string>& method,
                      std::optional<std::int64_t> error_code);

  /// Every family with at least one observation, summed over the threads.
  std::vector<prometheus::MetricFamily> collect() const;

 private:
  struct Shard;
  ThreadShards<Shard> shards_;
};

}  // namespace agentvcr::metrics
