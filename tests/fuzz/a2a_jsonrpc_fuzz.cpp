// Fuzz target: A2A JSON-RPC decoding (requests, answers, batches, event streams), its replay
// key and id re-stamping. Input: request body, NUL, response body (or event stream).

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
  protocol::a2a::rewriteCardUrls(response_text, "http://127.0.0.1:8000");
  return 0;
}
