#pragma once

// The per-exchange logic of the recording relay, templated on the client connection and the
// upstream pool so that it runs on sockets in relay.cpp and on Beast's in-memory test streams
// in the unit tests. Only relay.cpp and the relay's tests include it.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/algorithm/string/predicate.hpp>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/chaos.hpp"
#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/proxy/relay.hpp"
#include "agentvcr/store/recorder.hpp"
#include "http_message.hpp"
#include "upstream_pool.hpp"

namespace agentvcr::proxy {

/// Where the relay hands what it records: a store::Recorder in the proxy, a vector in tests.
struct ExchangeSink {
  /// Takes a finished exchange for the archive as store::Recorder::trySubmit() does: moves from
  /// it and returns true, or returns false (queue full) and leaves it intact. A non-empty
  /// `on_committed` is called, from any thread, once the exchange is committed.
  std::function<bool(protocol::Exchange& exchange, const std::function<void()>& on_committed)>
      submit;
  /// Marks a request in flight as its start time is taken (store::Recorder::requestBegan); the
  /// relay keeps the mark until the exchange was submitted. Empty: nothing is marked.
  std::function<store::Recorder::InFlight(std::int64_t started_ns)> began;
};

/// Where the relay reads the time it records (started_ns, request_ended_ns, upstream_sent_ns,
/// upstream_first_byte_ns, upstream_last_byte_ns, ended_ns, SSE arrivals): protocol::nowNs in the
/// proxy, a hand-set one in tests.
using RelayClock = std::function<std::int64_t()>;

inline constexpr std::size_t kRelayChunkBytes = 64 * 1024;
/// What raises RelayOptions::max_request_body: record's option (the demo's caller never nears it).
inline constexpr std::string_view kRaiseBodyLimit = "agentvcr record --max-body BYTES raises it";
inline constexpr std::size_t kFirstReadBytes = 16 * 1024;
// Short: a connection waiting on a full queue should resume soon after the writer catches up.
inline constexpr std::chrono::milliseconds kBackPressureMaxDelay{5};

inline bool isEventStream(const http::fields& fields) {
  return boost::istarts_with(fields[http::field::content_type], "text/event-stream");
}

/// The agent closed an idle keep-alive connection just as we reused it: the request never
/// reached it, so sending it again on a fresh connection is safe.
inline bool isStaleConnectionError(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe;
}

/// Arms the timeout of a stream that has one of its own (beast::tcp_stream, alone or under
/// TLS). The in-memory streams of the unit tests have none; they never stall.
template <class Stream>
void expiresAfter(Stream& stream, std::chrono::milliseconds timeout) {
  auto& lowest = beast::get_lowest_layer(stream);
  if constexpr (requires { lowest.expires_after(timeout); }) {
    lowest.expires_after(timeout);
  }
}

template <class Stream>
void expiresNever(Stream& stream) {
  auto& lowest = beast::get_lowest_layer(stream);
  if constexpr (requires { lowest.expires_never(); }) {
    lowest.expires_never();
  }
}

/// Ends the read pending on `stream` with operation_aborted. A socket stays open for the
/// answer that follows; an in-memory test stream, which cannot cancel one read, is closed.
template <class Stream>
void cancelRead(Stream& stream) {
  if constexpr (requires { stream.socket(); }) {
    beast::error_code ignored;
    stream.socket().cancel(ignored);
  } else {
    stream.close();
  }
}

/// Ends what `stream` sends: the peer reads the end of the connection now, while this side may
/// still be busy. An in-memory test stream, which cannot half-close, is closed.
template <class Stream>
void endSending(Stream& stream) {
  if constexpr (requires { stream.socket(); }) {
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  } else {
    stream.close();
  }
}

/// Feeds `parser` what `buffer` already holds: up to the end of the header while the header
/// is not done, then the body. A small message usually arrives whole in one read; parsing it
/// here spares the async reads that would hand it over a handler round trip later (and, for a
/// request header, the deadline timer). Stopping short is not an error: the async reads go on
/// from wherever this left the parser.
template <bool isRequest, class Body>
beast::error_code parseBuffered(http::parser<isRequest, Body>& parser, beast::flat_buffer& buffer) {
  const bool header_done = parser.is_header_done();
  beast::error_code ec;
  while (buffer.size() > 0 && !parser.is_done() && parser.is_header_done() == header_done) {
    const std::size_t used = parser.put(buffer.data(), ec);
    buffer.consume(used);
    if (ec == http::error::need_more) {
      return {};
    }
    if (ec || used == 0) {
      break;
    }
  }
  return ec;
}

/// An exchange on its way through the relay. `committed`: already handed to the recorder and
/// committed before the client got its answer (RelayOptions::commit_before_answer).
struct RelayedExchange : protocol::Exchange {
  bool committed = false;
  bool cut_mid_body = false;  ///< chaos' truncate: the client gets half of the agent's answer
  /// The server cut it (Connection::cut): the drain ran out, or a second signal came.
  bool cut_by_shutdown = false;
  /// When it began by the steady clock: how long it ran, whatever the recorded clock did.
  std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
  /// Where the answer carries agent cards to point at the relay, and the relay's URL (empty:
  /// unknown, the cards go out as the agent wrote them).
  protocol::a2a::CardCarrier card;
  std::string card_url;
};

/// Says on stderr, once per process and reason, why an agent card reached its client as the
/// agent wrote it: that client will call the agent directly, past the recorder.
inline void warnCardLeftAsWritten(std::string_view why) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(std::string(why)).second) {
    std::cerr << "[proxy.card.left] " << why
              << ": a client following this card calls the agent directly, past the recorder,"
                 " unless pointed at the recorder's URL by hand\n";
  }
}

