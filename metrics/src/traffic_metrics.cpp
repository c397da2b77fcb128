#include "agentvcr/metrics/traffic_metrics.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "agentvcr/protocol/sse.hpp"

namespace agentvcr::metrics {
namespace {

using protocol::magma::Route;

constexpr std::int64_t kMicrosecond = 1'000;
constexpr std::int64_t kMillisecond = 1'000'000;
constexpr std::int64_t kSecond = 1'000'000'000;
constexpr double kNsPerSecond = 1e9;

/// An agent thinks for milliseconds (a cache, a rule) to minutes (a chain of model calls); BENCH
/// gives up after 360 s.
constexpr std::array<std::int64_t, 16> kThinkBoundsNs = {
    5 * kMillisecond,     10 * kMillisecond,  25 * kMillisecond,  50 * kMillisecond,
    100 * kMillisecond,   250 * kMillisecond, 500 * kMillisecond, 1 * kSecond,
    2'500 * kMillisecond, 5 * kSecond,        10 * kSecond,       30 * kSecond,
    60 * kSecond,         120 * kSecond,      300 * kSecond,      600 * kSecond};

/// The relay's own share is tens of microseconds on a pooled connection, milliseconds when it
/// must connect (or handshake TLS) first.
constexpr std::array<std::int64_t, 14> kAddedBoundsNs = {
    25 * kMicrosecond,  50 * kMicrosecond, 100 * kMicrosecond,   250 * kMicrosecond,
    500 * kMicrosecond, 1 * kMillisecond,  2'500 * kMicrosecond, 5 * kMillisecond,
    10 * kMillisecond,  25 * kMillisecond, 50 * kMillisecond,    100 * kMillisecond,
    250 * kMillisecond, 1 * kSecond};

/// Per-bucket (not cumulative) counts, the last one past every bound (+Inf), and the sum.
template <std::size_t Bounds>
struct HistogramCells {
  std::array<Count, Bounds + 1> buckets;
  Count sum_ns;

  void observe(const std::array<std::int64_t, Bounds>& bounds, std::int64_t ns) {
    const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), ns) - bounds.begin();
    buckets[static_cast<std::size_t>(bucket)].add();
    sum_ns.add(static_cast<std::uint64_t>(ns));
  }
};

template <std::size_t Bounds>
struct HistogramSum {
  std::array<std::uint64_t, Bounds + 1> buckets{};
  std::uint64_t sum_ns = 0;

  void add(const HistogramCells<Bounds>& cells) {
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      buckets[i] += cells.buckets[i].read();
    }
    sum_ns += cells.sum_ns.read();
  }

  std::uint64_t count() const {
    std::uint64_t total = 0;
    for (const std::uint64_t n : buckets) {
      total += n;
    }
    return total;
  }
};

prometheus::ClientMetric counterSample(std::vector<prometheus::ClientMetric::Label> labels,
                                       std::uint64_t value) {
  prometheus::ClientMetric sample;
  sample.label = std::move(labels);
  sample.counter.value = static_cast<double>(value);
  return sample;
}

template <std::size_t Bounds>
prometheus::ClientMetric histogramSample(std::vector<prometheus::ClientMetric::Label> labels,
                                         const std::array<std::int64_t, Bounds>& bounds,
                                         const HistogramSum<Bounds>& sum) {
  prometheus::ClientMetric sample;
  sample.label = std::move(labels);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < sum.buckets.size(); ++i) {
    cumulative += sum.buckets[i];
    const double bound = i < Bounds ? static_cast<double>(bounds[i]) / kNsPerSecond
                                    : std::numeric_limits<double>::infinity();
    sample.histogram.bucket.push_back({cumulative, bound});
  }
  sample.histogram.sample_count = cumulative;
  sample.histogram.sample_sum = static_cast<double>(sum.sum_ns) / kNsPerSecond;
  return sample;
}

/// Only a JSON object or batch can be a JSON-RPC request: anything else is not worth a parse.
bool mayBeJsonRpc(std::string_view body) {
  const auto first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (body[first] == '{' || body[first] == '[');
}

/// Appends `family` unless nothing was observed in it.
void keepObserved(std::vector<prometheus::MetricFamily>& families,
                  prometheus::MetricFamily family) {
  if (!family.metric.empty()) {
    families.push_back(std::move(family));
  }
}

}  // namespace

struct TrafficMetrics::Shard {
  std::array<std::array<Count, kStatusSlots>, kRouteSlots> exchanges;
  std::array<Count, kRouteSlots> request_bytes;
  std::array<Count, kRouteSlots> response_bytes;
  std::array<HistogramCells<kThinkBoundsNs.size()>, kRouteSlots> think;
  std::array<HistogramCells<kAddedBoundsNs.size()>, kRouteSlots> added;
  std::array<Count, kFaultSlots> faults;
  std::array<std::array<Count, kReplayResultSlots>, kRouteSlots> replay;
  std::vector<std::array<Count, kA2aCodeSlots>> a2a_calls =
      std::vector<std::array<Count, kA2aCodeSlots>>(a2aMethodSlots());
};

