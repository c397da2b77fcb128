#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/otel/sender.hpp"

namespace agentvcr::cli {

/// `agentvcr export`: exchanges of an archive as JSONL, HAR 1.2 or curl commands, or its
/// recordings as OpenTelemetry traces (docs/observability.md).
struct ExportCommand {
  std::string db_path = kDefaultArchive;
  std::string format = "jsonl";  ///< "jsonl", "har", "curl" or "otlp"
  std::vector<std::int64_t> sessions;
  std::vector<std::int64_t> conversations;
  /// Empty: `out`. otlp: the request bodies, one per line, instead of posting them.
  std::string out_path;
  /// otlp: the collector's base URL (--to); empty: the OTEL_EXPORTER_OTLP_* variables.
  std::string to;
  std::vector<std::string> otlp_headers;  ///< otlp: --otlp-header NAME=VALUE
  bool content = false;                   ///< otlp: prompts, outputs and texts too
  otel::RetryPolicy retry;                ///< otlp: how hard to try each request
};

int runExport(const ExportCommand& command, std::ostream& out);

Registration<ExportCommand> registerExport(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
