// The relay's per-exchange logic (RelayCore) on Beast's in-memory test streams: every read and
// write of either side made to fail in turn, limits, malformed requests and the recorded times,
// without sockets or an archive.

#include <chrono>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/beast/_experimental/test/stream.hpp>
#include <gtest/gtest.h>

#include "agentvcr/store/recorder.hpp"
#include "relay_core.hpp"
#include "temp_dir.hpp"

namespace agentvcr::proxy {
namespace {

namespace test = beast::test;
using protocol::ExchangeOutcome;

constexpr std::size_t kNeverFail = std::numeric_limits<std::size_t>::max();

/// The client side of one connection, as RelayCore sees proxy::Connection.
struct TestClient {
  test::stream stream;
  bool busy = false;
  bool cut = false;
};

/// Hands out the one upstream connection it was given; asked again, it is refused.
class OneConnectionPool {
 public:
  using Connection = UpstreamConnection<test::stream>;

  explicit OneConnectionPool(std::unique_ptr<Connection> connection)
      : next_(std::move(connection)) {}

  asio::awaitable<std::unique_ptr<Connection>> acquire(bool& reused, ConnectFailure& failure) {
    reused = false;
    co_return co_await connect(failure);
  }

  asio::awaitable<std::unique_ptr<Connection>> connect(ConnectFailure& failure) {
    if (!next_) {
      failure.ec = asio::error::connection_refused;
    }
    co_return std::move(next_);
  }

  void release(std::unique_ptr<Connection> connection) { released_ = std::move(connection); }

  bool released() const { return released_ != nullptr; }

 private:
  std::unique_ptr<Connection> next_;
  std::unique_ptr<Connection> released_;
};

/// One exchange to run: what the client sends, what the upstream answers, and where it breaks.
struct Script {
  std::string request;
  std::string response;
  /// The 1-based read or write of that side's stream that fails, and every one after it.
  std::size_t client_fails_at = kNeverFail;
  std::size_t upstream_fails_at = kNeverFail;
  /// Bytes one read of that side's stream returns at most (many reads for one message).
  std::size_t client_read_size = std::numeric_limits<std::size_t>::max();
  std::size_t upstream_read_size = std::numeric_limits<std::size_t>::max();
  /// false: the pool has no connection to hand out (refused).
  bool upstream_reachable = true;
  RelayOptions options{};
  /// Where the relay marks its request in flight (ExchangeSink::began), if anywhere.
  store::Recorder* in_flight_marks = nullptr;
};

/// What came of a Script.
struct Result {
  bool finished = false;  ///< exchangeOne() returned within the time allowed
  bool keep_open = false;
  std::vector<protocol::Exchange> recorded;
  std::string client_received;
  std::string upstream_received;
  std::int64_t unrecorded_after = -1;
  /// Script::in_flight_marks's requests in flight as each exchange was submitted, and after.
  std::vector<std::uint64_t> in_flight_at_submit;
  std::uint64_t in_flight_after = 0;
};

/// Each call is 1,000 ns after the previous one, the first at 1,000.
RelayClock tickingClock() {
  return [now = std::int64_t{0}]() mutable { return now += 1000; };
}

Result run(const Script& script, RelayClock clock = tickingClock()) {
  asio::io_context io;
  const beast::error_code failure = asio::error::connection_reset;
  test::fail_count client_fails(script.client_fails_at, failure);
  test::fail_count upstream_fails(script.upstream_fails_at, failure);

  // The relay's ends read what the test appended, then end of stream; what they write
  // arrives at the peers.
  TestClient client{test::stream(io, client_fails), false};
  test::stream client_peer(io);
  client.stream.connect(client_peer);
  client.stream.read_size(script.client_read_size);
  client.stream.append(script.request);
  client.stream.close_remote();

  auto upstream = std::make_unique<OneConnectionPool::Connection>(
      OneConnectionPool::Connection{test::stream(io, upstream_fails), {}});
  test::stream upstream_peer(io);
  upstream->stream.connect(upstream_peer);
  upstream->stream.read_size(script.upstream_read_size);
  upstream->stream.append(script.response);
  upstream->stream.close_remote();

  Result result;
  RelayCounters counters;
  OneConnectionPool pool(script.upstream_reachable ? std::move(upstream) : nullptr);
  ExchangeSink sink;
  store::Recorder* const marks = script.in_flight_marks;
  sink.submit = [&result, marks](protocol::Exchange& exchange,
                                 const std::function<void()>& on_committed) {
    if (marks != nullptr) {
      result.in_flight_at_submit.push_back(marks->stats().in_flight);
    }
    result.recorded.push_back(std::move(exchange));
    if (on_committed) {
      on_committed();
    }
    return true;
  };
  if (marks != nullptr) {
    sink.began = [marks](std::int64_t started_ns) { return marks->requestBegan(started_ns); };
  }
  RelayCore<TestClient, OneConnectionPool> core(
      io, std::make_shared<const RelayOptions>(script.options), pool, sink, std::move(clock),
      counters);

  beast::flat_buffer buffer;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        result.keep_open =
            co_await core.exchangeOne(client, buffer, "127.0.0.1:5000", "http://127.0.0.1:8080");
        result.finished = true;
      },
      asio::detached);
  io.run_for(std::chrono::seconds(10));
  result.client_received = std::string(client_peer.str());
  result.upstream_received = std::string(upstream_peer.str());
  result.unrecorded_after = counters.unrecorded.load();
  result.in_flight_after = marks != nullptr ? marks->stats().in_flight : 0;
  return result;
}

