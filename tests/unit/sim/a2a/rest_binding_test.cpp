// The mock's HTTP+JSON binding (A2A v1.0, the specification's section 11): every route, its
// answers without the JSON-RPC envelope, errors as google.rpc.Status with their details, event
// streams, tenants, and the card declaring the interface.

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using testing::Harness;
using testing::parse;

constexpr const char* kBase = "/api/v1/rest";

class RestBinding : public ::testing::Test {
 protected:
  Harness mock_{testing::standardConfig()};

  protocol::HttpReply call(const std::string& method, const std::string& path,
                           const std::string& body = "",
                           const std::string& content_type = "application/a2a+json") {
    protocol::Headers headers = {{"A2A-Version", "1.0"}};
    if (!body.empty()) {
      headers.push_back({"Content-Type", content_type});
    }
    return mock_.engine().handle({method, kBase + path, std::move(headers), body});
  }

  /// A SendMessage request body: one text part, `message_id`.
  static std::string sendBody(const std::string& message_id, const std::string& text = "hi") {
    return dumpJson(
        Json{{"message",
              {{"messageId", message_id}, {"role", "ROLE_USER"}, {"parts", {{{"text", text}}}}}}});
  }

  /// The google.rpc.Status of an error answer, checked to name `reason`.
  static Json statusOf(const protocol::HttpReply& reply, int http_status, const char* name,
                       const char* reason) {
    EXPECT_EQ(reply.status, http_status) << reply.body;
    const Json error = parse(reply.body)["error"];
    EXPECT_EQ(error["code"], http_status);
    EXPECT_EQ(error["status"], name);
    EXPECT_EQ(error["details"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    EXPECT_EQ(error["details"][0]["reason"], reason);
    EXPECT_EQ(error["details"][0]["domain"], "a2a-protocol.org");
    return error;
  }
};

TEST_F(RestBinding, SendGetListAndCancelAnswerWithoutTheEnvelope) {
  const protocol::HttpReply sent = call("POST", "/message:send", sendBody("m-1"));
  ASSERT_EQ(sent.status, 200) << sent.body;
  EXPECT_EQ(sent.content_type, "application/a2a+json");
  const Json task = parse(sent.body)["task"];
  EXPECT_FALSE(parse(sent.body).contains("jsonrpc"));
  EXPECT_EQ(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
  const std::string id = task["id"];

  const Json got = parse(call("GET", "/tasks/" + id + "?historyLength=1").body);
  EXPECT_EQ(got["id"], id);
  EXPECT_EQ(got["history"].size(), 1u);

  const Json listed = parse(call("GET", "/tasks?pageSize=1&includeArtifacts=false").body);
  EXPECT_EQ(listed["tasks"].size(), 1u);
  EXPECT_EQ(listed["pageSize"], 1);

  const Json canceled = parse(call("POST", "/tasks/" + id + ":cancel").body);
  EXPECT_EQ(canceled["status"]["state"], "TASK_STATE_CANCELED");
  statusOf(call("POST", "/tasks/" + id + ":cancel"), 400, "FAILED_PRECONDITION",
           "TASK_NOT_CANCELABLE");
}

TEST_F(RestBinding, ErrorsAreStatusesWithTheirHttpCodes) {
  statusOf(call("GET", "/tasks/nope"), 404, "NOT_FOUND", "TASK_NOT_FOUND");
  statusOf(call("GET", "/tasks?pageSize=many"), 400, "INVALID_ARGUMENT", "INVALID_PARAMS");
  statusOf(call("POST", "/message:send", "{not json"), 400, "INVALID_ARGUMENT", "JSON_PARSE");
  statusOf(call("POST", "/message:send", "[1]"), 400, "INVALID_ARGUMENT", "JSON_PARSE");
  statusOf(call("POST", "/message:send", sendBody("m"), "text/plain"), 400, "INVALID_ARGUMENT",
           "CONTENT_TYPE_NOT_SUPPORTED");
  statusOf(call("GET", "/no/such/route"), 404, "NOT_FOUND", "METHOD_NOT_FOUND");
  statusOf(call("DELETE", "/message:send"), 404, "NOT_FOUND", "METHOD_NOT_FOUND");
  statusOf(call("GET", "/extendedAgentCard"), 400, "FAILED_PRECONDITION",
           "EXTENDED_AGENT_CARD_NOT_CONFIGURED");
  for (const auto& [method, path] : {std::pair{"POST", "/tasks/t/pushNotificationConfigs"},
                                     std::pair{"GET", "/tasks/t/pushNotificationConfigs"},
                                     std::pair{"GET", "/tasks/t/pushNotificationConfigs/c"},
                                     std::pair{"DELETE", "/tasks/t/pushNotificationConfigs/c"}}) {
    statusOf(call(method, path, method == std::string("POST") ? "{}" : ""), 400,
             "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED");
  }
}

TEST_F(RestBinding, AVersionOtherThanOneIsNotServed) {
  const protocol::HttpReply refused = mock_.engine().handle(
      {"POST", std::string(kBase) + "/message:send", {{"A2A-Version", "0.3"}}, sendBody("m")});
  const Json error = statusOf(refused, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
  EXPECT_EQ(error["details"][0]["metadata"]["supportedVersions"], "1.0");
  EXPECT_EQ(mock_.engine()
                .handle({"POST", std::string(kBase) + "/message:send", {}, sendBody("m")})
                .status,
            200)
      << "no header: the binding's own version";
}

TEST_F(RestBinding, StreamsCarryBareStreamResponses) {
  const protocol::HttpReply reply =
      call("POST", "/message:stream", sendBody("fate-stream-2", "go"));
  EXPECT_EQ(reply.content_type, "text/event-stream");
  ASSERT_EQ(reply.stream.size(), 6u);  // task, working, 2 updates, artifact, final status
  const Json first = parse(reply.stream[0].bytes.substr(6));
  EXPECT_FALSE(first.contains("jsonrpc"));
  ASSERT_TRUE(first.contains("task"));
  const Json last = parse(reply.stream[5].bytes.substr(6));
  EXPECT_EQ(last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");

  const std::string waiting =
      parse(call("POST", "/message:send", sendBody("m-2")).body)["task"]["id"];
  for (const char* method : {"POST", "GET"}) {
    const protocol::HttpReply followed = call(method, "/tasks/" + waiting + ":subscribe");
    ASSERT_FALSE(followed.stream.empty()) << method << " " << followed.body;
    EXPECT_EQ(parse(followed.stream[0].bytes.substr(6))["task"]["id"], waiting) << method;
  }
}

TEST_F(RestBinding, ATenantPrefixAndEscapedIdsAreRead) {
  const protocol::HttpReply sent = call("POST", "/acme/message:send", sendBody("fate-complete"));
  ASSERT_EQ(sent.status, 200) << sent.body;
  const std::string id = parse(sent.body)["task"]["id"];
  std::string escaped;
  for (char c : id) {
    escaped += c == '-' ? std::string("%2D") : std::string(1, c);
  }
  EXPECT_EQ(parse(call("GET", "/acme/tasks/" + escaped).body)["id"], id);
}

TEST_F(RestBinding, TheCardDeclaresTheInterfaceAndJsonRpcStaysAsItWas) {
  const Json card = parse(mock_.get("/.well-known/agent-card.json").body);
  bool declared = false;
  for (const Json& entry : card["supportedInterfaces"]) {
    declared = declared || (entry["protocolBinding"] == "HTTP+JSON" &&
                            entry["url"] == "http://mock.test/api/v1/rest" &&
                            entry["protocolVersion"] == "1.0");
  }
  EXPECT_TRUE(declared) << card.dump();
  EXPECT_EQ(mock_.engine().handle({"GET", "/api/v1/restless", {}, ""}).status, 404);
}

TEST(RestBindingMagisterium, IsNotServed) {
  Harness mock(testing::magisteriumConfig());
  EXPECT_EQ(mock.engine().handle({"POST", "/api/v1/rest/message:send", {}, "{}"}).status, 404);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
