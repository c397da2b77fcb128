#include "agentvcr/net/url.hpp"

#include <charconv>

namespace agentvcr::net {
namespace {

std::optional<std::uint16_t> parsePort(std::string_view text) {
  unsigned value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

bool isDefaultPort(const Url& url) {
  return url.port == (url.tls ? 443 : 80);
}

std::string bracketed(const std::string& host) {
  return host.find(':') == std::string::npos ? host : "[" + host + "]";
}

}  // namespace

std::string Url::authority() const {
  return isDefaultPort(*this) ? bracketed(host) : bracketed(host) + ":" + std::to_string(port);
}

std::string Url::toString() const {
  return (tls ? "https://" : "http://") + bracketed(host) + ":" + std::to_string(port) + base_path;
}

std::string HostPort::toString() const {
  return bracketed(host) + ":" + std::to_string(port);
}

std::optional<HostPort> parseHostPort(std::string_view text) {
  HostPort result;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return std::nullopt;
    }
    result.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) {
      return std::nullopt;
    }
    result.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
  }
  auto port = parsePort(port_text);
  if (result.host.empty() || !port) {
    return std::nullopt;
  }
  result.port = *port;
  return result;
}

std::optional<Url> parseUrl(std::string_view text) {
  Url url;
  if (text.starts_with("http://")) {
    text.remove_prefix(7);
  } else if (text.starts_with("https://")) {
    url.tls = true;
    text.remove_prefix(8);
  } else {
    return std::nullopt;
  }
  if (text.find_first_of("?#") != std::string_view::npos) {
    return std::nullopt;
  }
  auto slash = text.find('/');
  std::string_view authority = text.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = text.substr(slash);
    while (!path.empty() && path.back() == '/') {
      path.remove_suffix(1);
    }
    url.base_path = std::string(path);
  }
  url.port = url.tls ? 443 : 80;
  bool has_port = authority.starts_with('[') ? authority.find("]:") != std::string_view::npos
                                             : authority.find(':') != std::string_view::npos;
  if (has_port) {
    auto host_port = parseHostPort(authority);
    if (!host_port || host_port->port == 0) {
      return std::nullopt;
    }
    url.host = host_port->host;
    url.port = host_port->port;
  } else {
    if (authority.starts_with('[') && authority.ends_with(']')) {
      authority = authority.substr(1, authority.size() - 2);
    }
    url.host = std::string(authority);
  }
  if (url.host.empty()) {
    return std::nullopt;
  }
  return url;
}

}  // namespace agentvcr::net
