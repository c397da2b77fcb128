#include "agentvcr/proxy/local_service.hpp"

#include <span>

#include <boost/asio/this_coro.hpp>

#include "http_message.hpp"

namespace agentvcr::proxy {
namespace {

class LocalServiceHandler final : public ConnectionHandler {
 public:
  LocalServiceHandler(std::shared_ptr<const LocalHandler> handler, LocalServiceOptions options)
      : handler_(std::move(handler)), options_(options) {}

  asio::awaitable<void> serve(std::shared_ptr<Connection> connection) override {
    // A cut (Connection::cut) ends a held or paced answer: the connection then closes.
    co_await asio::this_coro::throw_if_cancelled(false);
    beast::error_code ec;
    const tcp::endpoint reached = connection->stream.socket().local_endpoint(ec);
    const std::string reached_authority =
        ec ? std::string()
           : net::HostPort{reached.address().to_string(), reached.port()}.toString();
    beast::flat_buffer buffer;
    buffer.reserve(kRequestBufferBytes);
    while (!connection->stopping) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(options_.max_header_bytes);
      parser.body_limit(options_.max_request_body);
      connection->stream.expires_after(options_.idle_timeout);
      auto [read_ec, read] =
          co_await http::async_read(connection->stream, buffer, parser, kUseTuple);
      if (read_ec) {
        co_await answerUnreadable(*connection, read_ec, options_.max_request_body);
        break;
      }
      connection->busy = true;
      const auto arrived = std::chrono::steady_clock::now();
      auto request = parser.release();
      const bool keep_alive = request.keep_alive();
      const bool head = request.method() == http::verb::head;
      protocol::HttpRequest asked{std::string(request.method_string()),
                                  std::string(request.target()), net::toHeaders(request.base()),
                                  std::move(request.body())};
      nameHostReached(asked.headers, reached_authority);
      protocol::HttpReply answer = (*handler_)(asked);
      if (options_.metrics) {
        options_.metrics->observeServed(asked, answer);
      }
      if (answer.hold.count() > 0) {
        asio::steady_timer timer(connection->stream.get_executor(), arrived + answer.hold);
        co_await timer.async_wait(kUseTuple);
      }
      bool written_whole = false;
      if (answer.delivery == protocol::Delivery::CloseBeforeAnswer || connection->cut) {
        written_whole = false;
      } else if (head) {
        written_whole = co_await writeHead(*connection, answer, request.version(), keep_alive);
      } else if (answer.stream.empty()) {
        written_whole = co_await writeWhole(*connection, answer, request.version(), keep_alive);
      } else {
        written_whole = co_await writeStreamed(*connection, answer, request.version(), keep_alive);
      }
      connection->busy = false;
      if (!written_whole || !keep_alive) {
        break;
      }
    }
    connection->stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

 private:
  /// A request that names no Host (HTTP/1.0 may not) was addressed to where its connection
  /// reached the server (RFC 9112 §3.3): the handler gets that address as its Host, as a handler
  /// writing a URL of the server's (an agent card) needs one. A wildcard listener's own address
  /// (0.0.0.0) would be none.
  static void nameHostReached(protocol::Headers& headers, const std::string& reached_authority) {
    if (reached_authority.empty()) {
      return;
    }
    for (protocol::HeaderField& header : headers) {
      if (protocol::equalsIgnoreCase(header.name, "Host")) {
        if (header.value.empty()) {
          header.value = reached_authority;
        }
        return;
      }
    }
    headers.push_back({"Host", reached_authority});
  }

  /// The answer to a HEAD: the header the GET's answer would have, its Content-Length (or, for
  /// a stream, its chunked coding) included, and no body.
  static asio::awaitable<bool> writeHead(Connection& connection, protocol::HttpReply& answer,
                                         unsigned version, bool keep_alive) {
    const bool streamed = !answer.stream.empty();
    auto response = wholeResponse(std::move(answer), version, keep_alive);
    if (streamed && version >= 11) {
      response.chunked(true);
    }
    const std::string header = wireHeader(response.base());
    auto [ec, written] =
        co_await asio::async_write(connection.stream, asio::buffer(header), kUseTuple);
    co_return !ec;
  }

  static asio::awaitable<bool> writeWhole(Connection& connection, protocol::HttpReply& answer,
                                          unsigned version, bool keep_alive) {
    const protocol::Delivery delivery = answer.delivery;
    const auto response = wholeResponse(std::move(answer), version, keep_alive);
    if (delivery == protocol::Delivery::CutMidBody) {
      co_await writeCutMessage(connection.stream, response);
      co_return false;
    }
    auto [ec, written] = co_await writeWholeMessage(connection.stream, response);
    co_return !ec;
  }

  /// Writes the header, then each piece as its own chunk once its delay has passed, so a
  /// client sees events at the pace they are scheduled. An HTTP/1.0 client reads to close.
  asio::awaitable<bool> writeStreamed(Connection& connection, const protocol::HttpReply& answer,
                                      unsigned version, bool keep_alive) {
    http::response<http::empty_body> header{http::status::ok, version};
    setReplyHeader(header, answer, keep_alive && version >= 11);
    header.chunked(version >= 11);
    http::response_serializer<http::empty_body> serializer{header};
    connection.stream.expires_after(options_.idle_timeout);
    auto [header_ec, header_bytes] =
        co_await http::async_write_header(connection.stream, serializer, kUseTuple);
    if (header_ec) {
      co_return false;
    }
    asio::steady_timer timer(connection.stream.get_executor());
    // Cut mid-body: half the pieces, then the close, with no last chunk.
    const std::size_t pieces = answer.delivery == protocol::Delivery::CutMidBody
                                   ? answer.stream.size() / 2
                                   : answer.stream.size();
    for (const protocol::StreamPiece& piece : std::span(answer.stream).first(pieces)) {
      if (piece.delay.count() > 0) {
        timer.expires_after(piece.delay);
        co_await timer.async_wait(kUseTuple);
      }
      if (connection.cut) {
        co_return false;
      }
      if (piece.bytes.empty()) {
        continue;  // an empty chunk would end the body
      }
      connection.stream.expires_after(options_.idle_timeout);
      beast::error_code ec;
      if (version >= 11) {
        std::tie(ec, std::ignore) = co_await asio::async_write(
            connection.stream, http::make_chunk(asio::buffer(piece.bytes)), kUseTuple);
      } else {
        std::tie(ec, std::ignore) =
            co_await asio::async_write(connection.stream, asio::buffer(piece.bytes), kUseTuple);
      }
      if (ec) {
        co_return false;
      }
    }
    if (version < 11 || pieces < answer.stream.size()) {
      co_return false;  // the end of the body is the end of the connection
    }
    auto [end_ec, end_bytes] =
        co_await asio::async_write(connection.stream, http::make_chunk_last(), kUseTuple);
    co_return !end_ec;
  }

  static asio::awaitable<void> answerUnreadable(Connection& connection, beast::error_code ec,
                                                std::uint64_t limit) {
    http::status status;
    std::string message = ec.message();
    if (ec == http::error::body_limit) {
      status = http::status::payload_too_large;
      message = bodyTooLargeMessage(limit, "replay and the mocks take no larger body");
    } else if (ec == http::error::header_limit) {
      status = http::status::request_header_fields_too_large;
    } else if (ec.category() == make_error_code(http::error::bad_target).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message) {
      status = http::status::bad_request;
    } else {
      co_return;
    }
    auto response = localResponse(status, "mock.request.rejected", message, 11, false);
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
