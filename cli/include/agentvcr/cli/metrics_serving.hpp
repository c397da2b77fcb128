#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "agentvcr/metrics/exposition.hpp"
#include "agentvcr/metrics/traffic_metrics.hpp"
#include "agentvcr/proxy/metrics_endpoint.hpp"

namespace agentvcr::fleet {
class Shipper;
}

namespace agentvcr::store {
class Recorder;
}

namespace agentvcr::cli {

/// `--metrics-listen HOST:PORT`, the same on record, replay and the mocks.
void addMetricsListenOption(CLI::App* command, std::string& listen);

/// A command's `--metrics-listen`. Build it first and hand traffic() to the servers; add the
/// readings of the parts that count for themselves; then serve(). Without `--metrics-listen`
/// every step does nothing and traffic() is null, so the servers count nothing.
class MetricsServing {
 public:
  explicit MetricsServing(std::string listen);

  const std::shared_ptr<metrics::TrafficMetrics>& traffic() const { return traffic_; }

  /// The recorder's queue, back-pressure and capture and index lag. `recorder` outlives this.
  void addRecorder(const store::Recorder& recorder);
  /// The shipper's lag behind the archive. `shipper` outlives this.
  void addShipper(const fleet::Shipper& shipper);

  /// Binds the listener, starts serving and says where on `out`; null without
  /// `--metrics-listen`. Throws on a taken address. The caller keeps the endpoint in a variable
  /// declared after the recorder and the shipper, so that it stops serving before they go.
  std::unique_ptr<proxy::MetricsEndpoint> serve(std::ostream& out, const std::string& command);

 private:
  std::string listen_;
  std::shared_ptr<metrics::TrafficMetrics> traffic_;
  std::shared_ptr<metrics::Exposition> exposition_;
};

}  // namespace agentvcr::cli