TrafficMetrics::TrafficMetrics() = default;
TrafficMetrics::~TrafficMetrics() = default;

void TrafficMetrics::observeRelayed(const protocol::Exchange& exchange) {
  Shard& shard = shards_.local();
  const std::size_t route = routeSlot(protocol::magma::routeOf(exchange.method, exchange.target));
  shard.exchanges[route][statusSlot(exchange.status)].add();
  shard.request_bytes[route].add(exchange.request_body.size());
  shard.response_bytes[route].add(exchange.response_body.size());
  if (exchange.upstream_sent_ns > 0 &&
      exchange.upstream_first_byte_ns >= exchange.upstream_sent_ns) {
    shard.think[route].observe(kThinkBoundsNs,
                               exchange.upstream_first_byte_ns - exchange.upstream_sent_ns);
  }
  if (exchange.upstream_sent_ns > 0 && exchange.request_ended_ns > 0 &&
      exchange.upstream_sent_ns >= exchange.request_ended_ns) {
    shard.added[route].observe(kAddedBoundsNs,
                               exchange.upstream_sent_ns - exchange.request_ended_ns);
  }
  if (!exchange.fault.empty()) {
    if (const auto kind = protocol::faultFromName(exchange.fault)) {
      shard.faults[faultSlot(*kind)].add();
    }
  }
}

void TrafficMetrics::observeServed(const protocol::HttpRequest& request,
                                   const protocol::HttpReply& answer) {
  Shard& shard = shards_.local();
  const Route route = protocol::magma::routeOf(request.method, request.target);
  const std::size_t slot = routeSlot(route);
  const bool answered = answer.delivery != protocol::Delivery::CloseBeforeAnswer;
  shard.exchanges[slot][statusSlot(answered ? answer.status : 0)].add();
  shard.request_bytes[slot].add(request.body.size());
  if (!answered) {
    return;
  }
  std::size_t response_bytes = answer.body.size();
  std::string streamed;
  for (const protocol::StreamPiece& piece : answer.stream) {
    response_bytes += piece.bytes.size();
    streamed += piece.bytes;
  }
  shard.response_bytes[slot].add(response_bytes);
  if (route != Route::None || !mayBeJsonRpc(request.body)) {
    return;
  }
  protocol::a2a::CallExchange exchange{request.method, request.target, {},
                                       request.body,   answer.body,    {}};
  const std::vector<protocol::SseEvent> events = protocol::parseEventStream(streamed);
  for (const protocol::SseEvent& event : events) {
    exchange.stream_data.push_back(event.data);
  }
  for (const protocol::a2a::Call& call : protocol::a2a::decodeCalls(exchange)) {
    observeA2aCall(call.method, call.error_code);
  }
}

void TrafficMetrics::observeFault(protocol::FaultKind kind) {
  shards_.local().faults[faultSlot(kind)].add();
}

void TrafficMetrics::observeReplay(Route route, std::size_t hits, std::size_t misses,
                                   bool forwarded) {
  auto& results = shards_.local().replay[routeSlot(route)];
  results[static_cast<std::size_t>(ReplayResult::Hit)].add(hits);
  const ReplayResult missed = forwarded ? ReplayResult::Forward : ReplayResult::Miss;
  results[static_cast<std::size_t>(missed)].add(misses);
}

void TrafficMetrics::observeA2aCall(const std::optional<std::string>& method,
                                    std::optional<std::int64_t> error_code) {
  shards_.local().a2a_calls[a2aMethodSlot(method)][a2aCodeSlot(error_code)].add();
}

