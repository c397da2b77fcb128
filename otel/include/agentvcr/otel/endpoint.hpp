#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/exchange.hpp"

/// Where traces go: the collector's URL and the headers it wants, from the command line or
/// the OpenTelemetry SDK's environment variables (docs/observability.md).
namespace agentvcr::otel {

struct OtlpEndpoint {
  net::Url server;   ///< scheme, host and port; no base path
  std::string path;  ///< the request target: "/v1/traces", or as the traces variable gave it
  protocol::Headers headers;
  /// For https: the certificate is always verified, against the system's authorities and the
  /// PEM file OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE or OTEL_EXPORTER_OTLP_CERTIFICATE names.
  net::ClientTls tls;

  /// "http://host:port/v1/traces", for messages: never the headers, which may hold secrets.
  std::string toString() const;
};

/// A bad URL, header or variable. The message names the option or variable, never a header's
/// value.
class EndpointError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Reads an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

/// The process's environment.
EnvLookup processEnvironment();

/// The endpoint from `url` (a base URL from --to or --otlp: "/v1/traces" is appended unless its
/// path already ends so), else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is), else
/// OTEL_EXPORTER_OTLP_ENDPOINT (a base URL). Headers: OTEL_EXPORTER_OTLP_HEADERS, then
/// OTEL_EXPORTER_OTLP_TRACES_HEADERS, then each `header_options` entry (NAME=VALUE). Throws
/// EndpointError.
OtlpEndpoint resolveEndpoint(const std::string& url, const std::vector<std::string>& header_options,
                             const EnvLookup& env);

/// `k1=v1,k2=v2` as the OTEL_EXPORTER_OTLP_*HEADERS variables write it: names and values
/// trimmed, values percent-decoded. `origin` names the text's source in errors.
protocol::Headers parseHeaderList(std::string_view text, std::string_view origin);

/// `NAME=VALUE` as --otlp-header takes it (the value verbatim).
protocol::HeaderField parseHeaderOption(std::string_view text);

/// RFC 3986 percent-decoding ("%20" -> " "); a '%' not followed by two hex digits stays.
std::string percentDecode(std::string_view text);

}  // namespace agentvcr::otel