const std::string kRequestBody = "{\"input\":\"hello, relay!!\"}";
const std::string kRequest =
    "POST /v1/responses HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\n"
    "Content-Length: " +
    std::to_string(kRequestBody.size()) + "\r\nConnection: close\r\n\r\n" + kRequestBody;
const std::string kResponse =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
    "{\"output\":\"hi\"}";

std::size_t readsFor(std::size_t bytes, std::size_t read_size) {
  return (bytes + read_size - 1) / read_size;
}

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST(RelayCore, RelaysAndRecordsOneExchange) {
  Script script{.request = kRequest, .response = kResponse};
  script.options.upstream = *net::parseUrl("http://agent.example:8080");

  Result result = run(script);

  ASSERT_TRUE(result.finished);
  EXPECT_FALSE(result.keep_open);  // the client asked for Connection: close
  ASSERT_EQ(result.recorded.size(), 1u);
  const auto& exchange = result.recorded[0];
  EXPECT_EQ(exchange.outcome, ExchangeOutcome::Complete);
  EXPECT_EQ(exchange.error, "");
  EXPECT_EQ(exchange.client_address, "127.0.0.1:5000");
  EXPECT_EQ(exchange.method, "POST");
  EXPECT_EQ(exchange.target, "/v1/responses");
  EXPECT_EQ(exchange.request_body, kRequestBody);
  EXPECT_EQ(exchange.status, 200);
  EXPECT_EQ(exchange.response_body, "{\"output\":\"hi\"}");
  EXPECT_TRUE(exchange.response_from_upstream);
  EXPECT_TRUE(startsWith(result.upstream_received, "POST /v1/responses HTTP/1.1\r\n"));
  EXPECT_NE(result.upstream_received.find("Host: agent.example:8080\r\n"), std::string::npos);
  EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(result.unrecorded_after, 0);
}

TEST(RelayCore, ARequestIsMarkedInFlightUntilItsExchangeIsSubmittedWhateverBecomesOfIt) {
  testing::TempDir dir;
  store::RecorderOptions options;
  options.live_order = true;
  store::Recorder recorder(dir.file("a.db"), store::SessionInfo{}, options);
  Script answered{.request = kRequest, .response = kResponse, .in_flight_marks = &recorder};
  // The client vanishes after its header: the relay answers nothing and records it anyway.
  Script vanished = answered;
  vanished.client_read_size = kRequest.find("\r\n\r\n") + 4;
  vanished.client_fails_at = 2;
  // The agent is unreachable: the relay answers 502 itself.
  Script refused = answered;
  refused.upstream_reachable = false;

  for (const Script* script : {&answered, &vanished, &refused}) {
    Result result = run(*script);
    ASSERT_TRUE(result.finished);
    ASSERT_EQ(result.recorded.size(), 1u);
    EXPECT_EQ(result.in_flight_at_submit, std::vector<std::uint64_t>{1});
    EXPECT_EQ(result.in_flight_after, 0u);
  }
  recorder.close();
}

