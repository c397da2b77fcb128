#include "agentvcr/protocol/redact.hpp"

#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol {
namespace {

using test::json;

TEST(RedactionToken, DeterministicAndOpaque) {
  std::string token = redactionToken("Bearer sk-1");
  EXPECT_EQ(token, "REDACTED-" + hashHex(stableHash("Bearer sk-1")));
  EXPECT_EQ(token.size(), 9U + 16U);
  EXPECT_EQ(token, redactionToken("Bearer sk-1"));
  EXPECT_NE(token, redactionToken("Bearer sk-2"));
  EXPECT_EQ(token.find("sk-1"), std::string::npos);
}

TEST(IsSecretHeader, KnownNamesAnyCase) {
  for (const char* name : {"Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization",
                           "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "x-api-key"}) {
    EXPECT_TRUE(isSecretHeader(name)) << name;
  }
}

TEST(IsSecretHeader, NamesContainingSecretWords) {
  for (const char* name : {"X-Auth-Token", "X-Goog-Api-Key", "X-Client-Secret", "Token"}) {
    EXPECT_TRUE(isSecretHeader(name)) << name;
  }
}

TEST(IsSecretHeader, OrdinaryHeaders) {
  for (const char* name : {"Content-Type", "Content-Length", "User-Agent", "Accept",
                           "Accept-Encoding", "Connection", "Host", "X-Request-Id"}) {
    EXPECT_FALSE(isSecretHeader(name)) << name;
  }
}

TEST(RedactHeaders, ReplacesOnlySecretValues) {
  Headers headers = {
      {"Content-Type", "application/json"}, {"Authorization", "Bearer sk-1"}, {"x-api-key", "k"}};
  EXPECT_EQ(redactHeaders(headers), 2U);
  EXPECT_EQ(headers[0].value, "application/json");
  EXPECT_EQ(headers[1].name, "Authorization");
  EXPECT_EQ(headers[1].value, redactionToken("Bearer sk-1"));
  EXPECT_EQ(headers[2].value, redactionToken("k"));
}

TEST(RedactHeaders, IsIdempotent) {
  Headers headers = {{"Authorization", "Bearer sk-1"}};
  redactHeaders(headers);
  Headers once = headers;
  EXPECT_EQ(redactHeaders(headers), 0U);
  EXPECT_EQ(headers, once);
}

// magma-protocol.md §19 B3, with a credential in the backend headers.
constexpr const char* kSession =
    R"({"backends": {"local": {"type": "ollama", "endpoint": "http://h/v1/chat/completions", "default_model": "m", "headers": {"Authorization": "Bearer sk-1", "X-Org": "acme"}, "timeout": 60, "max_retry": 3}}, "provider": "llm", "endpoint": null, "connect_timeout": 10, "capture_logs": true})";

TEST(RedactCoachingSessionBody, ReplacesEveryBackendHeaderValue) {
  auto redacted = redactCoachingSessionBody(kSession);
  ASSERT_TRUE(redacted);
  EXPECT_EQ(
      *redacted,
      R"({"backends":{"local":{"type":"ollama","endpoint":"http://h/v1/chat/completions","default_model":"m","headers":{"Authorization":")" +
          redactionToken("Bearer sk-1") + R"(","X-Org":")" + redactionToken("acme") +
          R"("},"timeout":60,"max_retry":3}},"provider":"llm","endpoint":null,"connect_timeout":10,"capture_logs":true})");
  EXPECT_EQ(redacted->find("sk-1"), std::string::npos);
}

TEST(RedactCoachingSessionBody, NonStringHeaderValuesAreRedactedToo) {
  auto redacted = redactCoachingSessionBody(
      R"({"backends": {"a": {"headers": {"X-Key": 12345, "X-List": ["s"]}}}})");
  ASSERT_TRUE(redacted);
  Json body = json(*redacted);
  EXPECT_EQ(body["backends"]["a"]["headers"]["X-Key"], redactionToken("12345"));
  EXPECT_EQ(body["backends"]["a"]["headers"]["X-List"], redactionToken(R"(["s"])"));
}

