#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "agentvcr/otel/endpoint.hpp"
#include "agentvcr/otel/otlp_json.hpp"
#include "agentvcr/otel/sender.hpp"

/// `agentvcr record --otlp`: traces sent while the recording goes on. The exporter follows the
/// archive the recorder writes through its change feed, like the fleet shipper: it only reads the
/// file, so a slow or absent collector never slows the relay, and what it has not sent waits in
/// the archive (its memory holds one batch and the conversations not yet closed).
namespace agentvcr::otel {

struct LiveOptions {
  std::string db_path;
  OtlpEndpoint endpoint;
  /// Where the exporter keeps how far it sent each session, and resumes from after a restart
  /// (docs/observability.md); empty: nowhere, a restart sends everything again.
  std::string positions_path;
  bool content = false;  ///< see SpanOptions::content
  /// A conversation's root span is sent once nothing was recorded in it for this long, or when
  /// its session ends.
  std::chrono::seconds idle{60};
  std::chrono::milliseconds poll{200};  ///< how often it looks for new rows
  /// Each request is retried until sent or stopped: `attempts` is ignored.
  RetryPolicy retry;
  PayloadLimits limits;
  std::size_t batch_exchanges = 200;  ///< exchanges read per feed batch
  /// One line per outage, recovery or refused request, never per span. Never a header's value.
  std::function<void(const std::string&)> log;
};

struct LiveStats {
  std::uint64_t exchanges = 0;  ///< exchanges whose spans were sent
  std::uint64_t spans = 0;      ///< spans the collector took, roots included
  std::uint64_t roots = 0;      ///< conversation root spans sent
  std::uint64_t requests = 0;   ///< requests the collector took
  std::uint64_t refused = 0;    ///< requests the collector refused for good (dropped)
  std::uint64_t outages = 0;    ///< times the collector stopped answering
  /// When run() returned: exchanges the archive holds whose spans were not sent.
  std::uint64_t left = 0;
};

class LiveExporter {
 public:
  /// Opens the archive read-only and its positions (throws std::runtime_error "[store.open] ..."
  /// or "[store.schema.old] ..." for the archive, "[otel.export] ..." for the positions).
  explicit LiveExporter(LiveOptions options);
  ~LiveExporter();
  LiveExporter(const LiveExporter&) = delete;
  LiveExporter& operator=(const LiveExporter&) = delete;

  /// Follows the archive until stop(), or until finish() and everything is sent.
  void run();

  /// Ends run() from any thread at once: a request in its backoff is abandoned (its spans stay
  /// in the archive).
  void stop();

  /// Ends run() once it has sent what the archive holds now, open conversations' roots included.
  void finish();

  LiveStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::otel
