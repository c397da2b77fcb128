#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "agentvcr/otel/endpoint.hpp"
#include "agentvcr/otel/live_exporter.hpp"

/// The OpenTelemetry options of `record` (live export) and `export --format otlp`
/// (docs/observability.md, "OpenTelemetry traces").
namespace agentvcr::cli {

/// `--otlp-header NAME=VALUE`, repeatable.
void addOtlpHeaderOption(CLI::App* subcommand, std::vector<std::string>& headers);

/// record's --otlp options as given.
struct OtlpArguments {
  std::string url;
  std::vector<std::string> headers;
  unsigned idle_s = 60;
  bool content = false;
};

/// `--otlp URL`, `--otlp-header`, `--otlp-idle S` and `--otlp-content` on `record`.
void addOtlpOptions(CLI::App* record, OtlpArguments& args);

/// The live export `args` ask for into `live` (left empty without --otlp), or a usage error.
std::string configureLiveExport(const OtlpArguments& args, std::optional<otel::LiveOptions>& live);

/// otel::resolveEndpoint() into `endpoint`, or its error as a usage error.
std::string resolveOtlpEndpoint(const std::string& url, const std::vector<std::string>& headers,
                                const otel::EnvLookup& env, otel::OtlpEndpoint& endpoint);

}  // namespace agentvcr::cli