TEST(RedactCoachingSessionBody, SeveralBackends) {
  auto redacted = redactCoachingSessionBody(
      R"({"backends": {"a": {"headers": {"Authorization": "A"}}, "b": {"headers": {}}, "c": {"headers": {"K": "C"}}}})");
  ASSERT_TRUE(redacted);
  Json body = json(*redacted);
  EXPECT_EQ(body["backends"]["a"]["headers"]["Authorization"], redactionToken("A"));
  EXPECT_EQ(body["backends"]["b"]["headers"], Json::object());
  EXPECT_EQ(body["backends"]["c"]["headers"]["K"], redactionToken("C"));
}

TEST(RedactCoachingSessionBody, NothingToRedact) {
  EXPECT_FALSE(redactCoachingSessionBody(
      R"({"backends": {"local": {"type": "t", "endpoint": "e", "default_model": "m", "headers": {}}}})"));
  EXPECT_FALSE(redactCoachingSessionBody(
      R"({"backends": {"local": {"type": "t", "endpoint": "e", "default_model": "m"}}})"));
  EXPECT_FALSE(redactCoachingSessionBody(R"({"provider": "human", "endpoint": "http://ui"})"));
  EXPECT_FALSE(redactCoachingSessionBody(R"({"backends": [], "token": null})"));
  EXPECT_FALSE(redactCoachingSessionBody("[1, 2]"));
  EXPECT_FALSE(redactCoachingSessionBody(""));
  EXPECT_FALSE(redactCoachingSessionBody("not json"));
}

TEST(RedactCoachingSessionBody, SecretNamedMembersAnywhere) {
  auto redacted = redactCoachingSessionBody(
      R"({"backends": {"a": {"type": "t", "api_key": "k1"}}, "extra": [{"apiKey": "k2", "token": "k3"}], "password": "p", "secret": {"nested": 1}})");
  ASSERT_TRUE(redacted);
  Json body = json(*redacted);
  EXPECT_EQ(body["backends"]["a"]["api_key"], redactionToken("k1"));
  EXPECT_EQ(body["backends"]["a"]["type"], "t");
  EXPECT_EQ(body["extra"][0]["apiKey"], redactionToken("k2"));
  EXPECT_EQ(body["extra"][0]["token"], redactionToken("k3"));
  EXPECT_EQ(body["password"], redactionToken("p"));
  EXPECT_EQ(body["secret"], redactionToken(R"({"nested":1})"));
}

TEST(RedactCoachingSessionBody, IsIdempotent) {
  auto once = redactCoachingSessionBody(kSession);
  ASSERT_TRUE(once);
  EXPECT_FALSE(redactCoachingSessionBody(*once));
}

TEST(RedactCoachingSessionBody, KeepsTheSendersKeyOrderAndDuplicatesResolve) {
  auto redacted = redactCoachingSessionBody(
      R"({"provider": "llm", "backends": {"z": {"headers": {"B": "1", "A": "2"}}}, "capture_logs": true})");
  ASSERT_TRUE(redacted);
  EXPECT_EQ(*redacted, R"({"provider":"llm","backends":{"z":{"headers":{"B":")" +
                           redactionToken("1") + R"(","A":")" + redactionToken("2") +
                           R"("}}},"capture_logs":true})");
}

TEST(RedactCoachingSessionBody, UnparseableBodyThatMayHoldSecretsIsReplacedWhole) {
  std::string broken = R"({"backends": {"a": {"headers": {"Authorization": "Bearer sk-1"}})";
  auto redacted = redactCoachingSessionBody(broken);
  ASSERT_TRUE(redacted);
  EXPECT_EQ(*redacted, redactionToken(broken));
}

}  // namespace
}  // namespace agentvcr::protocol
