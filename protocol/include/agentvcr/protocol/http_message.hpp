#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"

/// The one plain HTTP message value agentvcr's in-process peers speak: replay, the simulated
/// peers, the local services and the blocking client all take an HttpRequest and give an
/// HttpReply, without a socket in sight. The network layer (proxy/) carries them.
namespace agentvcr::protocol {

/// A whole HTTP request, body included.
struct HttpRequest {
  std::string method;
  std::string target;  ///< as sent, e.g. "/v1/responses?x=1"
  Headers headers;
  std::string body;

  bool operator==(const HttpRequest&) const = default;
};

/// One piece of a streamed answer (an event stream), written `delay` after the previous one.
struct StreamPiece {
  std::chrono::nanoseconds delay{0};
  std::string bytes;

  bool operator==(const StreamPiece&) const = default;
};

/// How an answer reaches the client: whole, or broken on purpose to test the caller (chaos).
enum class Delivery {
  Whole,
  CloseBeforeAnswer,  ///< the connection is closed before any byte of the answer
  CutMidBody,         ///< the header promises the whole body; half of it is sent, then the close
};

/// A whole HTTP answer. `content_type` is left out when empty (e.g. for 204); `headers` are the
/// headers besides Content-Type and Content-Length, which the writer computes. When `stream`
/// is not empty it replaces `body`: each piece is flushed to the client on its own after its
/// delay (chunked transfer encoding).
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  Headers headers;
  std::string body;
  std::vector<StreamPiece> stream;
  /// The answer's first byte leaves no earlier than this long after the request arrived:
  /// replay's recorded think time (`--pace`), or an injected latency or stall.
  std::chrono::nanoseconds hold{0};
  Delivery delivery = Delivery::Whole;

  bool operator==(const HttpReply&) const = default;
};

/// ASCII case-insensitive equality, as HTTP compares header names and tokens.
bool equalsIgnoreCase(std::string_view a, std::string_view b);

/// The path of a request-target: origin-form as is, absolute-form without scheme and
/// authority; query string and fragment removed.
std::string_view pathOfTarget(std::string_view target);

/// `text` without the spaces and tabs at either end (HTTP's optional whitespace).
std::string_view trimBlanks(std::string_view text);

/// Whether an If-None-Match value (`"a", W/"b"` or `*`) names `etag` (quoted, as an ETag header
/// carries it). The comparison is the weak one RFC 9110 §13.1.2 asks for: `W/` is ignored.
bool entityTagMatches(std::string_view if_none_match, std::string_view etag);

/// The first header named `name` (case-insensitive); nullptr when there is none.
const HeaderField* findHeader(const Headers& headers, std::string_view name);

/// The value of the first header named `name`, or "" when there is none.
std::string_view headerValue(const Headers& headers, std::string_view name);

/// How many headers are named `name` (case-insensitive).
std::size_t headerCount(const Headers& headers, std::string_view name);

/// agentvcr's own error body, for answers it gives by itself instead of an agent:
/// {"detail": message, "agentvcr_error": id}. `id` is stable ("proxy.upstream.refused",
/// "replay.archive") so scripts can match it.
std::string errorBody(std::string_view id, std::string_view message);

/// Nanoseconds since the Unix epoch, the archive's time unit.
inline std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace agentvcr::protocol
