#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentvcr::net {

/// An upstream address: `http://host[:port][/base]` or `https://...`.
struct Url {
  bool tls = false;
  std::string host;        ///< without brackets for IPv6 literals
  std::uint16_t port = 0;  ///< explicit or the scheme's default
  std::string base_path;   ///< "" or "/prefix" (no trailing slash); prepended to forwarded targets

  /// "host:port" as the Host header wants it (brackets around IPv6, default port omitted).
  std::string authority() const;
  /// "http://host:port/base" for display and the archive.
  std::string toString() const;
};

/// Parses an upstream URL. Returns nullopt for other schemes, a missing host, a bad port, or a
/// query/fragment (an upstream base cannot carry them).
std::optional<Url> parseUrl(std::string_view text);

/// A listening address, asked for (`--listen`) or bound (a server's endpoint()).
struct HostPort {
  std::string host;  ///< without brackets for IPv6 literals
  std::uint16_t port = 0;

  /// "host:port", with brackets around an IPv6 host.
  std::string toString() const;

  /// "http://host:port": how a caller reaches a server bound here.
  std::string httpUrl() const { return "http://" + toString(); }
};

/// "127.0.0.1:8080" or "[::1]:8080" into host and port. Port 0 is allowed (bind any).
std::optional<HostPort> parseHostPort(std::string_view text);

}  // namespace agentvcr::net
