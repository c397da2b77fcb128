#pragma once

#include <memory>
#include <string>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>

#include "agentvcr/net/asio.hpp"

/// The client side of TLS, the one way agentvcr does it: the relay's upstream connections and
/// the blocking HttpClient both dial through these. Beast-level, as asio.hpp.
namespace agentvcr::net {

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

/// A TLS client context that trusts the system's certificate authorities, and those in the PEM
/// file `ca_file` too when it is not empty. Throws std::runtime_error naming that file and the
/// reason (not Boost's source location) when it cannot be read.
std::shared_ptr<asio::ssl::context> makeTlsClientContext(const std::string& ca_file);

/// Readies `stream` for its handshake with `host`: SNI, and with `verify` the certificate
/// chain and the host name checked (without it, anything is accepted). The error is OpenSSL's.
beast::error_code prepareTlsClient(TlsStream& stream, const std::string& host, bool verify);

}  // namespace agentvcr::net
