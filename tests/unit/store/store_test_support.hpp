#pragma once

// Shared helpers of the store unit tests: a temporary directory per test, MAGMA and HTTP
// exchange builders, and raw SQL probes of an archive file.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/transfer.hpp"
#include "temp_dir.hpp"

namespace agentvcr::store::testing {

namespace fs = std::filesystem;
using protocol::Json;

using agentvcr::testing::TempDir;

/// Every byte of every file in `dir` (the archive, its -wal and -shm).
inline std::string allBytes(const TempDir& dir) {
  std::string bytes;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    std::ifstream in(entry.path(), std::ios::binary);
    bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return bytes;
}

/// Options for tests: a long busy timeout so that a lock held by a test never fails a write.
inline RecorderOptions testOptions() {
  RecorderOptions options;
  options.busy_timeout = std::chrono::milliseconds{60000};
  return options;
}

inline MergeOptions testMergeOptions() {
  MergeOptions options;
  options.recorder = testOptions();
  return options;
}

inline SessionInfo testSession(const std::string& name = "test-session") {
  SessionInfo session;
  session.name = name;
  session.mode = "record";
  session.upstream = "http://127.0.0.1:8000";
  session.listen = "127.0.0.1:8080";
  return session;
}

inline std::int64_t nextTimeNs() {
  static std::atomic<std::int64_t> now{1'700'000'000'000'000'000};
  return now.fetch_add(1'000'000);
}

inline protocol::Exchange httpExchange(const std::string& method, const std::string& target,
                                       std::string request_body = "", int status = 200,
                                       std::string response_body = "") {
  protocol::Exchange ex;
  ex.client_address = "127.0.0.1:53412";
  ex.method = method;
  ex.target = target;
  ex.http_version = 11;
  ex.request_headers = {{"Host", "127.0.0.1:8080"}, {"Content-Type", "application/json"}};
  ex.request_body = std::move(request_body);
  ex.status = status;
  ex.response_headers = {{"content-type", "application/json"}};
  ex.response_body = std::move(response_body);
  ex.response_from_upstream = true;
  ex.started_ns = nextTimeNs();
  ex.request_ended_ns = ex.started_ns + 20'000;
  ex.upstream_sent_ns = ex.started_ns + 30'000;
  ex.upstream_first_byte_ns = ex.started_ns + 100'000;
  ex.upstream_last_byte_ns = ex.started_ns + 150'000;
  ex.ended_ns = ex.started_ns + 200'000;
  return ex;
}

// --- A2A builders (shapes of a2a-protocol.md) ---

/// A message/send request with one text part, in context `context` when given.
inline std::string a2aSend(int id, const std::string& message_id, const std::string& text,
                           const std::string& context = "") {
  std::string context_member = context.empty() ? "" : R"(,"contextId":")" + context + "\"";
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":")" +
         message_id + "\"" + context_member + R"(,"parts":[{"kind":"text","text":")" + text +
         R"("}],"metadata":{"skillId":"catholic_qa"}}}})";
}

/// A task result in `state` with one text artifact.
inline std::string a2aTask(int id, const std::string& task_id, const std::string& context,
                           const std::string& state, const std::string& answer) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"kind":"task","id":")" +
         task_id + R"(","contextId":")" + context + R"(","status":{"state":")" + state +
         R"("},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":")" + answer +
         R"("}]}]}})";
}

// --- MAGMA builders (shapes of magma-protocol.md §4, §5, §19) ---

inline Json benchTools() {
  return Json::parse(R"([
    {"name":"cancel_current_action","description":"Cancel the current action running on the targeted robot.","arguments":{}},
    {"name":"press_button","description":"Press a button.","arguments":{"id":{"description":"Name of the button to press.","type":"str"}}}])");
}

inline Json benchAttributes() {
  return Json::parse(
      R"({"objects":["sw0","sw1","sw2","sw3","sw4"],"known_robots":["panda"],"robot_statuses":{"panda":"FREE"}})");
}