/// Set from the recorder's writer thread, read on the worker's: the commit a response waits
/// for. The timer never fires on its own; cancelling it wakes the waiting coroutine.
struct CommitSignal {
  explicit CommitSignal(asio::io_context& io) : timer(io, asio::steady_timer::time_point::max()) {}

  asio::steady_timer timer;
  bool done = false;  ///< touched only on the worker's thread
};

/// Counts an exchange as unrecorded for as long as it lives.
class UnrecordedMark {
 public:
  explicit UnrecordedMark(std::atomic<std::int64_t>& count) : count_(count) { ++count_; }

  ~UnrecordedMark() { --count_; }

  UnrecordedMark(const UnrecordedMark&) = delete;
  UnrecordedMark& operator=(const UnrecordedMark&) = delete;

 private:
  std::atomic<std::int64_t>& count_;
};

/// What the relay answers itself, without the upstream, and why.
struct LocalAnswer {
  http::status status;
  protocol::ExchangeOutcome outcome;
  std::string_view id;  ///< the stable error id, e.g. "proxy.upstream.timeout"
  std::string message;
  /// The client's HTTP version; 1.1 when its request header could not be read.
  unsigned version = 11;
  bool keep_alive = false;
};

/// The record tap in front of one upstream, for one worker: reads each request from a client
/// connection, relays it, answers the client and hands the exchange to a sink. `Client` holds
/// the client's `stream` and its `busy` flag (proxy::Connection); `Pool` hands out upstream
/// connections (UpstreamPool). The awaited helpers take references into exchangeOne()'s frame,
/// which outlives them.
template <class Client, class Pool>
class RelayCore {
 public:
  using Upstream = typename Pool::Connection;
  using Request = http::request<http::string_body>;
  using ExchangeOutcome = protocol::ExchangeOutcome;

  RelayCore(asio::io_context& io, std::shared_ptr<const RelayOptions> options, Pool& pool,
            ExchangeSink sink, RelayClock clock, RelayCounters& counters)
      : io_(io),
        options_(std::move(options)),
        pool_(pool),
        sink_(std::move(sink)),
        clock_(std::move(clock)),
        counters_(counters),
        chaos_(options_->chaos ? options_->chaos
                               : std::make_shared<protocol::Chaos>(std::nullopt, false)) {}

  /// Reads one request, relays it, records it. Returns whether the connection stays open.
  /// `reached_url` is `http://` and the address the client's connection reached, where the
  /// cards it gets name the relay when neither --public-url nor the request's Host does (empty:
  /// unknown).
  asio::awaitable<bool> exchangeOne(Client& client, beast::flat_buffer& buffer,
                                    const std::string& client_address,
                                    const std::string& reached_url) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(options_->max_header_bytes);
    parser.body_limit(options_->max_request_body);

    if (buffer.size() == 0) {
      // Between requests a client may stay silent up to the idle timeout; once its next
      // request has begun, the header must arrive within the (shorter) header timeout.
      expiresAfter(client.stream, options_->client_idle_timeout);
      auto [first_ec, first_bytes] =
          co_await client.stream.async_read_some(buffer.prepare(kFirstReadBytes), kUseTuple);
      buffer.commit(first_bytes);
      if (first_ec) {
        co_return false;  // closed, reset or idle: nothing happened worth a record
      }
    }
    beast::error_code header_ec = parseBuffered(parser, buffer);
    if (!header_ec && !parser.is_header_done()) {
      auto [read_ec, read_bytes] = co_await readHeader(client, buffer, parser);
      header_ec = read_ec;
    }
    // From here until record() returns, a client may already hold an answer whose exchange
    // is not yet queued.
    UnrecordedMark unrecorded(counters_.unrecorded);
    RelayedExchange exchange;
    exchange.client_address = client_address;
    exchange.started_ns = clock_();
    // A live capture numbers exchanges by start: those that began after this one wait for it.
    const store::Recorder::InFlight in_flight =
        sink_.began ? sink_.began(exchange.started_ns) : store::Recorder::InFlight{};
    if (header_ec) {
      co_await rejectUnreadableRequest(client, header_ec, std::move(exchange));
      co_return false;
    }
    client.busy = true;

    const auto& header = parser.get();
    exchange.method = std::string(header.method_string());
    exchange.target = std::string(header.target());
    exchange.http_version = header.version();
    exchange.request_headers = net::toHeaders(header);
    const bool client_keep_alive = header.keep_alive();
    const unsigned client_version = header.version();

    if (boost::iequals(header[http::field::expect], "100-continue")) {
      // The client holds its body back until we say so; the upstream never sees Expect.
      http::response<http::empty_body> proceed{http::status::continue_, client_version};
      co_await http::async_write(client.stream, proceed, kUseTuple);
    }
    beast::error_code body_ec = parseBuffered(parser, buffer);
    if (!body_ec && !parser.is_done()) {
      expiresAfter(client.stream, options_->client_io_timeout);
      auto [read_ec, read_bytes] =
          co_await http::async_read(client.stream, buffer, parser, kUseTuple);
      body_ec = read_ec;
    }
    if (body_ec) {
      exchange.request_body = std::move(parser.get().body());
      if (client.cut) {
        cutByShutdown(exchange, ExchangeOutcome::ClientAborted,
                      "agentvcr stopped before the client had sent its whole request");
        exchange.ended_ns = clock_();
        co_await record(std::move(exchange));
        co_return false;
      }
      co_await rejectIncompleteBody(client, body_ec, client_version, std::move(exchange));
      co_return false;
    }
    exchange.request_ended_ns = clock_();