std::vector<prometheus::MetricFamily> TrafficMetrics::collect() const {
  std::array<std::array<std::uint64_t, kStatusSlots>, kRouteSlots> exchanges{};
  std::array<std::uint64_t, kRouteSlots> request_bytes{};
  std::array<std::uint64_t, kRouteSlots> response_bytes{};
  std::array<HistogramSum<kThinkBoundsNs.size()>, kRouteSlots> think{};
  std::array<HistogramSum<kAddedBoundsNs.size()>, kRouteSlots> added{};
  std::array<std::uint64_t, kFaultSlots> faults{};
  std::array<std::array<std::uint64_t, kReplayResultSlots>, kRouteSlots> replay{};
  std::vector<std::array<std::uint64_t, kA2aCodeSlots>> a2a_calls(a2aMethodSlots());
  shards_.forEach([&](const Shard& shard) {
    for (std::size_t route = 0; route < kRouteSlots; ++route) {
      for (std::size_t status = 0; status < kStatusSlots; ++status) {
        exchanges[route][status] += shard.exchanges[route][status].read();
      }
      request_bytes[route] += shard.request_bytes[route].read();
      response_bytes[route] += shard.response_bytes[route].read();
      think[route].add(shard.think[route]);
      added[route].add(shard.added[route]);
      for (std::size_t result = 0; result < kReplayResultSlots; ++result) {
        replay[route][result] += shard.replay[route][result].read();
      }
    }
    for (std::size_t kind = 0; kind < kFaultSlots; ++kind) {
      faults[kind] += shard.faults[kind].read();
    }
    for (std::size_t method = 0; method < a2a_calls.size(); ++method) {
      for (std::size_t code = 0; code < kA2aCodeSlots; ++code) {
        a2a_calls[method][code] += shard.a2a_calls[method][code].read();
      }
    }
  });

  using prometheus::MetricType;
  prometheus::MetricFamily exchange_family{
      "agentvcr_exchanges_total",
      "Exchanges answered, by MAGMA route (none: A2A and plain HTTP) and the status the client "
      "got (none: the connection closed first)",
      MetricType::Counter,
      {}};
  prometheus::MetricFamily request_family{"agentvcr_request_bytes_total",
                                          "Request body bytes received from clients, by route",
                                          MetricType::Counter,
                                          {}};
  prometheus::MetricFamily response_family{"agentvcr_response_bytes_total",
                                           "Response body bytes sent to clients, by route",
                                           MetricType::Counter,
                                           {}};
  prometheus::MetricFamily think_family{
      "agentvcr_agent_think_seconds",
      "The agent's think time: from the request fully written to it to its first response byte",
      MetricType::Histogram,
      {}};
  prometheus::MetricFamily added_family{
      "agentvcr_added_latency_seconds",
      "The relay's own share of an exchange: from the request's last byte read from the client "
      "to the request fully written to the agent (a connect included)",
      MetricType::Histogram,
      {}};
  prometheus::MetricFamily replay_family{
      "agentvcr_replay_inputs_total",
      "Replayed inputs by route and result: hit (answered from the archive), miss, or forward "
      "(asked of the live agent)",
      MetricType::Counter,
      {}};
  for (std::size_t route = 0; route < kRouteSlots; ++route) {
    const std::string route_label = routeLabel(route);
    for (std::size_t status = 0; status < kStatusSlots; ++status) {
      if (exchanges[route][status] > 0) {
        exchange_family.metric.push_back(counterSample(
            {{"route", route_label}, {"status", statusLabel(status)}}, exchanges[route][status]));
      }
    }
    if (request_bytes[route] > 0) {
      request_family.metric.push_back(
          counterSample({{"route", route_label}}, request_bytes[route]));
    }
    if (response_bytes[route] > 0) {
      response_family.metric.push_back(
          counterSample({{"route", route_label}}, response_bytes[route]));
    }
    if (think[route].count() > 0) {
      think_family.metric.push_back(
          histogramSample({{"route", route_label}}, kThinkBoundsNs, think[route]));
    }
    if (added[route].count() > 0) {
      added_family.metric.push_back(
          histogramSample({{"route", route_label}}, kAddedBoundsNs, added[route]));
    }
    for (std::size_t result = 0; result < kReplayResultSlots; ++result) {
      if (replay[route][result] > 0) {
        replay_family.metric.push_back(
            counterSample({{"route", route_label}, {"result", replayResultLabel(result)}},
                          replay[route][result]));
      }
    }
  }
  prometheus::MetricFamily fault_family{"agentvcr_chaos_faults_total",
                                        "Faults injected on purpose (--chaos), by kind",
                                        MetricType::Counter,
                                        {}};
  for (std::size_t kind = 0; kind < kFaultSlots; ++kind) {
    if (faults[kind] > 0) {
      fault_family.metric.push_back(counterSample({{"kind", faultLabel(kind)}}, faults[kind]));
    }
  }
  prometheus::MetricFamily a2a_family{
      "agentvcr_a2a_calls_total",
      "A2A JSON-RPC calls by method and error code (none: answered without error)",
      MetricType::Counter,
      {}};
  for (std::size_t method = 0; method < a2a_calls.size(); ++method) {
    for (std::size_t code = 0; code < kA2aCodeSlots; ++code) {
      if (a2a_calls[method][code] > 0) {
        a2a_family.metric.push_back(
            counterSample({{"method", a2aMethodLabel(method)}, {"code", a2aCodeLabel(code)}},
                          a2a_calls[method][code]));
      }
    }
  }

  std::vector<prometheus::MetricFamily> families;
  for (auto* family : {&exchange_family, &request_family, &response_family, &think_family,
                       &added_family, &fault_family, &replay_family, &a2a_family}) {
    keepObserved(families, std::move(*family));
  }
  return families;
}

}  // namespace agentvcr::metrics
