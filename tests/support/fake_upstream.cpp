#include "fake_upstream.hpp"

#include <sstream>

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
    beast::flat_buffer buffer;
    auto& socket = connection->stream.socket();
    asio::steady_timer timer(socket.get_executor());
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(boost::none);
      auto [ec, read] = co_await http::async_read(connection->stream, buffer, parser, kUseTuple);
      if (ec) {
        break;
      }
      auto request = parser.release();
      LocalRequest seen{
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
            co_await asio::async_write(socket, asio::buffer(segment.bytes), kUseTuple);
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

 private:
  FakeUpstream& owner_;
};

FakeUpstream::FakeUpstream(FakeHandler handler)
    : handler_(std::make_shared<FakeHandler>(std::move(handler))) {
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

std::vector<LocalRequest> FakeUpstream::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

}  // namespace agentvcr::testing
