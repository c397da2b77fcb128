#pragma once

// A well-behaved agent for the integration tests that need one: MAGMA inputs echoed, JSON-RPC
// calls answered with a completed task. Header only.

#include <string>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "fake_upstream.hpp"

namespace agentvcr::testing {

inline std::string magmaRequest(const std::string& content) {
  return R"({"request_id": "r-)" + content +
         R"(", "inputs": [{"id": 1, "instruction": {"type": "user", "content": ")" + content +
         R"("}}]})";
}

inline constexpr const char* kA2aRequest =
    R"({"jsonrpc": "2.0", "id": 41, "method": "message/send", "params": {"message": )"
    R"({"role": "user", "messageId": "m-1", "parts": [{"kind": "text", "text": "hi"}]}}})";

/// A well-behaved agent: every MAGMA input gets a completed candidate saying "echo: <content>";
/// a JSON-RPC call gets a completed task.
inline FakeReply echoAgent(const protocol::HttpRequest& request) {
  const protocol::Json body = protocol::parseJson(request.body).value.value_or(nullptr);
  if (body.is_object() && body.contains("jsonrpc")) {
    const protocol::Json answer = {{"jsonrpc", "2.0"},
                                   {"id", body["id"]},
                                   {"result",
                                    {{"kind", "task"},
                                     {"id", "t-1"},
                                     {"contextId", "c-1"},
                                     {"status", {{"state", "completed"}}}}}};
    return FakeReply::http(200, answer.dump());
  }
  const auto parsed = protocol::magma::parseAgentRequest(body);
  if (!parsed.ok()) {
    return FakeReply::http(200, R"({"status": "ready"})");
  }
  protocol::magma::AgentResponse response;
  for (const auto& input : parsed.value->inputs) {
    protocol::magma::AgentOutput output;
    output.request_id = parsed.value->request_id;
    output.source_id = input.id;
    output.output = protocol::magma::AgentDecision{"echo: " + input.instruction.content, {}};
    response.push_back(std::move(output));
  }
  return FakeReply::http(200, protocol::magma::serializeResponse(response));
}

}  // namespace agentvcr::testing
