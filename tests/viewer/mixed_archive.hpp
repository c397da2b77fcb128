#pragma once

// An archive whose one session holds a MAGMA conversation next to two A2A conversations, one
// on each wire version, written by store::Recorder from hand-made exchanges (no proxy, no
// agent): what the viewer tests use to check how A2A calls show. Shapes follow
// a2a-protocol.md §4 and §5 for v0.3, a2a-v1.md for v1.0.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"

namespace agentvcr::testing {

/// The conversations of the mixed archive (session 1).
struct MixedArchive {
  std::int64_t magma_conversation = 0;
  std::int64_t a2a_conversation = 0;      ///< contextId c-1, v0.3 but for its last call
  std::int64_t a2a_v10_conversation = 0;  ///< contextId c-10, all v1.0 and all answered
};

namespace mixed {

constexpr std::int64_t kMs = 1000 * 1000;
/// 2026-09-21 14:20:00 UTC, so the calls show at fixed clock times.
constexpr std::int64_t kStartNs = std::int64_t{1790000400} * 1000 * kMs;

inline protocol::Exchange post(const std::string& target, protocol::Json request, int status,
                               std::string response, std::int64_t started_ns,
                               std::int64_t latency_ns) {
  protocol::Exchange ex;
  ex.client_address = "127.0.0.1:53412";
  ex.method = "POST";
  ex.target = target;
  ex.request_headers = {{"Host", "127.0.0.1:8080"},
                        {"Content-Type", "application/json"},
                        {"Authorization", "Bearer sk-viewer-test-secret"}};
  ex.request_body = request.dump();
  ex.status = status;
  ex.response_headers = {{"Content-Type", "application/json"}};
  ex.response_body = std::move(response);
  ex.response_from_upstream = true;
  ex.started_ns = started_ns;
  ex.upstream_first_byte_ns = started_ns + latency_ns / 2;
  ex.ended_ns = started_ns + latency_ns;
  return ex;
}

/// A MAGMA episode of one step: the user asks, the agent says it is done.
inline protocol::Exchange magmaStep() {
  const protocol::Json input = {
      {"id", 1},
      {"instruction", {{"type", "user"}, {"content", "Please press sw1"}}},
      {"tools", protocol::Json::array()},
      {"attributes", {{"known_robots", {"panda"}}}},
      {"memory", protocol::Json::object()},
      {"num_outputs", 1},
      {"extra_keys", protocol::Json::object()}};
  const protocol::Json output = {
      {"request_id", "mixed"},
      {"source_id", 1},
      {"candidate_index", 0},
      {"status", "completed"},
      {"memory", {{"history", {{{"author", "USER"}, {"content", "Please press sw1"}}}}}},
      {"internal_steps", protocol::Json::array()},
      {"output", {{"say", "Done."}, {"tool_calls", protocol::Json::array()}}},
      {"error", nullptr}};
  return post("/v1/responses", {{"request_id", "mixed"}, {"inputs", {input}}}, 200,
              protocol::Json::array({output}).dump(), kStartNs, 40 * kMs);
}

/// A v0.3 user message (`kind` fields), in context `context` when it is not empty.
inline protocol::Json userMessage(const std::string& message_id, const std::string& text,
                                  const std::string& context) {
  protocol::Json message = {{"kind", "message"},
                            {"role", "user"},
                            {"messageId", message_id},
                            {"parts", {{{"kind", "text"}, {"text", text}}}},
                            {"metadata", {{"skillId", "catholic_qa"}}}};
  if (!context.empty()) {
    message["contextId"] = context;
  }
  return message;
}

inline protocol::Json rpc(int id, const std::string& method, protocol::Json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

/// message/send answered by a completed task with one text artifact and its history.
inline protocol::Exchange completedSend() {
  const protocol::Json message = userMessage("m-1", "What is grace?", "");
  const protocol::Json answer = {
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"result",
       {{"kind", "task"},
        {"id", "t-1"},
        {"contextId", "c-1"},
        {"status", {{"state", "completed"}}},
        {"artifacts",
         {{{"artifactId", "a-1"},
           {"parts", {{{"kind", "text"}, {"text", "Grace is a free gift."}}}}}}},
        {"history", {message}}}}};
  return post("/api/v1/a2a", rpc(1, "message/send", {{"message", message}}), 200, answer.dump(),
              kStartNs + 1000 * kMs, 850 * kMs);
}

/// message/send refused by the rate limit: 429, -32003, data.retryAfter.
inline protocol::Exchange rateLimitedSend() {
  const protocol::Json answer = {
      {"jsonrpc", "2.0"},
      {"id", 2},
      {"error",
       {{"code", -32003}, {"message", "Rate limit exceeded"}, {"data", {{"retryAfter", 42}}}}}};
  return post("/api/v1/a2a",
              rpc(2, "message/send", {{"message", userMessage("m-2", "And mercy?", "c-1")}}), 429,
              answer.dump(), kStartNs + 2000 * kMs, 5 * kMs);
}

/// message/stream answered by four events, each arriving on its own: 12, 112, 312 and
/// 412 ms after the request started.
inline protocol::Exchange streamedSend() {
  const std::vector<protocol::Json> results = {
      {{"kind", "task"}, {"id", "t-3"}, {"contextId", "c-1"}, {"status", {{"state", "submitted"}}}},
      {{"kind", "status-update"},
       {"taskId", "t-3"},
       {"contextId", "c-1"},
       {"status", {{"state", "working"}}},
       {"final", false}},
      {{"kind", "artifact-update"},
       {"taskId", "t-3"},
       {"contextId", "c-1"},
       {"artifact",
        {{"artifactId", "a-3"}, {"parts", {{{"kind", "text"}, {"text", "Hope looks ahead."}}}}}}},
      {{"kind", "status-update"},
       {"taskId", "t-3"},
       {"contextId", "c-1"},
       {"status", {{"state", "completed"}}},
       {"final", true}}};
  const std::int64_t started = kStartNs + 3000 * kMs;
  const std::int64_t offsets_ms[] = {12, 112, 312, 412};
  std::string body;
  std::vector<protocol::BodyArrival> arrivals;
  for (std::size_t i = 0; i < results.size(); ++i) {
    body +=
        "data: " + protocol::Json{{"jsonrpc", "2.0"}, {"id", 3}, {"result", results[i]}}.dump() +
        "\n\n";
    arrivals.push_back({body.size(), started + offsets_ms[i] * kMs});
  }
  auto ex =
      post("/api/v1/a2a",
           rpc(3, "message/stream", {{"message", userMessage("m-3", "Tell me about hope", "c-1")}}),
           200, body, started, 420 * kMs);
  ex.response_headers = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
  ex.response_arrivals = std::move(arrivals);
  return ex;
}

/// `ex` as a v1.0 client sends it: naming its version in the A2A-Version header.
inline protocol::Exchange fromV10Client(protocol::Exchange ex) {
  ex.request_headers.push_back({"A2A-Version", "1.0"});
  return ex;
}

/// A v1.0 client's SendMessage (A2A-Version: 1.0, no `kind`) to a v0.3 agent: -32601.
inline protocol::Exchange v10Send() {
  const protocol::Json message = {{"role", "ROLE_USER"},
                                  {"messageId", "m-4"},
                                  {"contextId", "c-1"},
                                  {"parts", {{{"text", "Is this the new wire?"}}}}};
  return fromV10Client(
      post("/api/v1/a2a", rpc(4, "SendMessage", {{"message", message}}), 200,
           R"({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}})",
           kStartNs + 4000 * kMs, 3 * kMs));
}

/// Task t-10 of a v1.0 agent in ProtoJSON (no `kind`, enum names for roles and states): the
/// user asked, the agent asked back; `state` is where the task stands.
inline protocol::Json v10Task(const std::string& state) {
  const protocol::Json asked = {{"messageId", "m-10"},
                                {"contextId", "c-10"},
                                {"taskId", "t-10"},
                                {"role", "ROLE_USER"},
                                {"parts", {{{"text", "Plan a parish retreat"}}}}};
  const protocol::Json asked_back = {{"messageId", "m-11"},
                                     {"contextId", "c-10"},
                                     {"taskId", "t-10"},
                                     {"role", "ROLE_AGENT"},
                                     {"parts", {{{"text", "For how many days?"}}}}};
  protocol::Json status = {{"state", state}};
  if (state == "TASK_STATE_INPUT_REQUIRED") {
    status["message"] = asked_back;  // what the agent waits for
  }
  return {{"id", "t-10"},
          {"contextId", "c-10"},
          {"status", std::move(status)},
          {"history", {asked, asked_back}}};
}

inline std::string rpcResult(int id, protocol::Json result) {
  return protocol::Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}.dump();
}

/// A v1.0 conversation with a v1.0 agent, as one records it: SendMessage creates t-10, which
/// waits for input; GetTask reads it; CancelTask cancels it. Every call answered.
inline std::vector<protocol::Exchange> v10Conversation() {
  const protocol::Json message = {{"messageId", "m-10"},
                                  {"role", "ROLE_USER"},
                                  {"parts", {{{"text", "Plan a parish retreat"}}}}};
  return {fromV10Client(post("/api/v1/a2a", rpc(10, "SendMessage", {{"message", message}}), 200,
                             rpcResult(10, {{"task", v10Task("TASK_STATE_INPUT_REQUIRED")}}),
                             kStartNs + 5000 * kMs, 600 * kMs)),
          fromV10Client(post("/api/v1/a2a", rpc(11, "GetTask", {{"id", "t-10"}}), 200,
                             rpcResult(11, v10Task("TASK_STATE_INPUT_REQUIRED")),
                             kStartNs + 6000 * kMs, 4 * kMs)),
          fromV10Client(post("/api/v1/a2a", rpc(12, "CancelTask", {{"id", "t-10"}}), 200,
                             rpcResult(12, v10Task("TASK_STATE_CANCELED")), kStartNs + 7000 * kMs,
                             6 * kMs))};
}

/// magmaStep() as chaos answered it: an injected `error` fault, the agent never asked.
inline protocol::Exchange faultedMagmaStep() {
  protocol::Exchange injected = magmaStep();
  injected.status = 500;
  injected.response_body = R"({"detail": "fault injected", "agentvcr_error": "chaos.error"})";
  injected.response_from_upstream = false;
  injected.outcome = protocol::ExchangeOutcome::Injected;
  injected.fault = "error";
  return injected;
}

}  // namespace mixed

