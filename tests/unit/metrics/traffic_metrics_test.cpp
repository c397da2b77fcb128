#include "agentvcr/metrics/traffic_metrics.hpp"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::metrics {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;

const MetricFamily* family(const std::vector<MetricFamily>& families, const std::string& name) {
  for (const MetricFamily& f : families) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

/// The sample of `name` whose labels are exactly `labels`, or null.
const ClientMetric* sample(const std::vector<MetricFamily>& families, const std::string& name,
                           std::vector<ClientMetric::Label> labels) {
  const MetricFamily* f = family(families, name);
  if (f == nullptr) {
    return nullptr;
  }
  for (const ClientMetric& metric : f->metric) {
    if (metric.label == labels) {
      return &metric;
    }
  }
  return nullptr;
}

double counter(const std::vector<MetricFamily>& families, const std::string& name,
               std::vector<ClientMetric::Label> labels) {
  const ClientMetric* found = sample(families, name, std::move(labels));
  return found == nullptr ? -1 : found->counter.value;
}

/// The cumulative count of the bucket whose upper bound is `bound` (seconds).
std::uint64_t bucket(const ClientMetric& histogram, double bound) {
  for (const auto& b : histogram.histogram.bucket) {
    if (b.upper_bound == bound) {
      return b.cumulative_count;
    }
  }
  ADD_FAILURE() << "no bucket " << bound;
  return 0;
}

protocol::Exchange relayed(std::string method, std::string target, int status) {
  protocol::Exchange exchange;
  exchange.method = std::move(method);
  exchange.target = std::move(target);
  exchange.status = status;
  return exchange;
}

TEST(TrafficMetrics, NothingObservedGivesNoFamily) {
  TrafficMetrics metrics;
  EXPECT_TRUE(metrics.collect().empty());
}

TEST(TrafficMetrics, CountsARelayedExchangeByRouteStatusAndBytes) {
  TrafficMetrics metrics;
  protocol::Exchange exchange = relayed("POST", "/v1/responses", 200);
  exchange.request_body = std::string(10, 'q');
  exchange.response_body = std::string(25, 'a');
  metrics.observeRelayed(exchange);
  metrics.observeRelayed(exchange);
  metrics.observeRelayed(relayed("GET", "/health", 503));
  metrics.observeRelayed(relayed("GET", "/anything/else", 0));
  const auto families = metrics.collect();
  EXPECT_EQ(
      counter(families, "agentvcr_exchanges_total", {{"route", "responses"}, {"status", "200"}}),
      2);
  EXPECT_EQ(counter(families, "agentvcr_exchanges_total", {{"route", "health"}, {"status", "503"}}),
            1);
  EXPECT_EQ(counter(families, "agentvcr_exchanges_total", {{"route", "none"}, {"status", "none"}}),
            1);
  EXPECT_EQ(counter(families, "agentvcr_request_bytes_total", {{"route", "responses"}}), 20);
  EXPECT_EQ(counter(families, "agentvcr_response_bytes_total", {{"route", "responses"}}), 50);
  EXPECT_EQ(family(families, "agentvcr_exchanges_total")->metric.size(), 3u);
}

TEST(TrafficMetrics, ThinkTimeAndAddedLatencyFallInTheirBuckets) {
  TrafficMetrics metrics;
  protocol::Exchange exchange = relayed("POST", "/v1/responses", 200);
  exchange.request_ended_ns = 1'000'000'000;
  exchange.upstream_sent_ns = exchange.request_ended_ns + 40'000;               // 40 µs
  exchange.upstream_first_byte_ns = exchange.upstream_sent_ns + 1'200'000'000;  // 1.2 s
  metrics.observeRelayed(exchange);
  const auto families = metrics.collect();

  const ClientMetric* think =
      sample(families, "agentvcr_agent_think_seconds", {{"route", "responses"}});
  ASSERT_NE(think, nullptr);
  EXPECT_EQ(think->histogram.sample_count, 1u);
  EXPECT_DOUBLE_EQ(think->histogram.sample_sum, 1.2);
  EXPECT_EQ(bucket(*think, 1.0), 0u);
  EXPECT_EQ(bucket(*think, 2.5), 1u);
  EXPECT_TRUE(std::isinf(think->histogram.bucket.back().upper_bound));
  EXPECT_EQ(think->histogram.bucket.back().cumulative_count, 1u);

  const ClientMetric* added =
      sample(families, "agentvcr_added_latency_seconds", {{"route", "responses"}});
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(bucket(*added, 25e-6), 0u);
  EXPECT_EQ(bucket(*added, 50e-6), 1u);
  EXPECT_NEAR(added->histogram.sample_sum, 40e-6, 1e-12);
}

TEST(TrafficMetrics, AnExchangeThatNeverReachedTheAgentHasNoThinkTime) {
  TrafficMetrics metrics;
  metrics.observeRelayed(relayed("POST", "/v1/responses", 502));  // refused: no timing points
  const auto families = metrics.collect();
  EXPECT_EQ(family(families, "agentvcr_agent_think_seconds"), nullptr);
  EXPECT_EQ(family(families, "agentvcr_added_latency_seconds"), nullptr);
}

TEST(TrafficMetrics, CountsInjectedFaultsByKind) {
  TrafficMetrics metrics;
  protocol::Exchange exchange = relayed("POST", "/v1/responses", 500);
  exchange.fault = "error";
  metrics.observeRelayed(exchange);
  exchange.fault = "latency";
  metrics.observeRelayed(exchange);
  metrics.observeFault(protocol::FaultKind::Latency);
  const auto families = metrics.collect();
  EXPECT_EQ(counter(families, "agentvcr_chaos_faults_total", {{"kind", "error"}}), 1);
  EXPECT_EQ(counter(families, "agentvcr_chaos_faults_total", {{"kind", "latency"}}), 2);
}

TEST(TrafficMetrics, CountsReplayedInputsByResult) {
  TrafficMetrics metrics;
  metrics.observeReplay(protocol::magma::Route::Responses, 3, 1, false);
  metrics.observeReplay(protocol::magma::Route::Responses, 0, 2, true);
  metrics.observeReplay(protocol::magma::Route::Health, 1, 0, false);
  const auto families = metrics.collect();
  EXPECT_EQ(counter(families, "agentvcr_replay_inputs_total",
                    {{"route", "responses"}, {"result", "hit"}}),
            3);
  EXPECT_EQ(counter(families, "agentvcr_replay_inputs_total",
                    {{"route", "responses"}, {"result", "miss"}}),
            1);
  EXPECT_EQ(counter(families, "agentvcr_replay_inputs_total",
                    {{"route", "responses"}, {"result", "forward"}}),
            2);
  EXPECT_EQ(
      counter(families, "agentvcr_replay_inputs_total", {{"route", "health"}, {"result", "hit"}}),
      1);
}

TEST(TrafficMetrics, CountsTheA2aCallsOfAServedAnswerBatchAndStreamIncluded) {
  TrafficMetrics metrics;
  const protocol::HttpRequest batch{
      "POST",
      "/a2a",
      {},
      R"([{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}},)"
      R"({"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"t"}}])"};
  const protocol::HttpReply batch_answer{
      200,
      "application/json",
      {},
      R"([{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","parts":[]}},)"
      R"({"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found"}}])",
      {}};
  metrics.observeServed(batch, batch_answer);

  const protocol::HttpRequest stream{
      "POST", "/a2a", {}, R"({"jsonrpc":"2.0","id":3,"method":"message/stream","params":{}})"};
  protocol::HttpReply stream_answer{200, "text/event-stream", {}, {}, {}};
  stream_answer.stream = {
      {{}, "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"status-update\"}}\n\n"}};
  metrics.observeServed(stream, stream_answer);

  const protocol::HttpRequest invented{
      "POST", "/a2a", {}, R"({"jsonrpc":"2.0","id":4,"method":"x/y","params":{}})"};
  metrics.observeServed(invented, {200,
                                   "application/json",
                                   {},
                                   R"({"jsonrpc":"2.0","id":4,)"
                                   R"("error":{"code":-32601,"message":"no"}})",
                                   {}});
  metrics.observeServed({"GET", "/health", {}, {}}, {200, "application/json", {}, "{}", {}});
  const auto families = metrics.collect();
  EXPECT_EQ(
      counter(families, "agentvcr_a2a_calls_total", {{"method", "message/send"}, {"code", "none"}}),
      1);
  EXPECT_EQ(
      counter(families, "agentvcr_a2a_calls_total", {{"method", "tasks/get"}, {"code", "-32001"}}),
      1);
  EXPECT_EQ(counter(families, "agentvcr_a2a_calls_total",
                    {{"method", "message/stream"}, {"code", "none"}}),
            1);
  EXPECT_EQ(
      counter(families, "agentvcr_a2a_calls_total", {{"method", "other"}, {"code", "-32601"}}), 1);
  EXPECT_EQ(family(families, "agentvcr_a2a_calls_total")->metric.size(), 4u);
  EXPECT_EQ(counter(families, "agentvcr_exchanges_total", {{"route", "none"}, {"status", "200"}}),
            3);
  EXPECT_EQ(counter(families, "agentvcr_exchanges_total", {{"route", "health"}, {"status", "200"}}),
            1);
  EXPECT_GT(counter(families, "agentvcr_response_bytes_total", {{"route", "none"}}), 100);
}

