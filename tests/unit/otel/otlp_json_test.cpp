// Spans in OTLP/HTTP JSON: the attribute forms, the span's fields, and requests cut by span
// count and bytes.

#include "agentvcr/otel/otlp_json.hpp"

#include <gtest/gtest.h>

#include "agentvcr/otel/ids.hpp"
#include "agentvcr/store/identity.hpp"

namespace agentvcr::otel {
namespace {

using nlohmann::json;

Span sampleSpan(int n) {
  Span span;
  span.trace_id = conversationTraceId("6f1c0d2e-0000-4000-8000-000000000001", 1);
  span.span_id = spanId(span.trace_id, "exchange/" + std::to_string(n));
  span.parent_span_id = spanId(span.trace_id, "conversation");
  span.name = "POST /v1/responses";
  span.kind = SpanKind::Server;
  span.start_ns = 1'700'000'000'000'000'001;
  span.end_ns = 1'700'000'000'000'000'002;
  span.attributes = {{"http.response.status_code", std::int64_t{200}}};
  return span;
}

TEST(OtlpJsonTest, AttributesInEachForm) {
  EXPECT_EQ(attributeJson({"a", std::string("x")}),
            json::parse(R"({"key":"a","value":{"stringValue":"x"}})"));
  EXPECT_EQ(attributeJson({"a", std::int64_t{-7}}),
            json::parse(R"({"key":"a","value":{"intValue":"-7"}})"));
  EXPECT_EQ(attributeJson({"a", true}), json::parse(R"({"key":"a","value":{"boolValue":true}})"));
  EXPECT_EQ(attributeJson({"a", 0.5}), json::parse(R"({"key":"a","value":{"doubleValue":0.5}})"));
}

TEST(OtlpJsonTest, ASpanHasHexIdsStringTimesAndAnErrorStatus) {
  Span span = sampleSpan(1);
  json encoded = spanJson(span);
  EXPECT_EQ(encoded["traceId"].get<std::string>().size(), 32u);
  EXPECT_EQ(encoded["spanId"].get<std::string>().size(), 16u);
  EXPECT_EQ(encoded["parentSpanId"], span.parent_span_id);
  EXPECT_EQ(encoded["kind"], 2);
  EXPECT_EQ(encoded["startTimeUnixNano"], "1700000000000000001");
  EXPECT_EQ(encoded["endTimeUnixNano"], "1700000000000000002");
  EXPECT_FALSE(encoded.contains("status"));
  span.parent_span_id.clear();
  span.error = true;
  span.status_message = "upstream refused";
  encoded = spanJson(span);
  EXPECT_FALSE(encoded.contains("parentSpanId"));
  EXPECT_EQ(encoded["status"], json::parse(R"({"code":2,"message":"upstream refused"})"));
}

TEST(OtlpJsonTest, RequestsAreCutBySpanCountAndBytes) {
  std::vector<Span> spans;
  for (int i = 0; i < 5; ++i) {
    spans.push_back(sampleSpan(i));
  }
  const Attributes resource = {{"service.name", std::string("agentvcr")}};
  auto payloads = encodePayloads(resource, spans, {2, 1u << 20});
  ASSERT_EQ(payloads.size(), 3u);
  EXPECT_EQ(payloads[2].spans, 1u);
  const json request = json::parse(payloads[0].body);
  const json& scope = request["resourceSpans"][0]["scopeSpans"][0];
  EXPECT_EQ(scope["scope"]["name"], "agentvcr");
  EXPECT_EQ(scope["scope"]["version"], store::agentvcrVersion());
  EXPECT_EQ(scope["spans"].size(), 2u);
  EXPECT_EQ(request["resourceSpans"][0]["resource"]["attributes"][0]["key"], "service.name");

  payloads = encodePayloads(resource, spans, {512, 1});  // each span over budget goes alone
  EXPECT_EQ(payloads.size(), 5u);
  EXPECT_TRUE(encodePayloads(resource, {}, {}).empty());
}

}  // namespace
}  // namespace agentvcr::otel
