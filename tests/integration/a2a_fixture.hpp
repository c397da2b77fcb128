#pragma once

// A2A between real loopback peers: a fake A2A agent (v0.3 wire, as the seed's synchronous
// skills answer, plus a streaming skill) recorded through the proxy into a real SQLite file.

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "fake_upstream.hpp"
#include "raw_client.hpp"

namespace agentvcr::testing {

/// Pause between the fake agent's stream events: long enough that buffering would show.
inline constexpr std::chrono::milliseconds kEventGap{300};

inline std::string rpcResult(const protocol::Json& id, const protocol::Json& result) {
  return protocol::Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump();
}

inline protocol::Json completedTask(const std::string& task_id, const std::string& context,
                                    const std::string& text) {
  return {{"kind", "task"},
          {"id", task_id},
          {"contextId", context},
          {"status", {{"state", "completed"}}},
          {"history",
           {{{"kind", "message"},
             {"role", "user"},
             {"messageId", "m"},
             {"parts", {{{"kind", "text"}, {"text", text}}}}},
            {{"kind", "message"},
             {"role", "agent"},
             {"messageId", "r"},
             {"parts", {{{"kind", "text"}, {"text", "answer: " + text}}}}}}},
          {"artifacts",
           {{{"artifactId", "a-" + task_id},
             {"parts", {{{"kind", "text"}, {"text", "answer: " + text}}}}}}}};
}

/// One event of an A2A stream: `data: <JSON-RPC response>` and a blank line.
inline std::string streamEvent(const protocol::Json& id, const protocol::Json& result) {
  return "data: " + rpcResult(id, result) + "\n\n";
}

/// The fake A2A agent: message/send answers a completed task per text (its id minted from the
/// text, so answers are deterministic), tasks/get finds it, tasks/cancel refuses as a standard
/// server does, message/stream sends four events kEventGap apart, and the card sits at the
/// v0.2 path pointing at `card_base`.
inline FakeHandler fakeA2aAgent(std::string card_base) {
  return [card_base](const protocol::HttpRequest& request) {
    if (request.method == "GET" && request.target == "/.well-known/agent.json") {
      protocol::Json card = {{"protocolVersion", "0.3.0"},
                             {"name", "fake"},
                             {"url", card_base + "/api/v1/a2a"},
                             {"capabilities", {{"streaming", true}}}};
      return FakeReply::http(200, card.dump(), "application/json",
                             "Cache-Control: public, max-age=3600\r\n");
    }
    auto parsed = protocol::parseJson(request.body);
    if (!parsed.value || !parsed.value->is_object()) {
      return FakeReply::http(
          200, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
    }
    const protocol::Json& call = *parsed.value;
    const protocol::Json id = call.value("id", protocol::Json(nullptr));
    const std::string method = call.value("method", "");
    const protocol::Json params = call.value("params", protocol::Json::object());
    if (method == "message/send" || method == "message/stream") {
      const std::string text = params["message"]["parts"][0].value("text", "");
      const std::string context = params["message"].value("contextId", "ctx-" + text.substr(0, 4));
      const std::string task_id = "task-" + std::to_string(text.size());
      if (method == "message/send") {
        return FakeReply::http(200, rpcResult(id, completedTask(task_id, context, text)));
      }
      protocol::Json submitted = {{"kind", "task"},
                                  {"id", task_id},
                                  {"contextId", context},
                                  {"status", {{"state", "submitted"}}}};
      auto update = [&](const std::string& state, bool final) {
        return protocol::Json{{"kind", "status-update"},
                              {"taskId", task_id},
                              {"contextId", context},
                              {"status", {{"state", state}}},
                              {"final", final}};
      };
      protocol::Json artifact = {
          {"kind", "artifact-update"},
          {"taskId", task_id},
          {"contextId", context},
          {"artifact",
           {{"artifactId", "a"}, {"parts", {{{"kind", "text"}, {"text", "streamed"}}}}}}};
      FakeReply reply = FakeReply::chunked(
          200,
          {streamEvent(id, submitted), streamEvent(id, update("working", false)),
           streamEvent(id, artifact), streamEvent(id, update("completed", true))},
          kEventGap, "text/event-stream");
      return reply;
    }
    if (method == "tasks/get") {
      const std::string task_id = params.value("id", "");
      return FakeReply::http(200, rpcResult(id, completedTask(task_id, "ctx-What", "from get")));
    }
    if (method == "tasks/cancel") {
      protocol::Json error = {{"jsonrpc", "2.0"},
                              {"id", id},
                              {"error", {{"code", -32002}, {"message", "Task not cancelable"}}}};
      return FakeReply::http(200, error.dump());
    }
    protocol::Json error = {{"jsonrpc", "2.0"},
                            {"id", id},
                            {"error", {{"code", -32601}, {"message", "Method not found"}}}};
    return FakeReply::http(200, error.dump());
  };
}

inline std::string sendBody(const protocol::Json& id, const std::string& message_id,
                            const std::string& text, const std::string& method = "message/send",
                            const std::string& context = "") {
  protocol::Json message = {{"kind", "message"},
                            {"role", "user"},
                            {"messageId", message_id},
                            {"parts", {{{"kind", "text"}, {"text", text}}}},
                            {"metadata", {{"skillId", "catholic_qa"}}}};
  if (!context.empty()) {
    message["contextId"] = context;
  }
  return protocol::Json{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", {{"message", message}}}}
      .dump();
}

inline std::string taskCall(const protocol::Json& id, const std::string& method,
                            const std::string& task_id) {
  return protocol::Json{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", {{"id", task_id}}}}
      .dump();
}

/// A POST of `body` as one raw HTTP/1.1 request.
inline std::string rawPost(const std::string& target, const std::string& body,
                           const std::string& accept = "application/json") {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         "Accept: " + accept + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

/// An agent card as a person or a template engine writes it: indented, with numbers and escapes
/// that a JSON serialiser would spell differently (`1.10`, a 23-digit integer, `1E+2`, `\u00e9`,
/// `\/`). Its JSON-RPC and HTTP+JSON interfaces are at `interfaces`, a gRPC one and its
/// documentation at `agent`: what a rewrite moves, and what it leaves.
inline std::string handWrittenCard(const std::string& interfaces, const std::string& agent) {
  return "{\n  \"name\" : \"caf\\u00e9 \\/ agent\",\n  \"version\": 1.10,\n"
         "  \"serial\": 12345678901234567890123,\n  \"ratio\": 1E+2,\n"
         "  \"url\": \"" +
         interfaces + "/a2a\",\n  \"preferredTransport\": \"JSONRPC\",\n" +
         "  \"additionalInterfaces\": [\n    {\"transport\": \"HTTP+JSON\", \"url\": \"" +
         interfaces + "/rest\"},\n    {\"transport\": \"GRPC\", \"url\": \"" + agent +
         "/grpc\"}\n  ],\n" + "  \"documentationUrl\": \"" + agent + "/docs\"\n}\n";
}

/// When each marker showed up in a streamed response read from `client`, in ms since `start`.
inline std::vector<double> arrivalTimes(RawClient& client, const std::vector<std::string>& markers,
                                        std::chrono::steady_clock::time_point start) {
  std::vector<double> times;
  std::string seen;
  for (const std::string& marker : markers) {
    while (seen.find(marker) == std::string::npos) {
      std::string more = client.readUntil(marker, std::chrono::seconds(10));
      if (more.empty()) {
        ADD_FAILURE() << "the stream ended before " << marker << "; got: " << seen;
        return times;
      }
      seen += more;
    }
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    seen.erase(0, seen.find(marker) + marker.size());
  }
  return times;
}

}  // namespace agentvcr::testing
