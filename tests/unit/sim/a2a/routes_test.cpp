// HTTP-level behaviour of the engine: card paths, CORS, unknown paths and methods.

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using testing::Harness;
using testing::header;
using testing::parse;

TEST(Routes, PreflightAnswersWithTheDocumentedCorsHeaders) {
  Harness mock(testing::magisteriumConfig());
  for (const char* target : {"/api/v1/a2a", "/", "/.well-known/agent.json", "/elsewhere"}) {
    protocol::HttpReply reply = mock.engine().handle(
        {"OPTIONS",
         target,
         {{"Origin", "https://app.example"}, {"Access-Control-Request-Method", "POST"}},
         ""});
    EXPECT_EQ(reply.status, 204) << target;
    EXPECT_EQ(reply.content_type, "");
    EXPECT_EQ(reply.body, "");
    EXPECT_EQ(reply.headers,
              (protocol::Headers{{"Access-Control-Allow-Origin", "*"},
                                 {"Access-Control-Allow-Methods", "POST, OPTIONS"},
                                 {"Access-Control-Allow-Headers", "Content-Type, Authorization"}}))
        << target;
  }
}

TEST(Routes, StandardPreflightAllowsTheVersionHeader) {
  Harness mock(testing::standardConfig());
  protocol::HttpReply reply = mock.engine().handle(
      {"OPTIONS", "/api/v1/a2a", {{"Access-Control-Request-Headers", "a2a-version"}}, ""});
  EXPECT_EQ(reply.status, 204);
  EXPECT_EQ(testing::header(reply, "Access-Control-Allow-Headers"),
            "Content-Type, Authorization, A2A-Version");
  EXPECT_EQ(testing::header(reply, "Access-Control-Allow-Methods"), "GET, POST, DELETE, OPTIONS")
      << "the HTTP+JSON binding reads with GET and deletes with DELETE";
}

TEST(Routes, EveryMagisteriumAnswerAllowsAnyOrigin) {
  Harness mock(testing::magisteriumConfig());
  const protocol::HttpReply replies[] = {
      mock.post(testing::sendRequest(testing::userMessage("What is grace?"))),
      mock.post(testing::sendRequest(testing::userMessage("What is grace?")), "bad"),
      mock.post("{", "good"),
      mock.get("/.well-known/agent.json"),
      mock.get("/nowhere"),
      mock.get("/api/v1/a2a"),
  };
  for (const protocol::HttpReply& reply : replies) {
    EXPECT_EQ(header(reply, "Access-Control-Allow-Origin"), "*") << reply.status << reply.body;
  }
}

TEST(Routes, WithoutCorsThereAreNoCorsHeaders) {
  MockConfig config = testing::magisteriumConfig();
  config.cors = false;
  Harness mock(std::move(config));
  protocol::HttpReply preflight = mock.engine().handle({"OPTIONS", "/api/v1/a2a", {}, ""});
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(preflight.headers, (protocol::Headers{{"Allow", "GET, POST, OPTIONS"}}));
  protocol::HttpReply answer = mock.post(testing::sendRequest(testing::userMessage("hi")));
  EXPECT_EQ(header(answer, "Access-Control-Allow-Origin"), "<absent>");
}

TEST(Routes, CardAtBothPathsWithCacheControl) {
  Harness mock(testing::magisteriumConfig());
  protocol::HttpReply old_path = mock.get("/.well-known/agent.json");
  protocol::HttpReply new_path = mock.get("/.well-known/agent-card.json?x=1");
  for (const protocol::HttpReply* reply : {&old_path, &new_path}) {
    EXPECT_EQ(reply->status, 200);
    EXPECT_EQ(reply->content_type, "application/json");
    EXPECT_EQ(header(*reply, "Cache-Control"), "public, max-age=3600");
  }
  EXPECT_EQ(old_path.body, new_path.body);
  Json card = parse(old_path.body);
  EXPECT_EQ(card["protocolVersion"], "0.3.0");
  EXPECT_EQ(card["url"], "http://mock.test/api/v1/a2a");
  EXPECT_EQ(card["preferredTransport"], "JSONRPC");
  EXPECT_EQ(card["name"], "Magisterium AI");
  EXPECT_EQ(
      card["capabilities"],
      parse(R"({"streaming":false,"pushNotifications":false,"stateTransitionHistory":true})"));
  ASSERT_EQ(card["skills"].size(), 10u);
  EXPECT_EQ(card["skills"][0]["id"], "catholic_qa");
  EXPECT_FALSE(card["skills"][0].contains("tier")) << "mock-only fields stay off the card";
  EXPECT_FALSE(card["skills"][0].contains("answers"));
  EXPECT_EQ(card.begin().key(), "protocolVersion");
}

TEST(Routes, CardVersionSwitchesTo026WithoutPreferredTransport) {
  MockConfig config = testing::magisteriumConfig();
  config.card_version = "0.2.6";
  Harness mock(std::move(config));
  Json card = parse(mock.get("/.well-known/agent.json").body);
  EXPECT_EQ(card["protocolVersion"], "0.2.6");
  EXPECT_FALSE(card.contains("preferredTransport"));
  EXPECT_EQ(mock.engine().profile().preferred_card_path, "/.well-known/agent.json");
}

