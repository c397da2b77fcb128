// Fuzz target: the MAGMA 2.0 request and response validators, as the recorder and replay run
// them on untrusted bodies. Input: request JSON, NUL, response JSON.

#include "agentvcr/protocol/fastapi_errors.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "fuzz_input.hpp"

using namespace agentvcr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [request_text, response_text] = fuzz::requestAndResponse(fuzz::asText(data, size));
  std::optional<protocol::Parsed<protocol::magma::AgentRequest>> request;
  if (auto json = protocol::parseJson(request_text); json.value) {
    request = protocol::magma::parseAgentRequest(*json.value);
    fuzz::require(request->ok() == request->findings.empty(), "a request is valid iff no finding");
    protocol::validationErrorBody(request->findings);
    if (request->ok()) {
      for (const auto& input : request->value->inputs) {
        protocol::magma::replayKey(input);
      }
    }
  }
  if (auto json = protocol::parseJson(response_text); json.value) {
    const auto* valid_request = request && request->ok() ? &*request->value : nullptr;
    auto response = protocol::magma::parseAgentResponse(*json.value, valid_request);
    fuzz::require(response.ok() == response.findings.empty(), "a response is valid iff no finding");
  }
  return 0;
}
