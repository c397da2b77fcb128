// The collector's endpoint and headers from options and the OpenTelemetry variables; header
// values never appear in an error.

#include "agentvcr/otel/endpoint.hpp"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::otel {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

EnvLookup environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> std::optional<std::string> {
    const auto at = variables.find(name);
    return at == variables.end() ? std::nullopt : std::optional<std::string>(at->second);
  };
}

std::string errorOf(const std::string& url, const std::vector<std::string>& headers,
                    const EnvLookup& env) {
  try {
    resolveEndpoint(url, headers, env);
  } catch (const EndpointError& e) {
    return e.what();
  }
  return "<nothing thrown>";
}

TEST(OtlpEndpointTest, ABaseUrlGetsTheTracesPath) {
  const auto none = environment({});
  auto endpoint = resolveEndpoint("http://collector:4318", {}, none);
  EXPECT_FALSE(endpoint.server.tls);
  EXPECT_EQ(endpoint.server.host, "collector");
  EXPECT_EQ(endpoint.server.port, 4318);
  EXPECT_EQ(endpoint.path, "/v1/traces");
  EXPECT_EQ(endpoint.toString(), "http://collector:4318/v1/traces");

  EXPECT_EQ(resolveEndpoint("http://collector:4318/v1/traces", {}, none).path, "/v1/traces");
  endpoint = resolveEndpoint("https://otlp.example.com/tenant-7", {}, none);
  EXPECT_TRUE(endpoint.server.tls);
  EXPECT_EQ(endpoint.server.port, 443);
  EXPECT_EQ(endpoint.path, "/tenant-7/v1/traces");
  EXPECT_TRUE(endpoint.tls.verify);
}

TEST(OtlpEndpointTest, TheVariablesWhenNoUrlIsGiven) {
  auto env = environment({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:1234/custom"},
                          {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318"}});
  EXPECT_EQ(resolveEndpoint("", {}, env).toString(), "http://traces:1234/custom");  // as is
  EXPECT_EQ(resolveEndpoint("http://flag:1", {}, env).toString(), "http://flag:1/v1/traces");
  env = environment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318/"}});
  EXPECT_EQ(resolveEndpoint("", {}, env).toString(), "http://base:4318/v1/traces");
  EXPECT_THAT(errorOf("", {}, environment({})), HasSubstr("OTEL_EXPORTER_OTLP_ENDPOINT"));
  env = environment({{"OTEL_EXPORTER_OTLP_CERTIFICATE", "/etc/ca.pem"}});
  EXPECT_EQ(resolveEndpoint("https://c", {}, env).tls.ca_file, "/etc/ca.pem");
}

TEST(OtlpEndpointTest, HeadersFromTheVariableArePercentDecodedThenOptionsFollow) {
  const auto env =
      environment({{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=secret%20value, x-tenant = a%2Cb ,,"}});
  const auto endpoint = resolveEndpoint("http://c:4318", {"Authorization=Bearer tok=en"}, env);
  ASSERT_EQ(endpoint.headers.size(), 3u);
  EXPECT_EQ(endpoint.headers[0], (protocol::HeaderField{"api-key", "secret value"}));
  EXPECT_EQ(endpoint.headers[1], (protocol::HeaderField{"x-tenant", "a,b"}));
  EXPECT_EQ(endpoint.headers[2], (protocol::HeaderField{"Authorization", "Bearer tok=en"}));
  EXPECT_THAT(endpoint.toString(), Not(HasSubstr("secret")));
}

TEST(OtlpEndpointTest, PercentDecodingLeavesWhatIsNotAnEscape) {
  EXPECT_EQ(percentDecode("%41%zz%4"), "A%zz%4");
  EXPECT_EQ(percentDecode("a%3Db%3d"), "a=b=");
  EXPECT_EQ(percentDecode("%"), "%");
}

TEST(OtlpEndpointTest, ErrorsNameTheCulpritNeverAHeaderValue) {
  const auto none = environment({});
  EXPECT_THAT(errorOf("ftp://c", {}, none), HasSubstr("http(s)://host"));
  EXPECT_THAT(errorOf("http://c:99999", {}, none), HasSubstr("collector URL"));
  EXPECT_THAT(errorOf("", {}, environment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "c:4318"}})),
              HasSubstr("OTEL_EXPORTER_OTLP_ENDPOINT"));

  const std::string bad_name = errorOf("http://c", {"bad name=hunter2-secret"}, none);
  EXPECT_THAT(bad_name, HasSubstr("--otlp-header"));
  EXPECT_THAT(bad_name, Not(HasSubstr("hunter2")));
  const std::string no_equals = errorOf("http://c", {"hunter2-secret"}, none);
  EXPECT_THAT(no_equals, HasSubstr("NAME=VALUE"));
  EXPECT_THAT(no_equals, Not(HasSubstr("hunter2")));
  const std::string line_break = errorOf("http://c", {"X-Key=hunter2\r\nX-Evil: 1"}, none);
  EXPECT_THAT(line_break, HasSubstr("X-Key"));
  EXPECT_THAT(line_break, Not(HasSubstr("hunter2")));
  const std::string in_variable =
      errorOf("http://c", {}, environment({{"OTEL_EXPORTER_OTLP_HEADERS", "ok=1,hunter2-secret"}}));
  EXPECT_THAT(in_variable, HasSubstr("OTEL_EXPORTER_OTLP_HEADERS: entry 2"));
  EXPECT_THAT(in_variable, Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace agentvcr::otel
