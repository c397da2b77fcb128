#include "agentvcr/proxy/local_service.hpp"

#include "http_message.hpp"

namespace agentvcr::proxy {
namespace {

class LocalServiceHandler final : public ConnectionHandler {
 public:
  LocalServiceHandler(std::shared_ptr<const LocalHandler> handler, LocalServiceOptions options)
      : handler_(std::move(handler)), options_(options) {}

  asio::awaitable<void> serve(std::shared_ptr<Connection> connection) override {
    beast::flat_buffer buffer;
    while (!connection->stopping) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(options_.max_header_bytes);
      parser.body_limit(options_.max_request_body);
      connection->stream.expires_after(options_.idle_timeout);
      auto [ec, read] = co_await http::async_read(connection->stream, buffer, parser, kUseTuple);
      if (ec) {
        co_await answerUnreadable(*connection, ec);
        break;
      }
      connection->busy = true;
      auto request = parser.release();
      const bool keep_alive = request.keep_alive();
      LocalResponse answer = (*handler_)(
          LocalRequest{std::string(request.method_string()), std::string(request.target()),
                       toHeaders(request.base()), std::move(request.body())});
      http::response<http::string_body> response{static_cast<http::status>(answer.status),
                                                 request.version()};
      if (!answer.content_type.empty()) {
        response.set(http::field::content_type, answer.content_type);
      }
      for (const auto& header : answer.headers) {
        response.insert(header.name, header.value);
      }
      response.body() = std::move(answer.body);
      response.keep_alive(keep_alive);
      response.prepare_payload();
      auto [write_ec, written] =
          co_await http::async_write(connection->stream, response, kUseTuple);
      connection->busy = false;
      if (write_ec || !keep_alive) {
        break;
      }
    }
    beast::error_code ignored;
    connection->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

 private:
  static asio::awaitable<void> answerUnreadable(Connection& connection, beast::error_code ec) {
    http::status status;
    if (ec == http::error::body_limit) {
      status = http::status::payload_too_large;
    } else if (ec == http::error::header_limit) {
      status = http::status::request_header_fields_too_large;
    } else if (ec.category() == make_error_code(http::error::bad_target).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message) {
      status = http::status::bad_request;
    } else {
      co_return;
    }
    auto response = localResponse(status, "mock.request.rejected", ec.message(), 11, false);
    co_await http::async_write(connection.stream, response, kUseTuple);
  }

  std::shared_ptr<const LocalHandler> handler_;
  LocalServiceOptions options_;
};

}  // namespace

HandlerFactory makeLocalServiceFactory(LocalHandler handler, LocalServiceOptions options) {
  auto shared = std::make_shared<const LocalHandler>(std::move(handler));
  return [shared, options](asio::io_context&) -> std::unique_ptr<ConnectionHandler> {
    return std::make_unique<LocalServiceHandler>(shared, options);
  };
}

}  // namespace agentvcr::proxy