TEST(RelayCore, RecordsTheTimesItsClockGives) {
  Script script{.request = kRequest, .response = kResponse};
  // Header read, body read, request sent, first answer byte, last answer byte, end.
  std::vector<std::int64_t> times = {1'700'000'000'000'000'000, 1'700'000'000'010'000'000,
                                     1'700'000'000'020'000'000, 1'700'000'000'250'000'000,
                                     1'700'000'000'900'000'000, 1'700'000'001'000'000'000};
  std::size_t calls = 0;
  Result result = run(script, [&] { return times.at(calls++); });

  ASSERT_TRUE(result.finished);
  ASSERT_EQ(result.recorded.size(), 1u);
  EXPECT_EQ(result.recorded[0].started_ns, times[0]);
  EXPECT_EQ(result.recorded[0].request_ended_ns, times[1]);
  EXPECT_EQ(result.recorded[0].upstream_sent_ns, times[2]);
  EXPECT_EQ(result.recorded[0].upstream_first_byte_ns, times[3]);
  EXPECT_EQ(result.recorded[0].upstream_last_byte_ns, times[4]);
  EXPECT_EQ(result.recorded[0].ended_ns, times[5]);
  EXPECT_EQ(calls, 6u);
}

// For n = 1, 2, ...: the n-th read or write on the client's stream fails (and every one after
// it), until an exchange goes through untouched. The request arrives a few bytes per read, so
// that reads of the header, reads of the body and the write of the response all fail in turn.
TEST(RelayCore, EveryClientReadOrWriteMayFail) {
  constexpr std::size_t kReadSize = 16;
  const std::size_t header_bytes = kRequest.size() - kRequestBody.size();
  const std::size_t header_reads = readsFor(header_bytes, kReadSize);
  const std::size_t reads = readsFor(kRequest.size(), kReadSize);
  ASSERT_LT(header_reads, reads);  // the script has body reads to fail

  for (std::size_t n = 1;; ++n) {
    SCOPED_TRACE("client operation " + std::to_string(n) + " fails");
    Script script{.request = kRequest,
                  .response = kResponse,
                  .client_fails_at = n,
                  .client_read_size = kReadSize};
    Result result = run(script);
    ASSERT_TRUE(result.finished);
    EXPECT_EQ(result.unrecorded_after, 0);
    if (n <= header_reads) {
      // The request never arrived: nothing happened worth a record, nothing went upstream.
      EXPECT_TRUE(result.recorded.empty());
      EXPECT_EQ(result.upstream_received, "");
      EXPECT_EQ(result.client_received, "");
      continue;
    }
    ASSERT_EQ(result.recorded.size(), 1u);
    const auto& exchange = result.recorded[0];
    if (n <= reads) {
      EXPECT_EQ(exchange.outcome, ExchangeOutcome::ClientAborted);
      EXPECT_TRUE(startsWith(exchange.error, "[proxy.client.incomplete_request] "))
          << exchange.error;
      EXPECT_EQ(exchange.status, 0);
      EXPECT_EQ(result.upstream_received, "");
      EXPECT_EQ(result.client_received, "");
    } else if (n == reads + 1) {
      // The upstream answered; the client was gone when the answer was written.
      EXPECT_EQ(exchange.outcome, ExchangeOutcome::ClientAborted);
      EXPECT_TRUE(startsWith(exchange.error, "[proxy.client.gone] ")) << exchange.error;
      EXPECT_EQ(exchange.status, 200);
      EXPECT_EQ(exchange.response_body, "{\"output\":\"hi\"}");
      EXPECT_EQ(result.client_received, "");
    } else {
      EXPECT_EQ(exchange.outcome, ExchangeOutcome::Complete);
      EXPECT_EQ(exchange.error, "");
      EXPECT_EQ(exchange.request_body, kRequestBody);
      EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 200 OK\r\n"));
      break;
    }
  }
}

