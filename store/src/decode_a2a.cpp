// Decoding of A2A JSON-RPC exchanges and of event streams (a2a-protocol.md §4.6, §7).

#include <algorithm>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/sse.hpp"
#include "decode.hpp"

namespace agentvcr::store::detail {
namespace {

bool parsesAsJsonRpc(std::string_view body, const DecodeOptions& options) {
  if (body.empty() || body.size() > options.max_decode_bytes) {
    return false;
  }
  // Cheap test first: most non-A2A bodies are not looked at twice.
  if (body.find("\"jsonrpc\"") == std::string_view::npos) {
    return false;
  }
  auto parsed = protocol::parseJson(body);
  return parsed.value && protocol::a2a::isJsonRpc(*parsed.value);
}

/// The HTTP+JSON route `ex` took, if any. The recorder does not know the interface's URL: the
/// route is read from the path's tail, the generic GETs only on A2A's own signs.
std::optional<protocol::a2a::RestRoute> restRouteOf(const protocol::Exchange& ex) {
  return protocol::a2a::restRouteOfRequest(
      ex.method, ex.target, ex.request_headers,
      protocol::headerValue(ex.response_headers, "Content-Type"));
}

}  // namespace

void decodeStreamEvents(DecodedExchange& d) {
  const protocol::Exchange& ex = d.exchange;
  if (!protocol::isEventStreamType(protocol::headerValue(ex.response_headers, "Content-Type"))) {
    return;
  }
  const auto& arrivals = ex.response_arrivals;
  for (protocol::SseEvent& event : protocol::parseEventStream(ex.response_body)) {
    // The event was whole once the piece holding its end had arrived.
    auto piece = std::lower_bound(
        arrivals.begin(), arrivals.end(), event.end,
        [](const protocol::BodyArrival& arrival, std::size_t end) { return arrival.end < end; });
    const std::int64_t at_ns = piece != arrivals.end() ? piece->at_ns : ex.ended_ns;
    d.stream_events.push_back(DecodedStreamEvent{at_ns, nonEmpty(std::move(event.event)),
                                                 nonEmpty(std::move(event.id)),
                                                 std::move(event.data)});
  }
}

bool derivesNothing(const RedactedExchange& r) {
  const protocol::Exchange& ex = r.exchange;
  // What decodeExchange() looks at, tested the cheap way: no MAGMA route, no event stream, no
  // agent card, no body that could be JSON-RPC.
  return r.protocol == "http" &&
         !(ex.method == "GET" && protocol::a2a::isAgentCardPath(ex.target)) && !restRouteOf(ex) &&
         !protocol::isEventStreamType(protocol::headerValue(ex.response_headers, "Content-Type")) &&
         ex.request_body.find("\"jsonrpc\"") == std::string::npos &&
         ex.response_body.find("\"jsonrpc\"") == std::string::npos;
}

void decodeA2a(DecodedExchange& d, const DecodeOptions& options) {
  const protocol::Exchange& ex = d.exchange;
  if (ex.method == "GET" && protocol::a2a::isAgentCardPath(ex.target)) {
    d.protocol = "a2a";
    d.route = "a2a.agent_card";
    return;
  }
  const bool streamed = !d.stream_events.empty();
  // An injected answer (chaos) is agentvcr's, never the agent's: the calls keep no result.
  const std::string_view response = streamed || ex.outcome == protocol::ExchangeOutcome::Injected
                                        ? std::string_view()
                                        : std::string_view(ex.response_body);
  const auto route = restRouteOf(ex);
  const bool rest = route && ex.request_body.size() <= options.max_decode_bytes &&
                    response.size() <= options.max_decode_bytes;
  if (!rest && !parsesAsJsonRpc(ex.request_body, options) && !parsesAsJsonRpc(response, options)) {
    return;
  }
  protocol::a2a::CallExchange call_exchange{
      ex.method,       ex.target, protocol::headerValue(ex.request_headers, "A2A-Version"),
      ex.request_body, response,  {},
      ex.status};
  for (const DecodedStreamEvent& event : d.stream_events) {
    call_exchange.stream_data.push_back(event.data);
  }
  d.protocol = "a2a";
  if (rest) {
    d.route = "a2a.rest";
    d.a2a_calls = {protocol::a2a::decodeRestCall(call_exchange, *route)};
  } else {
    d.route = "a2a.jsonrpc";
    d.a2a_calls = protocol::a2a::decodeCalls(call_exchange);
  }
}

}  // namespace agentvcr::store::detail
