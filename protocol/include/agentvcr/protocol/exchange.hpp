#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentvcr::protocol {

/// One header line as it travelled: name keeps the sender's spelling, order is preserved.
struct HeaderField {
  std::string name;
  std::string value;

  bool operator==(const HeaderField&) const = default;
};

using Headers = std::vector<HeaderField>;

/// How an exchange ended. Stable names: they are stored in the archive.
enum class ExchangeOutcome {
  Complete,         ///< the upstream answered and the whole response reached the client
  UpstreamError,    ///< connect refused/reset, garbage or oversized response: the client got a 502
  UpstreamTimeout,  ///< the upstream did not answer in time: the client got a 504
  RequestRejected,  ///< the proxy refused the request itself (e.g. 413, 431, 400)
  ClientAborted,    ///< the client went away before the response was fully written
  Injected,         ///< the proxy answered with a fault on purpose (chaos); the agent never saw it
};

/// Stable snake_case name: "complete", "upstream_error", "upstream_timeout", "request_rejected",
/// "client_aborted", "injected".
const char* outcomeName(ExchangeOutcome outcome);

/// The outcome outcomeName() names; nullopt for any other text.
std::optional<ExchangeOutcome> outcomeFromName(std::string_view name);

/// When a piece of a streamed response body arrived from the upstream.
struct BodyArrival {
  std::size_t end = 0;     ///< size of the recorded body once the piece was added
  std::int64_t at_ns = 0;  ///< nanoseconds since the Unix epoch
};

/// One HTTP request/response pair exactly as the proxy relayed it. A plain value: the network
/// layer fills it in and hands it over by move; nothing else keeps a reference to it.
///
/// Bodies hold the payload bytes as relayed (de-chunked, never re-serialised). Secrets are NOT
/// redacted here: the store redacts before anything reaches disk.
struct Exchange {
  std::string client_address;  ///< "127.0.0.1:53412"
  std::string method;          ///< "POST"
  std::string target;          ///< request-target as sent, e.g. "/v1/responses?x=1"
  unsigned http_version = 11;  ///< 10 or 11
  Headers request_headers;
  std::string request_body;

  int status = 0;  ///< status the client received; 0 if none was sent
  Headers response_headers;
  std::string response_body;
  bool response_from_upstream = false;  ///< false when the proxy answered by itself (502, 413...)

  /// Times in nanoseconds since the Unix epoch; 0 when the moment never came.
  std::int64_t started_ns = 0;              ///< request header fully read from the client
  std::int64_t request_ended_ns = 0;        ///< last request byte read from the client
  std::int64_t upstream_sent_ns = 0;        ///< request fully written to the upstream
  std::int64_t upstream_first_byte_ns = 0;  ///< first byte of the upstream response
  std::int64_t upstream_last_byte_ns = 0;   ///< last byte of the upstream response read
  std::int64_t ended_ns = 0;                ///< last response byte written (or failure)
  /// For event-stream responses: when each piece arrived, so every event keeps its own time.
  std::vector<BodyArrival> response_arrivals;

  ExchangeOutcome outcome = ExchangeOutcome::Complete;
  std::string error;  ///< empty on success, else "[proxy.upstream.refused] connection refused"
  /// Empty, or the kind of fault the proxy injected into this exchange on purpose. Kept apart
  /// from `outcome`, which says what the agent did.
  std::string fault;
  /// Empty, or how the answer the client got differs from `response_body`, the agent's own:
  /// the recorder pointed an agent card at itself (protocol::a2a::CardRewrite::note()).
  std::string card_rewrite;
  /// For an exchange copied out of an archive (merge, pull): the number its session gave it,
  /// which the copy keeps, gaps included, since step links and replay misses name exchanges by
  /// it. Empty for an exchange just relayed: the archive numbers it.
  std::optional<std::int64_t> recorded_seq;
};

}  // namespace agentvcr::protocol