    Request request = parser.release();
    const protocol::ChaosDecision chaos = decideChaos(request);
    noteCard(request, exchange, reached_url);
    const std::optional<std::string> scope_refused = takeScope(request);
    stripHopByHop(request.base());
    request.set(http::field::host, options_->upstream.authority());
    if (!options_->upstream.base_path.empty()) {
      request.target(options_->upstream.base_path + std::string(request.target()));
    }
    request.version(11);
    request.keep_alive(true);
    if (!request.body().empty() || request.has_content_length()) {
      request.prepare_payload();
    }

    if (options_->commit_before_answer) {
      exchange.request_body = request.body();  // the record is written before forward returns
    }
    bool keep_open = false;
    if (!scope_refused) {
      keep_open =
          co_await answer(client, request, chaos, client_version, client_keep_alive, exchange);
    } else {
      const LocalAnswer refusal{.status = http::status::bad_request,
                                .outcome = ExchangeOutcome::RequestRejected,
                                .id = "proxy.request.bad_scope",
                                .message = *scope_refused,
                                .version = client_version,
                                .keep_alive = client_keep_alive};
      keep_open = co_await answerLocally(client, exchange, refusal);
    }
    exchange.request_body = std::move(request.body());
    exchange.ended_ns = clock_();
    co_await record(std::move(exchange));
    co_return keep_open&& client_keep_alive;
  }

 private:
  /// Reads the request header within the header timeout. Not the stream's own timeout: that
  /// one closes the socket, and a client too slow with its header is owed a 408. On expiry
  /// the read is cancelled instead and reported as beast::error::timeout.
  asio::awaitable<std::tuple<beast::error_code, std::size_t>> readHeader(
      Client& client, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser) {
    struct Deadline {
      bool reading = true;
      bool expired = false;
    };

    auto state = std::make_shared<Deadline>();
    asio::steady_timer deadline(io_, options_->client_header_timeout);
    deadline.async_wait([state, &client](beast::error_code ec) {
      // Only while the read is pending is `client` sure to be alive (one thread: `reading`
      // is cleared before any later handler runs).
      if (!ec && state->reading) {
        state->expired = true;
        cancelRead(client.stream);
      }
    });
    expiresNever(client.stream);
    auto [ec, bytes] = co_await http::async_read_header(client.stream, buffer, parser, kUseTuple);
    state->reading = false;
    deadline.cancel();
    if (ec && state->expired) {
      ec = beast::error::timeout;
    }
    co_return std::tuple{ec, bytes};
  }

  /// The request header could not be read: a closed or idle connection ends quietly; an
  /// oversized or malformed header gets its status and is recorded.
  asio::awaitable<void> rejectUnreadableRequest(Client& client, beast::error_code ec,
                                                RelayedExchange exchange) {
    if (ec == beast::error::timeout) {
      const LocalAnswer answer{.status = http::status::request_timeout,
                               .outcome = ExchangeOutcome::RequestRejected,
                               .id = "proxy.request.header_timeout",
                               .message = "request header not complete within " +
                                          std::to_string(options_->client_header_timeout.count()) +
                                          " ms"};
      co_await answerLocally(client, exchange, answer);
    } else if (ec == http::error::header_limit) {
      const LocalAnswer answer{.status = http::status::request_header_fields_too_large,
                               .outcome = ExchangeOutcome::RequestRejected,
                               .id = "proxy.request.header_too_large",
                               .message = "request header too large"};
      co_await answerLocally(client, exchange, answer);
    } else if (ec == http::error::body_limit) {
      const LocalAnswer answer{
          .status = http::status::payload_too_large,
          .outcome = ExchangeOutcome::RequestRejected,
          .id = "proxy.request.body_too_large",
          .message = bodyTooLargeMessage(options_->max_request_body, kRaiseBodyLimit)};
      co_await answerLocally(client, exchange, answer);
    } else if (ec.category() == make_error_code(http::error::bad_target).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message) {
      const LocalAnswer answer{.status = http::status::bad_request,
                               .outcome = ExchangeOutcome::RequestRejected,
                               .id = "proxy.request.malformed",
                               .message = "malformed request: " + ec.message()};
      co_await answerLocally(client, exchange, answer);
    } else {
      co_return;  // closed, reset or idle between requests: nothing happened worth a record
    }
    exchange.ended_ns = clock_();
    co_await record(std::move(exchange));
  }

  /// The body did not arrive whole: too large (413), or the client vanished or stalled.
  asio::awaitable<void> rejectIncompleteBody(Client& client, beast::error_code ec, unsigned version,
                                             RelayedExchange exchange) {
    if (ec == http::error::body_limit) {
      const LocalAnswer answer{
          .status = http::status::payload_too_large,
          .outcome = ExchangeOutcome::RequestRejected,
          .id = "proxy.request.body_too_large",
          .message = bodyTooLargeMessage(options_->max_request_body, kRaiseBodyLimit),
          .version = version};
      co_await answerLocally(client, exchange, answer);
    } else {
      exchange.outcome = ExchangeOutcome::ClientAborted;
      exchange.error = "[proxy.client.incomplete_request] " + ec.message();
    }
    exchange.ended_ns = clock_();
    co_await record(std::move(exchange));
  }

  /// What chaos does with `request`, read before it is rewritten for the upstream. The chaos
  /// header is the caller's word to agentvcr, never the agent's business: it is removed here.
  protocol::ChaosDecision decideChaos(Request& request) {
    std::optional<std::string_view> forced;
    const auto header = request.find(protocol::kChaosHeader);
    if (header != request.end()) {
      forced = header->value();
    }
    protocol::ChaosDecision decision =
        chaos_->decide({request.method_string(), request.target(), request.body(), forced,
                        request.count(protocol::kChaosHeader) > 1});
    request.erase(protocol::kChaosHeader);
    return decision;
  }

  /// Why `request`'s replay scope is refused, if it is: named badly, or named twice. The scope is
  /// kept in the recorded request headers, for replay (docs/replay.md, "Scopes"), and removed
  /// here, every copy of it: it is the caller's word to agentvcr, never the agent's.
  static std::optional<std::string> takeScope(Request& request) {
    const auto header = request.find(protocol::kScopeHeader);
    if (header == request.end()) {
      return std::nullopt;
    }
    std::optional<std::string> refused;
    if (request.count(protocol::kScopeHeader) > 1) {
      refused = std::string(protocol::kOneScopeRule);
    } else if (!protocol::isScopeName(header->value())) {
      refused = std::string(protocol::kScopeHeader) + ": " + std::string(protocol::kScopeNameRule);
    }
    request.erase(protocol::kScopeHeader);
    return refused;
  }

  /// Notes whether the answer to `request` will carry agent cards to point at the relay and,
  /// if so, asks the agent for them whole and plain: no coding the relay would have to undo, no
  /// 304, as the client's copy will not be the agent's, and a GET in place of a HEAD, as the
  /// agent's HEAD would announce the length and tag of its own card, not of the one the client
  /// gets.
  void noteCard(Request& request, RelayedExchange& exchange, const std::string& reached_url) const {
    if (!options_->rewrite_cards) {
      return;
    }
    exchange.card =
        protocol::a2a::cardCarrierOf(request.method_string(), request.target(), request.body());
    if (!exchange.card) {
      return;
    }
    exchange.card_url = cardUrl(request, reached_url);
    request.set(http::field::accept_encoding, "identity");
    request.erase(http::field::if_none_match);
    request.erase(http::field::if_modified_since);
    if (request.method() == http::verb::head) {
      request.method(http::verb::get);
    }
  }

  /// Where the client of `request` reaches the relay: --public-url, else the Host the request
  /// named, else the address its connection reached. An HTTP/1.0 client may name no Host, and a
  /// wildcard listener's own address (0.0.0.0) is no place to call.
  std::string cardUrl(const Request& request, const std::string& reached_url) const {
    if (!options_->public_url.empty()) {
      return options_->public_url;
    }
    const auto host = request[http::field::host];
    return host.empty() ? reached_url : "http://" + std::string(host);
  }

  /// Points the agent card `response` carries at the relay: the client gets the card rewritten
  /// (its length and entity tag to match), the exchange a note of what moved. Returns the
  /// agent's own bytes, for the archive; empty when the card goes out as the agent wrote it.
  std::string pointCardHere(http::response<http::string_body>& response,
                            RelayedExchange& exchange) const {
    if (!exchange.card || response.result_int() / 100 != 2) {
      return {};
    }
    if (exchange.card_url.empty()) {
      warnCardLeftAsWritten(
          "an agent card was asked for without a Host on a connection whose "
          "address is unknown");
      return {};
    }
    const auto coding = response[http::field::content_encoding];
    if (!coding.empty() && !boost::iequals(coding, "identity")) {
      warnCardLeftAsWritten("an agent card came " + std::string(coding) +
                            "-encoded although the recorder asked for identity");
      return {};
    }
    const std::string upstream = options_->upstream.toString();
    auto rewrite = protocol::a2a::rebaseCard(response.body(), exchange.card,
                                             {.from = upstream, .to = exchange.card_url});
    if (rewrite.result == protocol::a2a::CardRewriteResult::Signed) {
      warnCardLeftAsWritten("a signed agent card is left as the agent signed it");
      exchange.card_rewrite = rewrite.note();
      return {};
    }
    if (rewrite.result != protocol::a2a::CardRewriteResult::Rewritten) {
      return {};
    }
    exchange.card_rewrite = rewrite.note();
    std::string agent_body = std::exchange(response.body(), std::move(rewrite.body));
    if (response.find(http::field::etag) != response.end()) {
      response.set(http::field::etag, protocol::a2a::rewrittenCardTag(response.body()));
    }
    return agent_body;
  }

  /// Frames a card's answer, read whole, for the client: the length of what the client gets
  /// (the agent may have sent it in chunks, and the card may have been rewritten), and no body
  /// for a HEAD, whose card the agent was asked for with a GET. The archive keeps a HEAD as a
  /// HEAD: the agent's header, no body.
  static void frameCardAnswer(http::response<http::string_body>& response, bool head,
                              std::string& agent_body) {
    const bool bodiless = response.result_int() / 100 == 1 ||
                          response.result() == http::status::no_content ||
                          response.result() == http::status::not_modified;
    if (!bodiless) {
      response.prepare_payload();
    }
    if (head) {
      response.body().clear();
      agent_body.clear();
    }
  }

  /// Answers the client: relays `request` upstream, or gives the fault chaos decided on.
  /// Returns whether the client connection can carry another request.
  asio::awaitable<bool> answer(Client& client, Request& request,
                               const protocol::ChaosDecision& chaos, unsigned client_version,
                               bool client_keep_alive, RelayedExchange& exchange) {
    if (chaos.refusal) {
      co_return co_await answerReply(client, exchange, *chaos.refusal,
                                     ExchangeOutcome::RequestRejected, chaos.refusal_error,
                                     client_version, client_keep_alive);
    }
    if (chaos.fault) {
      const protocol::FaultKind kind = *chaos.fault;
      exchange.fault = protocol::faultName(kind);
      if (!protocol::faultReachesAgent(kind)) {
        const protocol::ChaosCall call{request.method_string(), request.target(), request.body(),
                                       std::nullopt};
        const std::string error =
            std::string("[chaos.") + exchange.fault + "] fault injected by agentvcr --chaos";
        co_return co_await answerReply(client, exchange, chaos_->injectedAnswer(kind, call),
                                       ExchangeOutcome::Injected, error, client_version,
                                       client_keep_alive);
      }
      if (kind == protocol::FaultKind::Latency) {
        asio::steady_timer timer(io_, chaos_->spec().latency);
        co_await timer.async_wait(kUseTuple);
      }
      exchange.cut_mid_body = kind == protocol::FaultKind::Truncate;
    }
    co_return co_await forward(client, request, client_version, client_keep_alive, exchange);
  }

  /// Sends `request` upstream and relays the answer. Returns whether the client connection
  /// can carry another request.
  asio::awaitable<bool> forward(Client& client, Request& request, unsigned client_version,
                                bool client_keep_alive, RelayedExchange& exchange) {
    for (int attempt = 0;; ++attempt) {
      if (client.cut) {
        // Cut before it reached the agent (during chaos' latency, say): it never will.
        co_return co_await answerCut(client, exchange, client_version);
      }
      exchange.upstream_sent_ns = 0;  // a stale connection's write does not count
      bool reused = false;
      ConnectFailure failure;
      // (Not a conditional expression: GCC 12 miscompiles co_await inside `?:`.)
      std::unique_ptr<Upstream> upstream;
      if (attempt == 0) {
        upstream = co_await pool_.acquire(reused, failure);
      } else {
        upstream = co_await pool_.connect(failure);
      }
      if (!upstream) {
        if (client.cut) {
          co_return co_await answerCut(client, exchange, client_version);
        }
        if (failure.timed_out) {
          const LocalAnswer answer{.status = http::status::gateway_timeout,
                                   .outcome = ExchangeOutcome::UpstreamTimeout,
                                   .id = "proxy.upstream.connect_timeout",
                                   .message = "upstream " + options_->upstream.toString() +
                                              " did not accept the connection",
                                   .version = client_version,
                                   .keep_alive = client_keep_alive};
          co_return co_await answerLocally(client, exchange, answer);
        }
        const LocalAnswer answer{.status = http::status::bad_gateway,
                                 .outcome = ExchangeOutcome::UpstreamError,
                                 .id = "proxy.upstream.refused",
                                 .message = "upstream " + options_->upstream.toString() +
                                            " unreachable: " + failure.ec.message(),
                                 .version = client_version,
                                 .keep_alive = client_keep_alive};
        co_return co_await answerLocally(client, exchange, answer);
      }

      expiresAfter(upstream->stream, options_->upstream_timeout);
      auto [ec, written] = co_await writeWholeMessage(upstream->stream, request);
      if (!ec) {
        exchange.upstream_sent_ns = clock_();
      }
      if (!ec && upstream->buffer.size() == 0) {
        // Wait for the first response byte on its own to time it exactly.
        auto [read_ec, read] = co_await upstream->stream.async_read_some(
            upstream->buffer.prepare(kRelayChunkBytes), kUseTuple);
        upstream->buffer.commit(read);
        ec = read_ec;
      }
      if (ec) {
        if (client.cut) {
          co_return co_await answerCut(client, exchange, client_version);
        }
        if (reused && attempt == 0 && isStaleConnectionError(ec)) {
          continue;
        }
        if (ec == beast::error::timeout) {
          const LocalAnswer answer{.status = http::status::gateway_timeout,
                                   .outcome = ExchangeOutcome::UpstreamTimeout,
                                   .id = "proxy.upstream.timeout",
                                   .message = "upstream did not answer in time",
                                   .version = client_version,
                                   .keep_alive = client_keep_alive};
          co_return co_await answerLocally(client, exchange, answer);
        }
        const LocalAnswer answer{
            .status = http::status::bad_gateway,
            .outcome = ExchangeOutcome::UpstreamError,
            .id = "proxy.upstream.reset",
            .message = "upstream closed the connection before answering: " + ec.message(),
            .version = client_version,
            .keep_alive = client_keep_alive};
        co_return co_await answerLocally(client, exchange, answer);
      }
      exchange.upstream_first_byte_ns = clock_();
      co_return co_await relayResponse(client, std::move(upstream),
                                       request.method() == http::verb::head, client_version,
                                       client_keep_alive, exchange);
    }
  }

  /// Reads the upstream's response header and relays the response, whole when it is small
  /// and its length is known, chunk by chunk otherwise.
  asio::awaitable<bool> relayResponse(Client& client, std::unique_ptr<Upstream> upstream,
                                      bool head_request, unsigned client_version,
                                      bool client_keep_alive, RelayedExchange& exchange) {
    http::response_parser<http::empty_body> header_parser;
    header_parser.header_limit(options_->max_header_bytes);
    header_parser.body_limit(boost::none);
    header_parser.skip(head_request);
    expiresAfter(upstream->stream, options_->upstream_timeout);
    beast::error_code ec = parseBuffered(header_parser, upstream->buffer);
    if (!ec && !header_parser.is_header_done()) {
      auto [read_ec, read] = co_await http::async_read_header(upstream->stream, upstream->buffer,
                                                              header_parser, kUseTuple);
      ec = read_ec;
    }
    if (ec) {
      if (client.cut) {
        co_return co_await answerCut(client, exchange, client_version);
      }
      co_return co_await upstreamFailedBeforeHeader(client, ec, client_version, client_keep_alive,
                                                    exchange);
    }
    const auto length = header_parser.content_length();
    // A card is read whole, whatever its length, to be rewritten.
    const bool small = exchange.card || (length && *length <= options_->buffered_response_limit);
    const bool buffered = header_parser.is_done() || (small && !isEventStream(header_parser.get()));
    if (buffered) {
      co_return co_await relayBuffered(client, std::move(upstream), std::move(header_parser),
                                       client_version, client_keep_alive, exchange);
    }
    co_return co_await relayStreaming(client, std::move(upstream), std::move(header_parser),
                                      client_version, client_keep_alive, exchange);
  }

  asio::awaitable<bool> relayBuffered(Client& client, std::unique_ptr<Upstream> upstream,
                                      http::response_parser<http::empty_body>&& header_parser,
                                      unsigned client_version, bool client_keep_alive,
                                      RelayedExchange& exchange) {
    http::response_parser<http::string_body> parser{std::move(header_parser)};
    beast::error_code ec = parseBuffered(parser, upstream->buffer);
    if (!ec && !parser.is_done()) {
      auto [read_ec, read] =
          co_await http::async_read(upstream->stream, upstream->buffer, parser, kUseTuple);
      ec = read_ec;
    }
    if (ec) {
      if (client.cut) {
        co_return co_await answerCut(client, exchange, client_version);
      }
      co_return co_await upstreamFailedBeforeHeader(client, ec, client_version, client_keep_alive,
                                                    exchange);
    }
    exchange.upstream_last_byte_ns = clock_();
    auto response = parser.release();
    const bool upstream_reusable = response.keep_alive();
    exchange.status = static_cast<int>(response.result_int());
    exchange.response_headers = net::toHeaders(response.base());
    exchange.response_from_upstream = true;
    stripHopByHop(response.base());
    response.version(client_version);
    response.keep_alive(client_keep_alive);
    // The agent's own bytes, for the archive, when the client gets a card pointed at us.
    std::string agent_body = pointCardHere(response, exchange);
    if (exchange.card) {
      frameCardAnswer(response, exchange.method == "HEAD", agent_body);
    }
    const auto take_agent_body = [&] {
      exchange.response_body =
          agent_body.empty() ? std::move(response.body()) : std::move(agent_body);
    };
    if (exchange.cut_mid_body) {
      // Said before a commit that precedes the answer: the committed row carries it.
      exchange.error = "[chaos.truncate] the client got " +
                       std::to_string(response.body().size() / 2) + " of " +
                       std::to_string(response.body().size()) + " body bytes";
    }
    if (options_->commit_before_answer) {
      exchange.response_body = agent_body.empty() ? response.body() : agent_body;
      co_await commitBeforeAnswer(exchange);
    }

    expiresAfter(client.stream, options_->client_io_timeout);
    if (exchange.cut_mid_body) {
      co_await writeCutMessage(client.stream, response);
      take_agent_body();
      if (upstream_reusable) {
        pool_.release(std::move(upstream));
      }
      co_return false;
    }
    auto [write_ec, written] = co_await writeWholeMessage(client.stream, response);
    take_agent_body();
    if (upstream_reusable) {
      pool_.release(std::move(upstream));
    }
    if (write_ec) {
      clientFailed(client, exchange, write_ec);
      co_return false;
    }
    co_return true;
  }

  asio::awaitable<bool> relayStreaming(Client& client, std::unique_ptr<Upstream> upstream,
                                       http::response_parser<http::empty_body>&& header_parser,
                                       unsigned client_version, bool client_keep_alive,
                                       RelayedExchange& exchange) {
    http::response_parser<http::buffer_body> parser{std::move(header_parser)};
    http::response<http::buffer_body> out;
    out.base() = parser.get().base();
    exchange.status = static_cast<int>(out.result_int());
    exchange.response_headers = net::toHeaders(out.base());
    exchange.response_from_upstream = true;
    stripHopByHop(out.base());
    out.version(client_version);
    bool keep_alive = client_keep_alive;
    if (!parser.content_length()) {
      // Unknown length: chunk it for an HTTP/1.1 client; an HTTP/1.0 one reads to close.
      if (client_version >= 11) {
        out.chunked(true);
      } else {
        keep_alive = false;
      }
    }
    out.keep_alive(keep_alive);

    const bool event_stream = isEventStream(out.base());
    std::vector<char> chunk(kRelayChunkBytes);
    http::response_serializer<http::buffer_body> serializer{out};
    do {
      if (!parser.is_done()) {
        // read_some, not read: hand each piece to the client as soon as it arrives (SSE
        // events must not wait for the buffer to fill), and time each wait on its own.
        auto [ec, got] = co_await readPiece(*upstream, parser, chunk, event_stream, exchange);
        // The client already has the status line: all we can do is cut its connection.
        if (client.cut) {
          cutByShutdown(exchange, ExchangeOutcome::UpstreamTimeout,
                        "agentvcr stopped before the agent had sent its whole answer");
          co_return false;
        }
        if (ec) {
          exchange.outcome = ec == beast::error::timeout ? ExchangeOutcome::UpstreamTimeout
                                                         : ExchangeOutcome::UpstreamError;
          exchange.error = "[proxy.upstream.broken_body] " + ec.message();
          co_return false;
        }
        out.body().data = got ? chunk.data() : nullptr;
        out.body().size = got;
        out.body().more = !parser.is_done();
      } else {
        out.body().data = nullptr;
        out.body().size = 0;
        out.body().more = false;
      }
      if (!out.body().more) {
        co_await commitBeforeAnswer(exchange);  // the end of the message waits for the archive
      }
      expiresAfter(client.stream, options_->client_io_timeout);
      auto [write_ec, written] = co_await http::async_write(client.stream, serializer, kUseTuple);
      if (write_ec && write_ec != http::error::need_buffer) {
        clientFailed(client, exchange, write_ec);
        co_return false;
      }
      if (exchange.cut_mid_body && !exchange.response_body.empty() && !serializer.is_done()) {
        // Truncate: the client keeps the first piece and loses the connection at once; the
        // archive still gets the agent's whole answer.
        exchange.error = "[chaos.truncate] the client got the first " +
                         std::to_string(exchange.response_body.size()) + " body bytes";
        endSending(client.stream);
        co_await readRestForRecord(std::move(upstream), parser, chunk, event_stream, exchange);
        co_return false;
      }
    } while (!serializer.is_done());

    if (parser.keep_alive()) {
      pool_.release(std::move(upstream));
    }
    co_return keep_alive;
  }

  /// Reads the next piece of a streamed answer into `chunk`, within the upstream timeout, and
  /// keeps it for the record (with its arrival time, in an event stream). Gives the error, if
  /// any, and the size of the piece.
  asio::awaitable<std::tuple<beast::error_code, std::size_t>> readPiece(
      Upstream& upstream, http::response_parser<http::buffer_body>& parser,
      std::vector<char>& chunk, bool event_stream, RelayedExchange& exchange) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    expiresAfter(upstream.stream, options_->upstream_timeout);
    auto [ec, read] =
        co_await http::async_read_some(upstream.stream, upstream.buffer, parser, kUseTuple);
    if (ec && ec != http::error::need_buffer) {
      co_return std::tuple{ec, std::size_t{0}};
    }
    const std::size_t got = chunk.size() - parser.get().body().size;
    if (parser.is_done()) {
      exchange.upstream_last_byte_ns = clock_();
    }
    keepForRecord(exchange, std::string_view(chunk.data(), got));
    if (event_stream && got > 0) {
      exchange.response_arrivals.push_back({exchange.response_body.size(), clock_()});
    }
    co_return std::tuple{beast::error_code{}, got};
  }

  /// Reads what is left of a streamed answer the client no longer gets into the record. The
  /// connection goes back to the pool only when the answer ended cleanly.
  asio::awaitable<void> readRestForRecord(std::unique_ptr<Upstream> upstream,
                                          http::response_parser<http::buffer_body>& parser,
                                          std::vector<char>& chunk, bool event_stream,
                                          RelayedExchange& exchange) {
    while (!parser.is_done()) {
      auto [ec, got] = co_await readPiece(*upstream, parser, chunk, event_stream, exchange);
      if (ec) {
        exchange.error += "; the rest of the answer was not read: " + ec.message();
        co_return;
      }
    }
    if (parser.keep_alive()) {
      pool_.release(std::move(upstream));
    }
  }

  void keepForRecord(RelayedExchange& exchange, std::string_view bytes) {
    const std::uint64_t room = options_->max_recorded_response_body -
                               std::min<std::uint64_t>(options_->max_recorded_response_body,
                                                       exchange.response_body.size());
    if (bytes.size() > room && exchange.error.empty()) {
      exchange.error = "[proxy.record.truncated] response body recorded up to " +
                       std::to_string(options_->max_recorded_response_body) + " bytes";
    }
    exchange.response_body.append(bytes.substr(0, room));
  }

  asio::awaitable<bool> upstreamFailedBeforeHeader(Client& client, beast::error_code ec,
                                                   unsigned client_version, bool client_keep_alive,
                                                   RelayedExchange& exchange) {
    if (ec == beast::error::timeout) {
      const LocalAnswer answer{.status = http::status::gateway_timeout,
                               .outcome = ExchangeOutcome::UpstreamTimeout,
                               .id = "proxy.upstream.timeout",
                               .message = "upstream did not finish its response in time",
                               .version = client_version,
                               .keep_alive = client_keep_alive};
      co_return co_await answerLocally(client, exchange, answer);
    }
    const LocalAnswer answer{.status = http::status::bad_gateway,
                             .outcome = ExchangeOutcome::UpstreamError,
                             .id = "proxy.upstream.bad_response",
                             .message = "upstream sent an unreadable response: " + ec.message(),
                             .version = client_version,
                             .keep_alive = client_keep_alive};
    co_return co_await answerLocally(client, exchange, answer);
  }

  /// The server cut the exchange before the agent had answered (Connection::cut): the client
  /// gets a 503 that says so, and the connection closes. The agent may have run the request:
  /// the record keeps it.
  asio::awaitable<bool> answerCut(Client& client, RelayedExchange& exchange, unsigned version) {
    const LocalAnswer answer{.status = http::status::service_unavailable,
                             .outcome = ExchangeOutcome::UpstreamTimeout,
                             .id = "proxy.shutdown",
                             .message = "agentvcr stopped before the agent had answered",
                             .version = version,
                             .keep_alive = false};
    exchange.cut_by_shutdown = true;
    co_return co_await answerLocally(client, exchange, answer);
  }

  /// Notes that the server cut the exchange where the client cannot be told any more.
  static void cutByShutdown(RelayedExchange& exchange, ExchangeOutcome outcome,
                            std::string_view what) {
    exchange.cut_by_shutdown = true;
    exchange.outcome = outcome;
    exchange.error = "[proxy.shutdown] " + std::string(what);
  }

  /// Writing the answer to the client failed: it went away, or the server cut it meanwhile.
  static void clientFailed(const Client& client, RelayedExchange& exchange,
                           const beast::error_code& ec) {
    if (client.cut) {
      cutByShutdown(exchange, ExchangeOutcome::ClientAborted,
                    "agentvcr stopped before the client had read the whole answer");
      return;
    }
    exchange.outcome = ExchangeOutcome::ClientAborted;
    exchange.error = "[proxy.client.gone] " + ec.message();
  }

  /// Names a cut exchange on stderr: whoever stopped agentvcr learns which call it cut, and
  /// finds it in the archive with its error.
  static void logCut(const RelayedExchange& exchange) {
    const auto ran = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - exchange.began);
    std::ostringstream line;
    line << exchange.error << ": " << exchange.method << " " << exchange.target << " from "
         << exchange.client_address << ", cut after " << std::fixed << std::setprecision(1)
         << static_cast<double>(ran.count()) / 1000.0 << " s\n";
    std::cerr << line.str();
  }

  /// Answers the client without the upstream and notes why in the exchange. Callers name the
  /// answer before the co_await: GCC 12 destroys a braced temporary in a co_await expression
  /// twice.
  asio::awaitable<bool> answerLocally(Client& client, RelayedExchange& exchange,
                                      const LocalAnswer& answer) {
    protocol::HttpReply reply{static_cast<int>(answer.status),
                              "application/json",
                              {},
                              protocol::errorBody(answer.id, answer.message),
                              {}};
    co_return co_await answerReply(client, exchange, std::move(reply), answer.outcome,
                                   "[" + std::string(answer.id) + "] " + answer.message,
                                   answer.version, answer.keep_alive);
  }

  /// Answers the client with `reply`, in the agent's place, after its hold (a stall waits at
  /// most the upstream timeout, as a silent agent would make it), and notes `outcome` and
  /// `error` in the exchange.
  asio::awaitable<bool> answerReply(Client& client, RelayedExchange& exchange,
                                    protocol::HttpReply reply, ExchangeOutcome outcome,
                                    std::string error, unsigned version, bool keep_alive) {
    if (reply.hold.count() > 0) {
      asio::steady_timer timer(io_);
      timer.expires_after(
          std::min<std::chrono::nanoseconds>(reply.hold, options_->upstream_timeout));
      co_await timer.async_wait(kUseTuple);
    }
    exchange.response_from_upstream = false;
    exchange.outcome = outcome;
    exchange.error = std::move(error);
    if (reply.delivery == protocol::Delivery::CloseBeforeAnswer) {
      co_await commitBeforeAnswer(exchange);
      co_return false;
    }
    auto response = wholeResponse(std::move(reply), version, keep_alive);
    exchange.status = static_cast<int>(response.result_int());
    exchange.response_headers = net::toHeaders(response.base());
    exchange.response_body = response.body();
    co_await commitBeforeAnswer(exchange);
    expiresAfter(client.stream, options_->client_io_timeout);
    auto [ec, written] = co_await http::async_write(client.stream, response, kUseTuple);
    co_return !ec && keep_alive;
  }

  /// Hands the exchange to the recorder, unless it was committed before the answer. When the
  /// queue is full this connection waits (without blocking the worker) before it reads its
  /// next request: back-pressure, never a silent drop.
  asio::awaitable<void> record(RelayedExchange exchange) {
    if (exchange.cut_by_shutdown) {
      logCut(exchange);
    }
    if (options_->metrics) {
      options_->metrics->observeRelayed(exchange);
    }
    if (!exchange.committed) {
      co_await submitWaiting(exchange, nullptr);
    }
  }

  /// With commit_before_answer: hands a copy of the exchange as it stands (the answer
  /// complete; request body, status, headers and timings known) to the recorder and waits for
  /// its commit, so that the client's last bytes go out only once the archive holds them. If
  /// the client then vanishes, the record still says the exchange completed.
  asio::awaitable<void> commitBeforeAnswer(RelayedExchange& exchange) {
    if (!options_->commit_before_answer || exchange.committed) {
      co_return;
    }
    exchange.ended_ns = clock_();
    auto signal = std::make_shared<CommitSignal>(io_);
    protocol::Exchange copy = exchange;
    // Named, not a temporary in the co_await expression: GCC 12 may destroy such temporaries
    // while the coroutine is suspended.
    std::function<void()> notify = [signal, &io = io_] {
      asio::post(io, [signal] {
        signal->done = true;
        signal->timer.cancel();
      });
    };
    co_await submitWaiting(copy, notify);
    while (!signal->done) {
      co_await signal->timer.async_wait(kUseTuple);
    }
    exchange.committed = true;
  }

  /// trySubmit() until the queue takes the exchange, pausing this connection between tries.
  asio::awaitable<void> submitWaiting(protocol::Exchange& exchange,
                                      std::function<void()> on_committed) {
    auto submitted = [&] { return sink_.submit(exchange, on_committed); };
    if (submitted()) {
      co_return;  // the usual case: no timer to set up
    }
    std::chrono::milliseconds delay{1};
    asio::steady_timer timer(io_);
    do {
      timer.expires_after(delay);
      co_await timer.async_wait(kUseTuple);
      delay = std::min(delay * 2, kBackPressureMaxDelay);
    } while (!submitted());
  }

  asio::io_context& io_;
  std::shared_ptr<const RelayOptions> options_;
  Pool& pool_;
  ExchangeSink sink_;
  RelayClock clock_;
  RelayCounters& counters_;
  std::shared_ptr<protocol::Chaos> chaos_;
};

}  // namespace agentvcr::proxy
