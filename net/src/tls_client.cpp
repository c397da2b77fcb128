#include "agentvcr/net/tls_client.hpp"

#include <stdexcept>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace agentvcr::net {

std::shared_ptr<asio::ssl::context> makeTlsClientContext(const std::string& ca_file) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  context->set_default_verify_paths();
  if (!ca_file.empty()) {
    beast::error_code ec;
    context->load_verify_file(ca_file, ec);
    if (ec) {
      throw std::runtime_error("cannot read the certificate authorities in " + ca_file + ": " +
                               ec.message());
    }
  }
  return context;
}

beast::error_code prepareTlsClient(TlsStream& stream, const std::string& host, bool verify) {
  // SNI and host-name verification: the certificate must be for the host we dialled.
  if (!SSL_set_tlsext_host_name(stream.native_handle(), host.c_str())) {
    return beast::error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
  }
  if (verify) {
    stream.set_verify_mode(asio::ssl::verify_peer);
    stream.set_verify_callback(asio::ssl::host_name_verification(host));
  } else {
    stream.set_verify_mode(asio::ssl::verify_none);
  }
  return {};
}

}  // namespace agentvcr::net
