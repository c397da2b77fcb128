#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::net {

/// A response as received: unlike protocol::HttpReply, which a writer completes, it keeps every
/// header the server sent, Content-Type and Content-Length included.
struct ClientResponse {
  int status = 0;
  protocol::Headers headers;
  std::string body;
  /// When the request was fully written and the first and last answer bytes read (ns since the
  /// epoch), for the timing points of the exchanges replay and eval record.
  std::int64_t sent_ns = 0;
  std::int64_t first_byte_ns = 0;
  std::int64_t last_byte_ns = 0;

  /// The first header named `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

/// Raised when the exchange could not happen at all (refused, reset, timed out).
class ClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How an https HttpClient trusts the server: the system's certificate authorities and those in
/// `ca_file`, the certificate checked against the host name unless `verify` is off.
struct ClientTls {
  bool verify = true;
  std::string ca_file;  ///< PEM; empty: the system's authorities only
};

/// A small blocking HTTP/1.1 client over one keep-alive connection (reconnecting when the
/// server closed it), plain or over TLS. For the demo driver, start-up probes, exporters and
/// tests; never on the proxy's data path.
///
/// Thread-safety: one thread at a time, but abort(), which any thread may call.
class HttpClient {
 public:
  /// Plain HTTP to host:port.
  HttpClient(std::string host, std::uint16_t port,
             std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// HTTP or https as `url` says; its base path is prepended to every target sent. Throws
  /// ClientError when `tls.ca_file` cannot be read.
  explicit HttpClient(const Url& url, ClientTls tls = {},
                      std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Sends one request and waits for the whole response. Throws ClientError on failure.
  ClientResponse send(const std::string& method, const std::string& target,
                      const std::string& body = {}, const protocol::Headers& headers = {});

  ClientResponse get(const std::string& target) { return send("GET", target); }

  ClientResponse postJson(const std::string& target, const std::string& body);

  /// Ends the send() in progress on another thread at once, and refuses every later one: they
  /// throw ClientError. For a server that stops and cannot wait for the answer (a replay's
  /// forward to a live agent that takes minutes).
  void abort();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::net