TEST(TrafficMetrics, AnAnswerDeliveredAsACloseCountsWithoutAStatus) {
  TrafficMetrics metrics;
  protocol::HttpReply closed{200, "application/json", {}, "{}", {}};
  closed.delivery = protocol::Delivery::CloseBeforeAnswer;
  metrics.observeServed({"POST", "/v1/responses", {}, "{}"}, closed);
  const auto families = metrics.collect();
  EXPECT_EQ(
      counter(families, "agentvcr_exchanges_total", {{"route", "responses"}, {"status", "none"}}),
      1);
  EXPECT_EQ(family(families, "agentvcr_response_bytes_total"), nullptr);
}

TEST(TrafficMetrics, WhatCallersInventNeverGrowsTheSeriesCount) {
  TrafficMetrics metrics;
  for (int i = 0; i < 1000; ++i) {
    metrics.observeRelayed(relayed("POST", "/path/" + std::to_string(i), 200 + i));
    metrics.observeA2aCall("method/" + std::to_string(i), -40000 - i);
  }
  const auto families = metrics.collect();
  // Statuses 200..599 each once, then `other`; one route; one method and one code.
  EXPECT_EQ(family(families, "agentvcr_exchanges_total")->metric.size(), 401u);
  EXPECT_EQ(counter(families, "agentvcr_exchanges_total", {{"route", "none"}, {"status", "other"}}),
            600);
  EXPECT_EQ(family(families, "agentvcr_a2a_calls_total")->metric.size(), 1u);
}

TEST(TrafficMetrics, SumsTheShardsOfEveryThread) {
  TrafficMetrics metrics;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10'000; ++i) {
        metrics.observeRelayed(relayed("POST", "/v1/responses", 200));
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(counter(metrics.collect(), "agentvcr_exchanges_total",
                    {{"route", "responses"}, {"status", "200"}}),
            40'000);
}

}  // namespace
}  // namespace agentvcr::metrics
