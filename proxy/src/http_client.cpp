#include "agentvcr/proxy/http_client.hpp"

#include <boost/asio/use_future.hpp>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/proxy/asio.hpp"
#include "http_message.hpp"

namespace agentvcr::proxy {
namespace {

/// The most the first read of an answer takes.
constexpr std::size_t kFirstRead = 16 * 1024;

}  // namespace

std::string ClientResponse::header(std::string_view name) const {
  return std::string(protocol::headerValue(headers, name));
}

class HttpClient::Impl {
 public:
  Impl(std::string host, std::uint16_t port, std::chrono::milliseconds timeout)
      : host_(std::move(host)), port_(port), timeout_(timeout) {}

  ClientResponse send(http::request<http::string_body> request) {
    auto future = asio::co_spawn(io_, exchange(std::move(request)), asio::use_future);
    io_.restart();
    io_.run();
    return future.get();
  }

  std::string authority() const { return host_ + ":" + std::to_string(port_); }

 private:
  asio::awaitable<ClientResponse> exchange(http::request<http::string_body> request) {
    // A keep-alive connection the server has since closed fails on first use: try once more
    // on a fresh one.
    for (int attempt = 0;; ++attempt) {
      const bool fresh = !stream_;
      if (fresh) {
        co_await connect();
      }
      stream_->expires_after(timeout_);
      auto [write_ec, written] = co_await http::async_write(*stream_, request, kUseTuple);
      http::response_parser<http::string_body> parser;
      parser.body_limit(boost::none);
      beast::error_code ec = write_ec;
      const std::int64_t sent_ns = protocol::nowNs();
      if (!ec && buffer_.size() == 0) {
        // The first bytes on their own, to time them; the parser reads them from the buffer.
        auto [read_ec, read] =
            co_await stream_->async_read_some(buffer_.prepare(kFirstRead), kUseTuple);
        buffer_.commit(read);
        ec = read_ec;
      }
      const std::int64_t first_byte_ns = protocol::nowNs();
      if (!ec) {
        std::tie(ec, std::ignore) = co_await http::async_read(*stream_, buffer_, parser, kUseTuple);
      }
      if (ec) {
        stream_.reset();
        buffer_.clear();
        if (!fresh && attempt == 0 && ec != beast::error::timeout) {
          continue;
        }
        throw ClientError(std::string(request.method_string()) + " " +
                          std::string(request.target()) + " to " + authority() +
                          " failed: " + ec.message());
      }
      auto response = parser.release();
      if (!response.keep_alive()) {
        stream_.reset();
        buffer_.clear();
      }
      co_return ClientResponse{static_cast<int>(response.result_int()), toHeaders(response.base()),
                               std::move(response.body()), sent_ns, first_byte_ns};
    }
  }

  asio::awaitable<void> connect() {
    tcp::resolver resolver(io_);
    auto [resolve_ec, endpoints] =
        co_await resolver.async_resolve(host_, std::to_string(port_), kUseTuple);
    if (resolve_ec) {
      throw ClientError("cannot resolve " + host_ + ": " + resolve_ec.message());
    }
    auto stream = std::make_unique<beast::tcp_stream>(io_);
    stream->expires_after(timeout_);
    auto [ec, endpoint] = co_await stream->async_connect(endpoints, kUseTuple);
    if (ec) {
      throw ClientError("cannot connect to " + authority() + ": " + ec.message());
    }
    stream_ = std::move(stream);
  }

  asio::io_context io_{1};
  std::string host_;
  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
};

HttpClient::HttpClient(std::string host, std::uint16_t port, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>(std::move(host), port, timeout)) {}

HttpClient::~HttpClient() = default;

ClientResponse HttpClient::send(const std::string& method, const std::string& target,
                                const std::string& body, const protocol::Headers& headers) {
  http::request<http::string_body> request{http::string_to_verb(method), target, 11};
  if (request.method() == http::verb::unknown) {
    request.method_string(method);
  }
  request.set(http::field::host, impl_->authority());
  for (const auto& field : headers) {
    request.insert(field.name, field.value);
  }
  request.body() = body;
  if (!body.empty() || method == "POST" || method == "PUT") {
    request.prepare_payload();
  }
  request.keep_alive(true);
  return impl_->send(std::move(request));
}

ClientResponse HttpClient::postJson(const std::string& target, const std::string& body) {
  return send("POST", target, body, {{"Content-Type", "application/json"}});
}

}  // namespace agentvcr::proxy
