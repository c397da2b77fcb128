#include "agentvcr/net/http_client.hpp"

#include <atomic>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include "agentvcr/net/asio.hpp"
#include "agentvcr/net/tls_client.hpp"
#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::net {
namespace {

/// The most the first read of an answer takes.
constexpr std::size_t kFirstRead = 16 * 1024;

}  // namespace

std::string ClientResponse::header(std::string_view name) const {
  return std::string(protocol::headerValue(headers, name));
}

class HttpClient::Impl {
 public:
  Impl(Url url, std::optional<ClientTls> tls, std::chrono::milliseconds timeout)
      : url_(std::move(url)), timeout_(timeout) {
    if (tls) {
      verify_ = tls->verify;
      try {
        tls_context_ = makeTlsClientContext(tls->ca_file);
      } catch (const std::runtime_error& e) {
        throw ClientError(e.what());
      }
    }
  }

  ClientResponse send(http::request<http::string_body> request) {
    if (aborted_) {
      throw ClientError(abortedText());
    }
    // The future takes the exchange's result; the slot, abort()'s cancellation.
    auto future =
        tls_context_
            ? asio::co_spawn(io_, exchange(tls_stream_, std::move(request)), abortableFuture())
            : asio::co_spawn(io_, exchange(plain_stream_, std::move(request)), abortableFuture());
    io_.restart();
    io_.run();
    try {
      return future.get();
    } catch (...) {
      if (aborted_) {
        throw ClientError(abortedText());  // however the cut operation reported it
      }
      throw;
    }
  }

  /// From any thread: the signal is emitted on the thread that runs the exchange.
  void abort() {
    aborted_ = true;
    asio::post(io_, [this] { abort_signal_.emit(asio::cancellation_type::terminal); });
  }

  /// The Host header's value.
  std::string host() const { return url_.authority(); }

  const std::string& basePath() const { return url_.base_path; }

 private:
  std::string authority() const { return url_.host + ":" + std::to_string(url_.port); }

  asio::cancellation_slot_binder<asio::use_future_t<>, asio::cancellation_slot> abortableFuture() {
    return asio::bind_cancellation_slot(abort_signal_.slot(), asio::use_future);
  }

  std::string abortedText() const { return "the exchange with " + authority() + " was aborted"; }

  template <class Stream>
  asio::awaitable<ClientResponse> exchange(std::unique_ptr<Stream>& stream,
                                           http::request<http::string_body> request) {
    // A keep-alive connection the server has since closed fails on first use: try once more
    // on a fresh one.
    for (int attempt = 0;; ++attempt) {
      const bool fresh = !stream;
      if (fresh) {
        co_await connect(stream);
      }
      beast::get_lowest_layer(*stream).expires_after(timeout_);
      auto [write_ec, written] = co_await http::async_write(*stream, request, kUseTuple);
      http::response_parser<http::string_body> parser;
      parser.body_limit(boost::none);
      beast::error_code ec = write_ec;
      const std::int64_t sent_ns = protocol::nowNs();
      if (!ec && buffer_.size() == 0) {
        // The first bytes on their own, to time them; the parser reads them from the buffer.
        auto [read_ec, read] =
            co_await stream->async_read_some(buffer_.prepare(kFirstRead), kUseTuple);
        buffer_.commit(read);
        ec = read_ec;
      }
      const std::int64_t first_byte_ns = protocol::nowNs();
      if (!ec) {
        std::tie(ec, std::ignore) = co_await http::async_read(*stream, buffer_, parser, kUseTuple);
      }
      if (ec) {
        stream.reset();
        buffer_.clear();
        if (!fresh && attempt == 0 && ec != beast::error::timeout && !aborted_) {
          continue;
        }
        throw ClientError(std::string(request.method_string()) + " " +
                          std::string(request.target()) + " to " + authority() +
                          " failed: " + ec.message());
      }
      const std::int64_t last_byte_ns = protocol::nowNs();
      auto response = parser.release();
      if (!response.keep_alive()) {
        stream.reset();
        buffer_.clear();
      }
      co_return ClientResponse{static_cast<int>(response.result_int()),
                               toHeaders(response.base()),
                               std::move(response.body()),
                               sent_ns,
                               first_byte_ns,
                               last_byte_ns};
    }
  }

  asio::awaitable<void> connectSocket(beast::tcp_stream& socket) {
    tcp::resolver resolver(io_);
    auto [resolve_ec, endpoints] =
        co_await resolver.async_resolve(url_.host, std::to_string(url_.port), kUseTuple);
    if (resolve_ec) {
      throw ClientError("cannot resolve " + url_.host + ": " + resolve_ec.message());
    }
    socket.expires_after(timeout_);
    auto [ec, endpoint] = co_await socket.async_connect(endpoints, kUseTuple);
    if (ec) {
      throw ClientError("cannot connect to " + authority() + ": " + ec.message());
    }
  }

  asio::awaitable<void> connect(std::unique_ptr<beast::tcp_stream>& stream) {
    auto socket = std::make_unique<beast::tcp_stream>(io_);
    co_await connectSocket(*socket);
    stream = std::move(socket);
  }

  asio::awaitable<void> connect(std::unique_ptr<TlsStream>& stream) {
    auto tls = std::make_unique<TlsStream>(io_, *tls_context_);
    co_await connectSocket(beast::get_lowest_layer(*tls));
    beast::error_code ec = prepareTlsClient(*tls, url_.host, verify_);
    if (!ec) {
      std::tie(ec) = co_await tls->async_handshake(asio::ssl::stream_base::client, kUseTuple);
    }
    if (ec) {
      throw ClientError("TLS handshake with " + authority() + " failed: " + ec.message());
    }
    stream = std::move(tls);
  }

  asio::io_context io_{1};
  Url url_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<asio::ssl::context> tls_context_;  ///< null: plain HTTP
  bool verify_ = true;
  std::unique_ptr<beast::tcp_stream> plain_stream_;
  std::unique_ptr<TlsStream> tls_stream_;
  beast::flat_buffer buffer_;
  std::atomic<bool> aborted_{false};
  asio::cancellation_signal abort_signal_;  ///< touched on the thread that runs io_ only
};

HttpClient::HttpClient(std::string host, std::uint16_t port, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>(Url{false, std::move(host), port, {}}, std::nullopt, timeout)) {}

HttpClient::HttpClient(const Url& url, ClientTls tls, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>(url, url.tls ? std::optional(std::move(tls)) : std::nullopt,
                                   timeout)) {}

HttpClient::~HttpClient() = default;

ClientResponse HttpClient::send(const std::string& method, const std::string& target,
                                const std::string& body, const protocol::Headers& headers) {
  http::request<http::string_body> request{http::string_to_verb(method), impl_->basePath() + target,
                                           11};
  if (request.method() == http::verb::unknown) {
    request.method_string(method);
  }
  request.set(http::field::host, impl_->host());
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

void HttpClient::abort() {
  impl_->abort();
}

}  // namespace agentvcr::net
