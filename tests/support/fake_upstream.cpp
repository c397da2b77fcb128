#include "fake_upstream.hpp"

#include <sstream>

#include <boost/beast/ssl.hpp>

#include "agentvcr/proxy/connection.hpp"

namespace agentvcr::testing {

using namespace proxy;

FakeReply FakeReply::http(int status, std::string body, std::string content_type,
                          std::string extra_headers) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " Fake\r\n";
  if (!content_type.empty()) {
    head += "Content-Type: " + content_type + "\r\n";
  }
  head += extra_headers;
  head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  return FakeReply{{{head + body, {}}}};
}

FakeReply FakeReply::chunked(int status, const std::vector<std::string>& chunks,
                             std::chrono::milliseconds pause, std::string content_type) {
  FakeReply reply;
  reply.segments.push_back({"HTTP/1.1 " + std::to_string(status) + " Fake\r\nContent-Type: " +
                                content_type + "\r\nTransfer-Encoding: chunked\r\n\r\n",
                            pause});
  for (const auto& chunk : chunks) {
    std::ostringstream size;
    size << std::hex << chunk.size();
    reply.segments.push_back({size.str() + "\r\n" + chunk + "\r\n", pause});
  }
  reply.segments.push_back({"0\r\n\r\n", {}});
  return reply;
}

class FakeUpstream::Handler final : public ConnectionHandler {
 public:
  explicit Handler(FakeUpstream& owner) : owner_(owner) {}

  asio::awaitable<void> serve(std::shared_ptr<Connection> connection) override {
    ++owner_.connections_;
    if (!owner_.tls_context_) {
      co_await serveOn(connection->stream);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> tls(std::move(connection->stream), *owner_.tls_context_);
    auto [ec] = co_await tls.async_handshake(asio::ssl::stream_base::server, kUseTuple);
    if (!ec) {
      co_await serveOn(tls);
    }
  }

 private:
  template <class Stream>
  asio::awaitable<void> serveOn(Stream& stream) {
    beast::flat_buffer buffer;
    auto& socket = beast::get_lowest_layer(stream).socket();
    asio::steady_timer timer(socket.get_executor());
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(boost::none);
      auto [ec, read] = co_await http::async_read(stream, buffer, parser, kUseTuple);
      if (ec) {
        break;
      }
      auto request = parser.release();
      protocol::HttpRequest seen{
          std::string(request.method_string()), std::string(request.target()), {}, request.body()};
      for (const auto& field : request) {
        seen.headers.push_back({std::string(field.name_string()), std::string(field.value())});
      }
      {
        std::lock_guard lock(owner_.mutex_);
        owner_.requests_.push_back(seen);
      }
      FakeReply reply = (*owner_.handler_)(seen);
      if (reply.delay.count() > 0) {
        timer.expires_after(reply.delay);
        co_await timer.async_wait(kUseTuple);
      }
      bool failed = false;
      for (const auto& segment : reply.segments) {
        auto [write_ec, written] =
            co_await asio::async_write(stream, asio::buffer(segment.bytes), kUseTuple);
        if (write_ec) {
          failed = true;
          break;
        }
        if (segment.pause.count() > 0) {
          timer.expires_after(segment.pause);
          co_await timer.async_wait(kUseTuple);
        }
      }
      if (failed || reply.ending == FakeReply::Ending::Close) {
        break;
      }
      if (reply.ending == FakeReply::Ending::Reset) {
        // SO_LINGER with a zero timeout turns close() into a TCP reset.
        beast::error_code ignored;
        socket.set_option(asio::socket_base::linger(true, 0), ignored);
        socket.close(ignored);
        co_return;
      }
    }
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
  }

  FakeUpstream& owner_;
};

FakeUpstream::FakeUpstream(FakeHandler handler, std::optional<FakeTls> tls)
    : handler_(std::make_shared<FakeHandler>(std::move(handler))) {
  if (tls) {
    tls_context_ = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
    tls_context_->use_certificate_chain_file(tls->certificate_file);
    tls_context_->use_private_key_file(tls->key_file, asio::ssl::context::pem);
  }
  ServerOptions options;
  options.threads = 1;
  options.drain_timeout = std::chrono::milliseconds(200);
  server_ = std::make_unique<Server>(
      options, [this](asio::io_context&) { return std::make_unique<Handler>(*this); });
  server_->start();
}

FakeUpstream::~FakeUpstream() {
  server_->stop();
}

std::vector<protocol::HttpRequest> FakeUpstream::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

}  // namespace agentvcr::testing
