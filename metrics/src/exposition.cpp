#include "agentvcr/metrics/exposition.hpp"

#include <utility>

#include <prometheus/text_serializer.h>

#include "agentvcr/metrics/process_metrics.hpp"

namespace agentvcr::metrics {

Exposition::Exposition(std::string version) : version_(std::move(version)) {}

void Exposition::addTraffic(std::shared_ptr<const TrafficMetrics> traffic) {
  traffic_.push_back(std::move(traffic));
}

void Exposition::addGauge(std::string name, std::string help, std::function<double()> read) {
  readings_.push_back({std::move(name), std::move(help), false, std::move(read)});
}

void Exposition::addCounter(std::string name, std::string help, std::function<double()> read) {
  readings_.push_back({std::move(name), std::move(help), true, std::move(read)});
}

std::string Exposition::scrape() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  for (const auto& traffic : traffic_) {
    for (auto& family : traffic->collect()) {
      families.push_back(std::move(family));
    }
  }
  for (const Reading& reading : readings_) {
    prometheus::ClientMetric sample;
    const double value = reading.read();
    if (reading.counter) {
      sample.counter.value = value;
    } else {
      sample.gauge.value = value;
    }
    families.push_back({reading.name,
                        reading.help,
                        reading.counter ? MetricType::Counter : MetricType::Gauge,
                        {sample}});
  }
  prometheus::ClientMetric build;
  build.label = {{"version", version_}};
  build.gauge.value = 1;
  families.push_back({"agentvcr_build_info",
                      "Always 1; the agentvcr version serving these metrics",
                      MetricType::Gauge,
                      {build}});
  for (auto& family : collectProcessMetrics()) {
    families.push_back(std::move(family));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace agentvcr::metrics