TEST(Routes, PublicUrlCanChangeAfterStart) {
  Harness mock(testing::magisteriumConfig());
  mock.engine().setPublicUrl("http://127.0.0.1:47000/api/v1/a2a");
  EXPECT_EQ(parse(mock.get("/.well-known/agent-card.json").body)["url"],
            "http://127.0.0.1:47000/api/v1/a2a");
}

TEST(Routes, CardNeedsNoToken) {
  Harness mock(testing::magisteriumConfig());
  EXPECT_EQ(mock.engine().handle({"GET", "/.well-known/agent.json", {}, ""}).status, 200);
}

TEST(Routes, JsonRpcAtTheEndpointAndAtRoot) {
  Harness mock(testing::magisteriumConfig());
  const std::string body = testing::sendRequest(testing::userMessage("What is grace?"));
  protocol::HttpReply root =
      mock.engine().handle({"POST", "/", {{"Authorization", "Bearer good"}}, body});
  EXPECT_EQ(root.status, 200);
  EXPECT_EQ(parse(root.body)["result"]["status"]["state"], "completed");
}

TEST(Routes, TheEndpointWithATrailingSlashIsTheEndpoint) {
  Harness mock(testing::standardConfig());
  const std::string body = testing::sendRequest(testing::userMessage("hi"));
  const protocol::HttpReply slashed =
      mock.engine().handle({"POST", "/api/v1/a2a/", {{"Content-Type", "application/json"}}, body});
  EXPECT_EQ(slashed.status, 200);
  EXPECT_TRUE(parse(slashed.body).contains("result")) << slashed.body;
  EXPECT_EQ(mock.get("/api/v1/a2a/").status, 405);
  EXPECT_EQ(mock.engine().handle({"POST", "/api/v1/a2a//", {}, body}).status, 404);
  EXPECT_EQ(mock.engine().handle({"POST", "/api/v1/a2ax", {}, body}).status, 404);
}

TEST(Routes, OtherMethodsAndPathsGet405Or404) {
  Harness mock(testing::magisteriumConfig());
  protocol::HttpReply get_endpoint = mock.get("/api/v1/a2a");
  EXPECT_EQ(get_endpoint.status, 405);
  EXPECT_EQ(header(get_endpoint, "Allow"), "POST, OPTIONS");
  protocol::HttpReply post_card =
      mock.engine().handle({"POST", "/.well-known/agent.json", {}, "{}"});
  EXPECT_EQ(post_card.status, 405);
  EXPECT_EQ(header(post_card, "Allow"), "GET, OPTIONS");
  protocol::HttpReply elsewhere = mock.get("/v1/responses");
  EXPECT_EQ(elsewhere.status, 404);
  EXPECT_EQ(elsewhere.body, "Not Found");
}

TEST(Routes, ConfigurableEndpointPath) {
  MockConfig config = testing::magisteriumConfig();
  config.endpoint_path = "/a2a";
  Harness mock(std::move(config));
  const std::string body = testing::sendRequest(testing::userMessage("hi"));
  EXPECT_EQ(mock.engine().handle({"POST", "/a2a", {{"Authorization", "Bearer good"}}, body}).status,
            200);
  EXPECT_EQ(mock.post(body).status, 404) << "the default path is no longer served";
}

TEST(Routes, StandardCardIsTheFixturesWithStreaming) {
  Harness mock(testing::standardConfig());
  Json card = parse(mock.get("/.well-known/agent-card.json").body);
  EXPECT_EQ(card["protocolVersion"], "0.3.0");
  EXPECT_EQ(card["capabilities"]["streaming"], true);
  EXPECT_EQ(card["skills"].size(), 3u);
  EXPECT_EQ(mock.engine().profile().preferred_card_path, "/.well-known/agent-card.json");
  EXPECT_EQ(mock.get("/.well-known/agent.json").body,
            mock.get("/.well-known/agent-card.json").body);
}

TEST(Routes, ConfigsTheEngineCannotServeAreRefusedAtStart) {
  auto clock = std::make_shared<ManualClock>(testing::kStart);
  MockConfig version = testing::magisteriumConfig();
  version.card_version = "1.0";
  EXPECT_THROW(MockEngine(std::move(version), clock), std::invalid_argument);
  MockConfig order = testing::magisteriumConfig();
  order.check_order.pop_back();
  EXPECT_THROW(MockEngine(std::move(order), clock), std::invalid_argument);
  MockConfig working = testing::standardConfig();
  working.profile = ProfileKind::Magisterium;
  EXPECT_THROW(MockEngine(std::move(working), clock), std::invalid_argument)
      << "long_task asks for input; Magisterium's skills are synchronous";
  EXPECT_THROW(MockEngine(MockConfig{}, clock), std::invalid_argument) << "no skills";
}

}  // namespace
}  // namespace agentvcr::sim::a2a