// The same for the upstream's stream: the request's write, the read of the first response
// byte, then each further read of the response (a few bytes per read).
TEST(RelayCore, EveryUpstreamReadOrWriteMayFail) {
  constexpr std::size_t kReadSize = 16;
  const std::size_t reads = readsFor(kResponse.size(), kReadSize);
  ASSERT_GT(reads, 2u);

  for (std::size_t n = 1;; ++n) {
    SCOPED_TRACE("upstream operation " + std::to_string(n) + " fails");
    Script script{.request = kRequest,
                  .response = kResponse,
                  .upstream_fails_at = n,
                  .upstream_read_size = kReadSize};
    Result result = run(script);
    ASSERT_TRUE(result.finished);
    EXPECT_EQ(result.unrecorded_after, 0);
    ASSERT_EQ(result.recorded.size(), 1u);
    const auto& exchange = result.recorded[0];
    EXPECT_EQ(exchange.request_body, kRequestBody);
    if (n == 1 + reads + 1) {
      EXPECT_EQ(exchange.outcome, ExchangeOutcome::Complete);
      EXPECT_EQ(exchange.error, "");
      EXPECT_EQ(exchange.status, 200);
      EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 200 OK\r\n"));
      break;
    }
    ASSERT_LE(n, 1 + reads) << "the exchange should have gone through by now";
    // The write of the request (1) or the read of the first byte (2): the upstream hung up
    // before answering. Any later read: what it had begun to answer is unreadable.
    const std::string id = n <= 2 ? "[proxy.upstream.reset] " : "[proxy.upstream.bad_response] ";
    EXPECT_EQ(exchange.outcome, ExchangeOutcome::UpstreamError);
    EXPECT_TRUE(startsWith(exchange.error, id)) << exchange.error;
    EXPECT_EQ(exchange.status, 502);
    EXPECT_FALSE(exchange.response_from_upstream);
    EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 502 Bad Gateway\r\n"));
  }
}

// A response relayed piece by piece (chunked): once the client has the status line, a failed
// upstream read can only cut the exchange short.
TEST(RelayCore, EveryUpstreamReadOfAStreamedResponseMayFail) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  constexpr std::size_t kReadSize = 16;
  const std::size_t header_bytes = response.find("\r\n\r\n") + 4;
  const std::size_t header_reads = readsFor(header_bytes, kReadSize);

  for (std::size_t n = 1;; ++n) {
    SCOPED_TRACE("upstream operation " + std::to_string(n) + " fails");
    Script script{.request = kRequest,
                  .response = response,
                  .upstream_fails_at = n,
                  .upstream_read_size = kReadSize};
    Result result = run(script);
    ASSERT_TRUE(result.finished);
    ASSERT_EQ(result.recorded.size(), 1u);
    const auto& exchange = result.recorded[0];
    if (exchange.outcome == ExchangeOutcome::Complete) {
      EXPECT_EQ(exchange.response_body, "hello world");
      EXPECT_GT(n, 1 + header_reads + 1);
      break;
    }
    ASSERT_LT(n, 64u) << "the exchange should have gone through by now";
    EXPECT_EQ(exchange.outcome, ExchangeOutcome::UpstreamError);
    if (n <= 1 + header_reads) {
      EXPECT_EQ(exchange.status, 502);
      EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 502 Bad Gateway\r\n"));
    } else {
      EXPECT_TRUE(startsWith(exchange.error, "[proxy.upstream.broken_body] ")) << exchange.error;
      EXPECT_EQ(exchange.status, 200);
      EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 200 OK\r\n"));
      EXPECT_FALSE(result.keep_open);
    }
  }
}

