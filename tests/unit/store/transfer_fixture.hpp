#pragma once

// An archive with one of every kind of exchange export, import and merge must carry: a MAGMA
// conversation of two steps, an A2A call, an A2A event stream with event times, a binary
// body, a failed exchange; plus the agent identity and a replay miss.

#include <cstdint>
#include <map>
#include <string>

#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store::testing {

/// Bytes that are not UTF-8, with a NUL and a quote in them.
inline std::string binaryBytes() {
  return std::string("\x89PNG\0\xff\xfe'x\n", 10);
}

inline const std::string& streamFirstEvent() {
  static const std::string text =
      R"(data: {"jsonrpc":"2.0","id":7,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}})"
      "\n\n";
  return text;
}

inline const std::string& streamSecondEvent() {
  static const std::string text =
      "event: update\n"
      R"(data: {"jsonrpc":"2.0","id":7,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}})"
      "\n\n";
  return text;
}

inline constexpr std::int64_t kFirstEventNs = 1'700'000'500'000'000'000;
inline constexpr std::int64_t kSecondEventNs = 1'700'000'500'300'000'000;

/// Records the sample session into `path`; returns its id.
inline std::int64_t recordSample(const std::string& path, const std::string& name) {
  SessionInfo info = testSession(name);
  info.upstream = "http://agent.test:9000/base";
  Recorder recorder(path, info, testOptions());
  recorder.recordAgentIdentity(R"({"status":"ok"})", R"({"agent_id":"bench","version":"2.0"})");

  const Json m0 = memoryOf("m", 0);
  const Json m1 = memoryOf("m", 1);
  const Json m2 = memoryOf("m", 2);
  submit(recorder, magmaExchange(request("r1", {input(1, "user", "press sw1", m0, 2)}),
                                 Json::array({sayOutput("r1", 1, 0, m1, "ok"),
                                              callOutput("r1", 1, 1, m1, "sw1")})));
  submit(recorder, magmaExchange(request("r2", {input(2, "env", "button sw1 pressed", m1)}),
                                 Json::array({sayOutput("r2", 2, 0, m2, "done")})));

  submit(
      recorder,
      httpExchange(
          "POST", "/a2a",
          R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]}}})",
          200,
          R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"}}})"));

  auto stream = httpExchange(
      "POST", "/a2a",
      R"({"jsonrpc":"2.0","id":7,"method":"message/stream","params":{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"go"}]}}})",
      200, streamFirstEvent() + streamSecondEvent());
  stream.response_headers = {{"Content-Type", "text/event-stream"}};
  stream.response_arrivals = {
      {streamFirstEvent().size(), kFirstEventNs},
      {streamFirstEvent().size() + streamSecondEvent().size(), kSecondEventNs}};
  submit(recorder, stream);

  auto binary = httpExchange("PUT", "/upload?x=1&y=two", binaryBytes(), 201, binaryBytes());
  binary.request_headers.push_back({"Authorization", "Bearer secret-token"});
  binary.response_headers = {{"Content-Type", "application/octet-stream"}};
  // Only an agent card gets this note live; a copy carries it whatever the exchange.
  binary.card_rewrite = R"({"urls":[{"from":"http://agent.test:9000/base/a","to":"http://b/a"}]})";
  submit(recorder, binary);

  auto failed = httpExchange("GET", "/health", "", 504, "");
  failed.upstream_first_byte_ns = 0;
  failed.upstream_last_byte_ns = 0;
  failed.outcome = protocol::ExchangeOutcome::UpstreamTimeout;
  failed.error = "[proxy.upstream.timeout] no answer";
  failed.fault = "stall";  // as the chaos mode records the stall it injected
  submit(recorder, failed);

  recorder.flush();
  ReplayMissRow miss;
  miss.at_ns = 1'700'000'900'000'000'000;
  miss.route = "responses";
  miss.request_id = "r9";
  miss.replay_key = 42;
  miss.input = R"({"id":9})";
  miss.closest_step_id = queryInt(
      path, "SELECT max(id) FROM steps WHERE session_id = " + std::to_string(recorder.sessionId()));
  miss.differences = R"(["/memory"])";
  miss.policy = "error";
  EXPECT_TRUE(recorder.tryRecordReplayMiss(miss));
  const std::int64_t id = recorder.sessionId();
  recorder.close();
  return id;
}

/// Rows of each table that belong to session `id`.
inline std::map<std::string, std::int64_t> sessionCounts(const std::string& path, std::int64_t id) {
  const std::string s = std::to_string(id);
  return {
      {"exchanges", queryInt(path, "SELECT count(*) FROM exchanges WHERE session_id = " + s)},
      {"steps", queryInt(path, "SELECT count(*) FROM steps WHERE session_id = " + s)},
      {"candidates", queryInt(path,
                              "SELECT count(*) FROM candidates JOIN steps ON steps.id = "
                              "candidates.step_id WHERE steps.session_id = " +
                                  s)},
      {"internal_steps",
       queryInt(path,
                "SELECT count(*) FROM internal_steps JOIN candidates ON candidates.id = "
                "internal_steps.candidate_id JOIN steps ON steps.id = candidates.step_id "
                "WHERE steps.session_id = " +
                    s)},
      {"conversations",
       queryInt(path, "SELECT count(*) FROM conversations WHERE session_id = " + s)},
      {"a2a_calls", queryInt(path, "SELECT count(*) FROM a2a_calls WHERE session_id = " + s)},
      {"stream_events",
       queryInt(path,
                "SELECT count(*) FROM stream_events JOIN exchanges ON exchanges.id = "
                "stream_events.exchange_id WHERE exchanges.session_id = " +
                    s)},
      {"replay_misses",
       queryInt(path, "SELECT count(*) FROM replay_misses WHERE session_id = " + s)},
  };
}

}  // namespace agentvcr::store::testing
