#include "agentvcr/otel/endpoint.hpp"

#include <cstdlib>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::otel {
namespace {

constexpr std::string_view kTracesPath = "/v1/traces";

/// An HTTP token (RFC 9110): what a header name may be.
bool isToken(std::string_view name) {
  constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
  if (name.empty()) {
    return false;
  }
  for (char c : name) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && kSpecials.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

/// Checks a header before it is sent; the message names the header, never its value.
protocol::HeaderField checkedHeader(std::string_view name, std::string value,
                                    std::string_view origin) {
  if (!isToken(name)) {
    throw EndpointError(std::string(origin) + ": '" + std::string(name) +
                        "' is not a valid header name");
  }
  if (value.find_first_of("\r\n") != std::string::npos || value.find('\0') != std::string::npos) {
    throw EndpointError(std::string(origin) + ": the value of header " + std::string(name) +
                        " holds a line break or NUL");
  }
  return {std::string(name), std::move(value)};
}

/// The endpoint at `text`; `base`: the traces path is appended unless already there.
OtlpEndpoint endpointOf(const std::string& text, bool base, const std::string& origin) {
  auto url = net::parseUrl(text);
  if (!url) {
    throw EndpointError(origin + " must be http(s)://host[:port][/path], got '" + text + "'");
  }
  OtlpEndpoint endpoint;
  endpoint.path = url->base_path;
  if (base && !endpoint.path.ends_with(kTracesPath)) {
    endpoint.path += kTracesPath;
  }
  if (endpoint.path.empty()) {
    endpoint.path = "/";
  }
  url->base_path.clear();
  endpoint.server = *url;
  return endpoint;
}

}  // namespace

std::string OtlpEndpoint::toString() const {
  return server.toString() + path;
}

EnvLookup processEnvironment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    return value == nullptr ? std::nullopt : std::optional<std::string>(value);
  };
}

std::string percentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && protocol::hexDigitValue(text[i + 1]) >= 0 &&
        protocol::hexDigitValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(protocol::hexDigitValue(text[i + 1]) * 16 +
                                      protocol::hexDigitValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

protocol::Headers parseHeaderList(std::string_view text, std::string_view origin) {
  protocol::Headers headers;
  std::size_t entry = 0;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = protocol::trimBlanks(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    ++entry;
    if (item.empty()) {
      continue;
    }
    const auto equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw EndpointError(std::string(origin) + ": entry " + std::to_string(entry) +
                          " has no '=' (expected name=value)");
    }
    headers.push_back(checkedHeader(protocol::trimBlanks(item.substr(0, equals)),
                                    percentDecode(protocol::trimBlanks(item.substr(equals + 1))),
                                    origin));
  }
  return headers;
}

protocol::HeaderField parseHeaderOption(std::string_view text) {
  const auto equals = text.find('=');
  if (equals == std::string_view::npos) {
    throw EndpointError("--otlp-header expects NAME=VALUE");
  }
  return checkedHeader(protocol::trimBlanks(text.substr(0, equals)),
                       std::string(text.substr(equals + 1)), "--otlp-header");
}

OtlpEndpoint resolveEndpoint(const std::string& url, const std::vector<std::string>& header_options,
                             const EnvLookup& env) {
  OtlpEndpoint endpoint;
  if (!url.empty()) {
    endpoint = endpointOf(url, true, "the collector URL");
  } else if (auto traces = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); traces && !traces->empty()) {
    endpoint = endpointOf(*traces, false, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  } else if (auto base = env("OTEL_EXPORTER_OTLP_ENDPOINT"); base && !base->empty()) {
    endpoint = endpointOf(*base, true, "OTEL_EXPORTER_OTLP_ENDPOINT");
  } else {
    throw EndpointError(
        "no collector: give its URL, or set OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or "
        "OTEL_EXPORTER_OTLP_ENDPOINT");
  }
  for (const char* variable : {"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}) {
    if (auto list = env(variable)) {
      for (auto& header : parseHeaderList(*list, variable)) {
        endpoint.headers.push_back(std::move(header));
      }
    }
  }
  for (const char* variable :
       {"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE"}) {
    if (auto file = env(variable); file && !file->empty()) {
      endpoint.tls.ca_file = *file;
      break;
    }
  }
  for (const std::string& option : header_options) {
    endpoint.headers.push_back(parseHeaderOption(option));
  }
  return endpoint;
}

}  // namespace agentvcr::otel
