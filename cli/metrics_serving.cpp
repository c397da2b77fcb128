#include "agentvcr/cli/metrics_serving.hpp"

#include <chrono>
#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/fleet/shipper.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/schema.hpp"

namespace agentvcr::cli {
namespace {

double seconds(std::chrono::nanoseconds d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

void addMetricsListenOption(CLI::App* command, std::string& listen) {
  command
      ->add_option("--metrics-listen", listen,
                   "Serve Prometheus metrics at GET /metrics on this HOST:PORT, a listener of its "
                   "own (docs/observability.md)")
      ->check(CLI::Validator(
          [](const std::string& text) {
            return net::parseHostPort(text) ? std::string() : notHostPort(text);
          },
          "HOST:PORT"));
}

MetricsServing::MetricsServing(std::string listen) : listen_(std::move(listen)) {
  if (listen_.empty()) {
    return;
  }
  traffic_ = std::make_shared<metrics::TrafficMetrics>();
  exposition_ = std::make_shared<metrics::Exposition>(std::string(store::agentvcrVersion()));
  exposition_->addTraffic(traffic_);
}

void MetricsServing::addRecorder(const store::Recorder& recorder) {
  if (!exposition_) {
    return;
  }
  const auto* r = &recorder;
  exposition_->addGauge("agentvcr_recorder_queue_depth",
                        "Items (exchanges, replay misses) waiting in the recorder's queue",
                        [r] { return static_cast<double>(r->stats().queued); });
  exposition_->addCounter(
      "agentvcr_recorder_backpressure_waits_total",
      "Times a connection found the recorder's queue full and waited before its next request",
      [r] { return static_cast<double>(r->stats().refused_full); });
  exposition_->addCounter("agentvcr_recorder_write_errors_total",
                          "Exchanges whose insert into the archive failed (logged)",
                          [r] { return static_cast<double>(r->stats().write_errors); });
  exposition_->addCounter("agentvcr_captured_exchanges_total",
                          "Exchanges committed to the archive as relayed",
                          [r] { return static_cast<double>(r->stats().written); });
  exposition_->addCounter("agentvcr_indexed_exchanges_total",
                          "Exchanges decoded into steps, calls and search rows",
                          [r] { return static_cast<double>(r->stats().indexed); });
  exposition_->addGauge(
      "agentvcr_capture_lag_exchanges", "Exchanges handed to the recorder and not yet committed",
      [r] {
        const store::RecorderStats s = r->stats();
        return static_cast<double>(s.submitted - std::min(s.submitted, s.written + s.write_errors));
      });
  exposition_->addGauge("agentvcr_capture_lag_seconds",
                        "How long the oldest item in the recorder's queue has waited",
                        [r] { return seconds(r->stats().capture_lag); });
  exposition_->addGauge("agentvcr_index_lag_exchanges",
                        "Exchanges committed to the archive and not yet indexed",
                        [r] { return static_cast<double>(r->stats().unindexed); });
  exposition_->addGauge("agentvcr_index_lag_seconds",
                        "How long ago the oldest exchange not yet indexed was committed",
                        [r] { return seconds(r->stats().index_lag); });
}

void MetricsServing::addShipper(const fleet::Shipper& shipper) {
  if (!exposition_) {
    return;
  }
  const auto* s = &shipper;
  exposition_->addGauge("agentvcr_ship_lag_exchanges",
                        "Exchanges committed to the archive and not yet in the fleet archive",
                        [s] { return static_cast<double>(s->stats().lag_exchanges); });
  exposition_->addGauge("agentvcr_ship_lag_seconds",
                        "How long the fleet archive has been missing committed exchanges",
                        [s] { return seconds(s->stats().lag); });
  exposition_->addCounter("agentvcr_shipped_exchanges_total",
                          "Exchanges shipped to the fleet archive",
                          [s] { return static_cast<double>(s->stats().exchanges); });
  exposition_->addCounter("agentvcr_ship_outages_total",
                          "Times PostgreSQL went away or refused a batch",
                          [s] { return static_cast<double>(s->stats().outages); });
  exposition_->addCounter("agentvcr_ship_quarantined_total",
                          "Items PostgreSQL refused, kept in the fleet archive's quarantine",
                          [s] { return static_cast<double>(s->stats().quarantined); });
}

std::unique_ptr<proxy::MetricsEndpoint> MetricsServing::serve(std::ostream& out,
                                                              const std::string& command) {
  if (!exposition_) {
    return nullptr;
  }
  const net::HostPort address = *net::parseHostPort(listen_);  // checked when parsed
  proxy::ServerOptions server;
  server.host = address.host;
  server.port = address.port;
  server.threads = 1;
  server.option = "--metrics-listen";
  auto endpoint = std::make_unique<proxy::MetricsEndpoint>(server, exposition_);
  endpoint->start();
  out << "agentvcr " << command << ": metrics at " << endpoint->endpoint().httpUrl() << "/metrics"
      << std::endl;
  return endpoint;
}

}  // namespace agentvcr::cli
