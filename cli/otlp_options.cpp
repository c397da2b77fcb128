// The OpenTelemetry options of `record` and `export` (docs/observability.md).

#include "agentvcr/cli/otlp_options.hpp"

namespace agentvcr::cli {

void addOtlpHeaderOption(CLI::App* subcommand, std::vector<std::string>& headers) {
  subcommand->add_option("--otlp-header", headers,
                         "Header NAME=VALUE sent to the OTLP collector (repeatable; added to "
                         "OTEL_EXPORTER_OTLP_HEADERS)");
}

void addOtlpOptions(CLI::App* record, OtlpArguments& args) {
  record->add_option("--otlp", args.url,
                     "Also send the recording as OpenTelemetry traces to this OTLP/HTTP collector "
                     "(base URL, /v1/traces appended) as it is indexed; a slow or absent "
                     "collector never slows the relay");
  addOtlpHeaderOption(record, args.headers);
  record
      ->add_option("--otlp-idle", args.idle_s,
                   "With --otlp: seconds without traffic after which a conversation's root span "
                   "is sent")
      ->check(CLI::Range(1u, 86400u))
      ->capture_default_str();
  record->add_flag("--otlp-content", args.content,
                   "With --otlp: include prompts, outputs and instructions (may be private)");
}

std::string resolveOtlpEndpoint(const std::string& url, const std::vector<std::string>& headers,
                                const otel::EnvLookup& env, otel::OtlpEndpoint& endpoint) {
  try {
    endpoint = otel::resolveEndpoint(url, headers, env);
  } catch (const otel::EndpointError& e) {
    return e.what();
  }
  return {};
}

std::string configureLiveExport(const OtlpArguments& args, std::optional<otel::LiveOptions>& live) {
  if (args.url.empty()) {
    return args.headers.empty() ? "" : "--otlp-header needs --otlp URL";
  }
  otel::LiveOptions options;
  if (auto problem =
          resolveOtlpEndpoint(args.url, args.headers, otel::processEnvironment(), options.endpoint);
      !problem.empty()) {
    return "--otlp: " + problem;
  }
  options.idle = std::chrono::seconds(args.idle_s);
  options.content = args.content;
  live = std::move(options);
  return {};
}

}  // namespace agentvcr::cli
