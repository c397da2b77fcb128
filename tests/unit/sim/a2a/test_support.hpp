#pragma once

#include <cctype>
#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/sim/a2a/engine.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"

namespace agentvcr::sim::a2a::testing {

/// 2025-01-01T00:00:00Z: where every test clock starts.
inline const TimePoint kStart{std::chrono::seconds(1735689600)};

inline Fixtures bundledFixtures(const std::string& profile) {
  FixturesLoad load = loadFixturesDir(std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/" + profile);
  EXPECT_TRUE(load.fixtures.has_value()) << load.error;
  return load.fixtures ? std::move(*load.fixtures) : Fixtures{};
}

/// The Magisterium profile over the bundled fixtures, with tokens "good" (Pro), "org"
/// (Organization) and "free" (Free).
inline MockConfig magisteriumConfig() {
  MockConfig config;
  config.fixtures = bundledFixtures("magisterium");
  config.tokens.add("good", Plan::Pro);
  config.tokens.add("org", Plan::Organization);
  config.tokens.add("free", Plan::Free);
  config.public_url = "http://mock.test/api/v1/a2a";
  return config;
}

inline MockConfig standardConfig() {
  MockConfig config;
  config.profile = ProfileKind::Standard;
  config.fixtures = bundledFixtures("standard");
  config.public_url = "http://mock.test/api/v1/a2a";
  config.stream_delay = std::chrono::milliseconds(25);
  return config;
}

inline Json parse(const std::string& text) {
  auto value = parseJsonText(text);
  EXPECT_TRUE(value.has_value()) << "not JSON: " << text;
  return value ? *value : Json();
}

/// A user message with one text part, and optional ids and skill.
inline Json userMessage(const std::string& text, const std::string& message_id = "m-1") {
  Json message = Json::object();
  message["kind"] = "message";
  message["messageId"] = message_id;
  message["role"] = "user";
  message["parts"] = Json::array({Json{{"kind", "text"}, {"text", text}}});
  return message;
}

inline Json withSkill(Json message, const std::string& skill_id) {
  message["metadata"] = {{"skillId", skill_id}};
  return message;
}

inline std::string request(const Json& id, const std::string& method, const Json& params) {
  Json body = Json::object();
  body["jsonrpc"] = "2.0";
  body["id"] = id;
  body["method"] = method;
  body["params"] = params;
  return dumpJson(body);
}

inline std::string sendRequest(const Json& message, const Json& id = 1) {
  return request(id, "message/send", Json{{"message", message}});
}

inline std::string taskRequest(const std::string& method, const std::string& task_id,
                               const Json& id = 1) {
  return request(id, method, Json{{"id", task_id}});
}

/// `error` as v1.0 sends it: `data` holds one ErrorInfo naming `reason` (the specification,
/// section 9.5), with `metadata` when given.
inline Json withErrorInfo(Json error, const char* reason, Json metadata = nullptr) {
  Json info = {{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
               {"reason", reason},
               {"domain", "a2a-protocol.org"}};
  if (!metadata.is_null()) {
    info["metadata"] = std::move(metadata);
  }
  error["data"] = Json::array({std::move(info)});
  return error;
}

/// One version's spelling of what the tests send.
struct Dialect {
  WireVersion version;
  const char* send;
  const char* stream;
  const char* get;
  const char* cancel;
  const char* subscribe;

  const char* name() const { return protocol::a2a::wireVersionName(version); }

  bool v10() const { return version == WireVersion::V10; }

  /// `error` as this version sends it: v1.0 adds an ErrorInfo naming `reason`.
  Json error(Json error, const char* reason) const {
    return v10() ? withErrorInfo(std::move(error), reason) : error;
  }

  /// A user message with one text part.
  Json message(const std::string& text, const std::string& message_id = "m-1") const {
    Json message = Json::object();
    if (!v10()) {
      message["kind"] = "message";
    }
    message["messageId"] = message_id;
    message["role"] = v10() ? "ROLE_USER" : "user";
    message["parts"] =
        Json::array({v10() ? Json{{"text", text}} : Json{{"kind", "text"}, {"text", text}}});
    return message;
  }

  std::string state(const char* v03_name) const {
    if (!v10()) {
      return v03_name;
    }
    std::string upper = std::string("TASK_STATE_") + v03_name;
    for (char& c : upper) {
      c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return upper;
  }
};

inline constexpr Dialect kV03{WireVersion::V03, "message/send", "message/stream",
                              "tasks/get",      "tasks/cancel", "tasks/resubscribe"};
inline constexpr Dialect kV10{WireVersion::V10, "SendMessage", "SendStreamingMessage",
                              "GetTask",        "CancelTask",  "SubscribeToTask"};

/// An engine on a manual clock, and shorthands to talk to it.
class Harness {
 public:
  explicit Harness(MockConfig config)
      : clock_(std::make_shared<ManualClock>(kStart)), engine_(std::move(config), clock_) {}

  MockEngine& engine() { return engine_; }

  ManualClock& clock() { return *clock_; }

  /// POSTs `body` to the endpoint with `token` as Bearer ("" sends no Authorization).
  protocol::HttpReply post(const std::string& body, const std::string& token = "good",
                           protocol::Headers headers = {{"Content-Type", "application/json"}}) {
    if (!token.empty()) {
      headers.push_back({"Authorization", "Bearer " + token});
    }
    return engine_.handle({"POST", "/api/v1/a2a", std::move(headers), body});
  }

  /// POSTs `body` to the endpoint as `dialect` speaks: with `A2A-Version: 1.0` for v1.0, no
  /// token.
  protocol::HttpReply postAs(const Dialect& dialect, const std::string& body) {
    protocol::Headers headers = {{"Content-Type", "application/json"}};
    if (dialect.v10()) {
      headers.push_back({"A2A-Version", "1.0"});
    }
    return post(body, "", std::move(headers));
  }

  /// The parsed JSON-RPC response to `body`.
  Json call(const std::string& body, const std::string& token = "good") {
    protocol::HttpReply reply = post(body, token);
    EXPECT_TRUE(reply.stream.empty());
    return parse(reply.body);
  }

  /// The task message/send answers for `message`.
  Json send(const Json& message, const std::string& token = "good") {
    Json response = call(sendRequest(message), token);
    EXPECT_TRUE(response.contains("result")) << response.dump();
    return response.contains("result") ? response["result"] : Json();
  }

  protocol::HttpReply get(const std::string& target) {
    return engine_.handle({"GET", target, {}, ""});
  }

 private:
  std::shared_ptr<ManualClock> clock_;
  MockEngine engine_;
};

/// The value of the first header named `name` (exact spelling), or "<absent>".
inline std::string header(const protocol::HttpReply& reply, const std::string& name) {
  for (const auto& field : reply.headers) {
    if (field.name == name) {
      return field.value;
    }
  }
  return "<absent>";
}

}  // namespace agentvcr::sim::a2a::testing
