#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/metrics/traffic_metrics.hpp"

namespace agentvcr::metrics {

/// The Content-Type of the Prometheus text exposition format that scrape() writes.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

/// Everything one `--metrics-listen` endpoint shows: the traffic its command's listeners count,
/// figures read from their owners at each scrape (the recorder's queue, the shipper's lag), the
/// process's own, and `agentvcr_build_info`. Serialised by prometheus-cpp.
///
/// Thread-safety: add*() before the first scrape; scrape() from any thread. A reader must be
/// safe to call from the scraping thread.
class Exposition {
 public:
  explicit Exposition(std::string version);

  void addTraffic(std::shared_ptr<const TrafficMetrics> traffic);

  /// A figure that goes up and down, read at each scrape.
  void addGauge(std::string name, std::string help, std::function<double()> read);

  /// A figure that only goes up, read at each scrape; `name` ends in `_total`.
  void addCounter(std::string name, std::string help, std::function<double()> read);

  /// The text exposition of everything above.
  std::string scrape() const;

 private:
  struct Reading {
    std::string name;
    std::string help;
    bool counter = false;
    std::function<double()> read;
  };

  std::string version_;
  std::vector<std::shared_ptr<const TrafficMetrics>> traffic_;
  std::vector<Reading> readings_;
};

}  // namespace agentvcr::metrics
