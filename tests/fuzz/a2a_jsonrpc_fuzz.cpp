// Fuzz target: A2A JSON-RPC decoding (requests, answers, batches, event streams), its replay
// key and id re-stamping, and the HTTP+JSON binding's routes and decoding (the request's first
// line doubles as a path). Input: request body, NUL, response body (or event stream).

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/sse.hpp"
#include "fuzz_input.hpp"

using namespace agentvcr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [request_text, response_text] = fuzz::requestAndResponse(fuzz::asText(data, size));
  const auto events = protocol::parseEventStream(response_text);
  protocol::a2a::CallExchange exchange;
  exchange.http_method = "POST";
  exchange.target = "/api/v1/a2a";
  exchange.request_body = request_text;
  exchange.response_body = response_text;
  for (const auto& event : events) {
    exchange.stream_data.push_back(event.data);
  }
  protocol::a2a::decodeCalls(exchange);
  exchange.stream_data.clear();
  protocol::a2a::decodeCalls(exchange);

  if (auto request = protocol::parseJson(request_text); request.value) {
    const std::uint64_t key = protocol::a2a::callKey("POST", "/", *request.value);
    fuzz::require(key == protocol::a2a::callKey("POST", "/?q", *request.value),
                  "the query never changes a call's key");
    protocol::a2a::callKey("POST", "/", *request.value, {.ignore_message_id = true});
    protocol::a2a::restampIds(response_text, *request.value, *request.value);
    for (const auto& event : events) {
      protocol::a2a::restampEventData(event.data, *request.value);
    }
  }
  // The fuzzed request may also say where its answer carries cards (a batch's ids among them).
  using Carrier = protocol::a2a::CardCarrier;
  for (const Carrier& carrier :
       {Carrier{Carrier::Kind::Body}, Carrier{Carrier::Kind::JsonRpcResult},
        protocol::a2a::cardCarrierOf("POST", "/", request_text)}) {
    protocol::a2a::rebaseCard(response_text, carrier, {.from = "", .to = "http://127.0.0.1:8"});
    const auto rewrite = protocol::a2a::rebaseCard(
        response_text, carrier, {.from = "http://agent:9/a", .to = "http://127.0.0.1:8"});
    fuzz::require(rewrite.result != protocol::a2a::CardRewriteResult::Rewritten ||
                      protocol::parseJson(rewrite.body).value.has_value(),
                  "a rewritten card is JSON");
    rewrite.note();
  }

  // The binding reads paths, queries and bodies of any shape: a route or none, never a crash.
  const std::size_t line_end = request_text.find('\n');
  const std::string_view path = request_text.substr(0, line_end);
  for (const char* method : {"GET", "POST", "DELETE"}) {
    if (auto route = protocol::a2a::restRouteIn(method, path, true)) {
      exchange.http_method = method;
      exchange.target = path;
      exchange.request_body = line_end == std::string_view::npos
                                  ? std::string_view()
                                  : request_text.substr(line_end + 1);
      exchange.http_status = response_text.size() % 2 == 0 ? 200 : 404;
      protocol::a2a::decodeRestCall(exchange, *route);
    }
  }
  protocol::a2a::restQueryParams(path);
  protocol::a2a::percentDecoded(path, true);
  return 0;
}