/// Writes `exchanges` into the archive at `db_path` (created if missing) as one session named
/// `name`, through store::Recorder.
inline void recordExchanges(const std::string& db_path, const std::string& name,
                            std::vector<protocol::Exchange> exchanges) {
  store::RecorderOptions options;
  options.busy_timeout = std::chrono::milliseconds{60000};
  store::SessionInfo session;
  session.name = name;
  session.mode = "record";
  session.upstream = "http://127.0.0.1:8000";
  session.listen = "127.0.0.1:8080";
  store::Recorder recorder(db_path, session, options);
  for (protocol::Exchange& ex : exchanges) {
    if (!recorder.trySubmit(ex)) {
      throw std::runtime_error("the recorder refused an exchange");
    }
  }
  recorder.close();
}

/// Records the mixed archive into `db_path`: a MAGMA conversation ("Please press sw1"), then
/// an A2A conversation (contextId c-1) of four calls: a completed message/send, a
/// rate-limited one, a streamed message/stream and a v1.0 SendMessage the agent does not know;
/// then a v1.0 conversation (contextId c-10) of three calls: SendMessage, GetTask, CancelTask.
inline MixedArchive recordMagmaAndA2a(const std::string& db_path) {
  std::vector<protocol::Exchange> exchanges = {mixed::magmaStep(), mixed::completedSend(),
                                               mixed::rateLimitedSend(), mixed::streamedSend(),
                                               mixed::v10Send()};
  for (protocol::Exchange& ex : mixed::v10Conversation()) {
    exchanges.push_back(std::move(ex));
  }
  recordExchanges(db_path, "mixed", std::move(exchanges));
  MixedArchive archive;
  store::ArchiveReader reader(db_path);
  for (const auto& conversation : reader.conversations(1)) {
    if (conversation.protocol != "a2a") {
      archive.magma_conversation = conversation.id;
    } else if (conversation.context_id == "c-10") {
      archive.a2a_v10_conversation = conversation.id;
    } else {
      archive.a2a_conversation = conversation.id;
    }
  }
  return archive;
}

}  // namespace agentvcr::testing