// With commit_before_answer the exchange is handed over, and committed, before the client's
// answer goes out: once, and as complete even when that write then fails.
TEST(RelayCore, CommitsBeforeAnsweringOnceEvenIfTheClientThenVanishes) {
  for (bool client_vanishes : {false, true}) {
    SCOPED_TRACE(client_vanishes ? "client vanishes" : "client stays");
    // The client's first operation reads the whole request; its second writes the answer.
    Script script{.request = kRequest,
                  .response = kResponse,
                  .client_fails_at = client_vanishes ? 2 : kNeverFail};
    script.options.commit_before_answer = true;

    Result result = run(script);

    ASSERT_TRUE(result.finished);
    ASSERT_EQ(result.recorded.size(), 1u);
    EXPECT_EQ(result.recorded[0].outcome, ExchangeOutcome::Complete);
    EXPECT_EQ(result.recorded[0].request_body, kRequestBody);
    EXPECT_EQ(result.recorded[0].response_body, "{\"output\":\"hi\"}");
    EXPECT_EQ(result.client_received.empty(), client_vanishes);
  }
}

/// The one exchange a request the relay answers itself leaves, with nothing sent upstream.
const protocol::Exchange& rejected(const Result& result) {
  EXPECT_TRUE(result.finished);
  EXPECT_FALSE(result.keep_open);
  EXPECT_EQ(result.upstream_received, "");
  EXPECT_EQ(result.recorded.size(), 1u);
  return result.recorded.at(0);
}

TEST(RelayCore, AnswersAnOversizedHeaderWith431) {
  Script script{.request = kRequest, .response = kResponse};
  script.options.max_header_bytes = 64;

  Result result = run(script);

  const auto& exchange = rejected(result);
  EXPECT_EQ(exchange.outcome, ExchangeOutcome::RequestRejected);
  EXPECT_EQ(exchange.error, "[proxy.request.header_too_large] request header too large");
  EXPECT_EQ(exchange.status, 431);
  EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 431 "));
}

TEST(RelayCore, AnswersADeclaredOversizedBodyWith413) {
  Script script{.request = kRequest, .response = kResponse};
  script.options.max_request_body = kRequestBody.size() - 1;

  Result result = run(script);

  const auto& exchange = rejected(result);
  EXPECT_EQ(exchange.outcome, ExchangeOutcome::RequestRejected);
  EXPECT_EQ(exchange.error,
            "[proxy.request.body_too_large] request body larger than 25 bytes, the most accepted; "
            "agentvcr record --max-body BYTES raises it");
  EXPECT_EQ(exchange.status, 413);
  EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 413 "));
}

TEST(RelayCore, AnswersAChunkedBodyOverTheLimitWith413) {
  Script script{.request =
                    "POST /v1/responses HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n",
                .response = kResponse};
  script.options.max_request_body = 6;

  Result result = run(script);

  const auto& exchange = rejected(result);
  EXPECT_EQ(exchange.outcome, ExchangeOutcome::RequestRejected);
  EXPECT_EQ(exchange.error,
            "[proxy.request.body_too_large] request body larger than 6 bytes, the most accepted; "
            "agentvcr record --max-body BYTES raises it");
  EXPECT_EQ(exchange.status, 413);
  EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 413 "));
}

TEST(RelayCore, AnswersAMalformedRequestWith400) {
  Script script{.request = "GET /x HTTP/1.1\r\nBad Header\r\n\r\n", .response = kResponse};

  Result result = run(script);

  const auto& exchange = rejected(result);
  EXPECT_EQ(exchange.outcome, ExchangeOutcome::RequestRejected);
  EXPECT_TRUE(startsWith(exchange.error, "[proxy.request.malformed] malformed request: "))
      << exchange.error;
  EXPECT_EQ(exchange.status, 400);
  EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 400 "));
}

TEST(RelayCore, AnswersWithoutAnUpstreamWith502) {
  Script script{.request = kRequest, .response = kResponse, .upstream_reachable = false};
  script.options.upstream = *net::parseUrl("http://agent.example:8080");

  Result result = run(script);

  const auto& exchange = rejected(result);
  EXPECT_EQ(exchange.outcome, ExchangeOutcome::UpstreamError);
  EXPECT_TRUE(startsWith(exchange.error,
                         "[proxy.upstream.refused] upstream http://agent.example:8080 unreachable"))
      << exchange.error;
  EXPECT_EQ(exchange.status, 502);
  EXPECT_TRUE(startsWith(result.client_received, "HTTP/1.1 502 "));
}

}  // namespace
}  // namespace agentvcr::proxy