inline Json input(std::int64_t id, const std::string& type, const std::string& content, Json memory,
                  std::int64_t num_outputs = 1) {
  return Json{{"id", id},
              {"instruction", {{"type", type}, {"content", content}}},
              {"tools", benchTools()},
              {"attributes", benchAttributes()},
              {"memory", std::move(memory)},
              {"num_outputs", num_outputs},
              {"extra_keys", {{"inference_mode", true}}}};
}

inline Json request(const std::string& request_id, std::vector<Json> inputs) {
  return Json{{"request_id", request_id}, {"inputs", Json(std::move(inputs))}};
}

inline Json internalStep(const std::string& output_raw) {
  return Json{{"id", "step-0"},
              {"component", "commander"},
              {"origin", "model"},
              {"full_prompt", "user: prompt\nassistant:"},
              {"input_elements", {{"enable_thinking", false}}},
              {"output_raw", output_raw}};
}

inline Json sayOutput(const std::string& request_id, std::int64_t source_id, std::int64_t k,
                      Json memory, const std::string& say) {
  return Json{{"request_id", request_id},
              {"source_id", source_id},
              {"candidate_index", k},
              {"status", "completed"},
              {"memory", std::move(memory)},
              {"internal_steps", Json::array({internalStep("{\"say\":\"" + say + "\"}")})},
              {"output", {{"say", say}, {"tool_calls", Json::array()}}},
              {"error", nullptr}};
}

inline Json callOutput(const std::string& request_id, std::int64_t source_id, std::int64_t k,
                       Json memory, const std::string& button) {
  Json call = {
      {"name", "press_button"}, {"arguments", {{"id", button}}}, {"target_robot_name", "panda"}};
  return Json{
      {"request_id", request_id},
      {"source_id", source_id},
      {"candidate_index", k},
      {"status", "completed"},
      {"memory", std::move(memory)},
      {"internal_steps", Json::array({internalStep("<tool_call>" + button + "</tool_call>")})},
      {"output", {{"say", ""}, {"tool_calls", Json::array({call})}}},
      {"error", nullptr}};
}

inline Json errorOutput(const std::string& request_id, std::int64_t source_id, std::int64_t k,
                        Json memory) {
  return Json{{"request_id", request_id},
              {"source_id", source_id},
              {"candidate_index", k},
              {"status", "error"},
              {"memory", std::move(memory)},
              {"internal_steps", Json::array()},
              {"output", nullptr},
              {"error",
               {{"code", "invalid_output"},
                {"message", "Model parser rejected its raw response"},
                {"component", "commander"}}}};
}

/// A memory holding `n` history entries, distinct per (tag, n).
inline Json memoryOf(const std::string& tag, int n) {
  Json history = Json::array();
  for (int i = 0; i < n; ++i) {
    history.push_back(
        {{"author", i % 2 == 0 ? "USER" : "MODEL"}, {"content", tag + "-" + std::to_string(i)}});
  }
  return Json{{"history", history}};
}

inline protocol::Exchange magmaExchange(const Json& request_body, const Json& response_body,
                                        int status = 200) {
  return httpExchange("POST", "/v1/responses", request_body.dump(), status, response_body.dump());
}

/// Submits or fails the test.
inline void submit(Recorder& recorder, protocol::Exchange exchange) {
  ASSERT_TRUE(recorder.trySubmit(exchange));
}

/// The message of the std::runtime_error `f` throws, or "<nothing thrown>".
template <class F>
std::string thrownMessage(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "<nothing thrown>";
}

// --- raw SQL probes ---

inline std::int64_t queryInt(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY, 60000);
  SQLite::Statement q(db, sql);
  if (!q.executeStep() || q.getColumn(0).isNull()) {
    return -1;
  }
  return q.getColumn(0).getInt64();
}

inline std::string queryText(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY, 60000);
  SQLite::Statement q(db, sql);
  if (!q.executeStep() || q.getColumn(0).isNull()) {
    return "<null>";
  }
  return q.getColumn(0).getString();
}

/// Decodes padded base64 independently of the code under test.
inline std::string decodeBase64(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') {
      break;
    }
    bits = bits << 6 | static_cast<std::uint32_t>(kAlphabet.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes.push_back(static_cast<char>(bits >> count & 0xFF));
    }
  }
  return bytes;
}

}  // namespace agentvcr::store::testing
