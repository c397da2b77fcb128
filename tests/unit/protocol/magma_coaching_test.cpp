#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol::magma {
namespace {

using test::json;
using test::summary;

// magma-protocol.md §19 B3 (elided values filled in).
constexpr const char* kSessionConfig =
    R"({"backends":{"local":{"type":"ollama","endpoint":"http://127.0.0.1:11434/v1/chat/completions","default_model":"qwen3:8b","headers":{"Authorization":"Bearer sk-1"},"timeout":60,"max_retry":3}},
   "provider":"llm","endpoint":null,"connect_timeout":10,"capture_logs":true})";

constexpr const char* kCoachingRequest =
    R"js({"run_id":"run-2026-10-04-a","request_id":"c-12","kind":"failure",
   "stage":{"id":0,"goal":"Move damaged objects to mutual_zone","hint":null},"active_errors":[],
   "diagnosis":{"explanation":"The agent asked instead of inspecting with get_objects_state.","expected_decision":"arm1.get_objects_state()"},
   "target_step_id":1,
   "trajectory":[{"id":1,"input":{"id":41,"instruction":{"type":"user","content":"Please move every damaged fruit to the mutual zone."},
       "tools":[{"name":"get_objects_state","description":"Return all known objects.","arguments":{}}],
       "attributes":{"known_robots":["arm1","arm2"]},"memory":{"memory_list":["Only arm1 can inspect objects."],"history":[]},
       "num_outputs":2,"extra_keys":{"inference_mode":false}},
     "output":{"say":"Which fruits are damaged?","tool_calls":[]},"error":null,"internal_steps":[{"id":"step-0"}],"execution":{"score":0}}],
   "reinjection_points":[{"id":"p1","input_step_id":1,"input":null}],"additional_info":{}})js";

constexpr const char* kCoachingResponse =
    R"({"logs":[{"coaching_type":"failure","content":"# Coaching ..."}],"request_id":"c-12","status":"corrected",
    "proposals":[{"reinjection_point_id":"p1","extra_keys":{"kind":"replace_decision","decision":{"say":"","tool_calls":[{"name":"get_objects_state","arguments":{},"target_robot_name":"arm1"}]}}}],
    "reason":null})";

// --- CoachingSessionConfig ---

template <class Edit>
std::string sessionFindingsAfter(Edit edit) {
  Json body = json(kSessionConfig);
  edit(body);
  auto parsed = parseCoachingSessionConfig(body);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

Json& backend(Json& body) {
  return body["backends"]["local"];
}

TEST(CoachingSessionConfig, EpisodeB3Parses) {
  auto parsed = parseCoachingSessionConfig(json(kSessionConfig));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const CoachingBackendConfig& local = parsed.value->backends.at("local");
  EXPECT_EQ(local.type, "ollama");
  EXPECT_EQ(local.headers.at("Authorization"), "Bearer sk-1");
  EXPECT_EQ(local.timeout, 60);
  EXPECT_EQ(local.max_retry, 3);
  EXPECT_EQ(parsed.value->provider, "llm");
  EXPECT_FALSE(parsed.value->endpoint);
  EXPECT_EQ(parsed.value->connect_timeout, 10);
  EXPECT_TRUE(parsed.value->capture_logs);
}

TEST(CoachingSessionConfig, DefaultsApply) {
  auto parsed = parseCoachingSessionConfig(
      json(R"({"backends":{"b":{"type":"t","endpoint":"e","default_model":"m"}}})"));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const CoachingBackendConfig& b = parsed.value->backends.at("b");
  EXPECT_TRUE(b.headers.empty());
  EXPECT_EQ(b.timeout, 30);
  EXPECT_EQ(b.max_retry, 3);
  EXPECT_EQ(parsed.value->provider, "llm");
  EXPECT_EQ(parsed.value->connect_timeout, 10);
  EXPECT_TRUE(parsed.value->capture_logs);
}

TEST(CoachingSessionConfig, LlmNeedsABackend) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["backends"] = Json::object(); }),
            R"(value_error ["backends"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b.erase("backends"); }),
            R"(value_error ["backends"])");
  auto parsed = parseCoachingSessionConfig(json("{}"));
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg, "Value error, LLM coaching requires at least one backend");
}

TEST(CoachingSessionConfig, HumanNeedsAnEndpoint) {
  EXPECT_EQ(summary(parseCoachingSessionConfig(json(R"({"provider":"human"})")).findings),
            R"(value_error ["endpoint"])");
  EXPECT_EQ(
      summary(parseCoachingSessionConfig(json(R"({"provider":"human","endpoint":""})")).findings),
      R"(value_error ["endpoint"])");
  EXPECT_EQ(summary(parseCoachingSessionConfig(
                        json(R"({"provider":"human","endpoint":"http://ui:8000"})"))
                        .findings),
            "");
}

TEST(CoachingSessionConfig, ProviderLiteral) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["provider"] = "robot"; }),
            R"(literal_error ["provider"])");
}

TEST(CoachingSessionConfig, EndpointNullableString) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["endpoint"] = 8000; }),
            R"(string_type ["endpoint"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["endpoint"] = "http://ui"; }), "");
}

TEST(CoachingSessionConfig, ConnectTimeoutPositiveNumber) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["connect_timeout"] = 0; }),
            R"(greater_than ["connect_timeout"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["connect_timeout"] = -1.5; }),
            R"(greater_than ["connect_timeout"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["connect_timeout"] = "10"; }),
            R"(float_type ["connect_timeout"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["connect_timeout"] = true; }),
            R"(float_type ["connect_timeout"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["connect_timeout"] = 2.5; }), "");
}

TEST(CoachingSessionConfig, CaptureLogsStrictBool) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["capture_logs"] = 1; }),
            R"(bool_type ["capture_logs"])");
}

TEST(CoachingSessionConfig, BackendsMapOfModels) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["backends"] = Json::array(); }),
            R"(dict_type ["backends"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["backends"]["other"] = "ollama"; }),
            R"(model_type ["backends","other"])");
}

TEST(CoachingBackendConfig, RequiredStrings) {
  for (const char* key : {"type", "endpoint", "default_model"}) {
    EXPECT_EQ(sessionFindingsAfter([&](Json& b) { backend(b).erase(key); }),
              std::string(R"(missing ["backends","local",")") + key + R"("])");
    EXPECT_EQ(sessionFindingsAfter([&](Json& b) { backend(b)[key] = 1; }),
              std::string(R"(string_type ["backends","local",")") + key + R"("])");
  }
}

TEST(CoachingBackendConfig, HeadersMapOfStrings) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["headers"]["X-Retry"] = 1; }),
            R"(string_type ["backends","local","headers","X-Retry"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["headers"] = "Bearer x"; }),
            R"(dict_type ["backends","local","headers"])");
}

TEST(CoachingBackendConfig, TimeoutPositiveNumber) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["timeout"] = 0; }),
            R"(greater_than ["backends","local","timeout"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["timeout"] = true; }),
            R"(float_type ["backends","local","timeout"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["timeout"] = 0.5; }), "");
}

TEST(CoachingBackendConfig, MaxRetryNonNegativeInteger) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["max_retry"] = -1; }),
            R"(greater_than_equal ["backends","local","max_retry"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["max_retry"] = 1.5; }),
            R"(int_type ["backends","local","max_retry"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["max_retry"] = 0; }), "");
}

TEST(CoachingBackendConfig, UnknownKeysRejected) {
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { backend(b)["api_key"] = "k"; }),
            R"(extra_forbidden ["backends","local","api_key"])");
  EXPECT_EQ(sessionFindingsAfter([](Json& b) { b["model"] = "m"; }),
            R"(extra_forbidden ["model"])");
}

// --- SpecializedCoachingRequest ---

template <class Edit>
std::string requestFindingsAfter(Edit edit) {
  Json body = json(kCoachingRequest);
  edit(body);
  auto parsed = parseSpecializedCoachingRequest(body);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

Json& step0(Json& body) {
  return body["trajectory"][0];
}

Json& point0(Json& body) {
  return body["reinjection_points"][0];
}

TEST(SpecializedCoachingRequest, EpisodeB3Parses) {
  auto parsed = parseSpecializedCoachingRequest(json(kCoachingRequest));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const SpecializedCoachingRequest& request = *parsed.value;
  EXPECT_EQ(request.run_id, "run-2026-10-04-a");
  EXPECT_EQ(request.kind, "failure");
  EXPECT_EQ(request.stage.goal, "Move damaged objects to mutual_zone");
  EXPECT_FALSE(request.stage.hint);
  ASSERT_TRUE(request.diagnosis);
  EXPECT_EQ(request.diagnosis->expected_decision, "arm1.get_objects_state()");
  EXPECT_EQ(request.target_step_id, 1);
  ASSERT_EQ(request.trajectory.size(), 1U);
  EXPECT_EQ(request.trajectory[0].input.id, 41);
  EXPECT_EQ(request.trajectory[0].input.num_outputs, 2);
  ASSERT_TRUE(request.trajectory[0].output);
  EXPECT_EQ(request.trajectory[0].output->say, "Which fruits are damaged?");
  EXPECT_FALSE(request.trajectory[0].error);
  ASSERT_EQ(request.reinjection_points.size(), 1U);
  EXPECT_EQ(request.reinjection_points[0].input_step_id, 1);
  EXPECT_FALSE(request.reinjection_points[0].input);
}

TEST(SpecializedCoachingRequest, DefaultsApply) {
  auto parsed =
      parseSpecializedCoachingRequest(json(R"({"run_id":"r","request_id":"c","kind":"format",
      "stage":{"id":2,"goal":"g"},"target_step_id":5,
      "trajectory":[{"id":5,"input":{"id":1,"instruction":{"type":"user","content":"x"}}}],
      "reinjection_points":[{"id":"p","input_step_id":5}]})"));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_TRUE(parsed.value->active_errors.empty());
  EXPECT_FALSE(parsed.value->diagnosis);
  EXPECT_EQ(parsed.value->additional_info, Json::object());
  EXPECT_EQ(parsed.value->trajectory[0].internal_steps, Json::array());
  EXPECT_EQ(parsed.value->trajectory[0].execution, Json::object());
  EXPECT_FALSE(parsed.value->trajectory[0].output);
}

TEST(SpecializedCoachingRequest, RunIdAndRequestIdNonEmpty) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["run_id"] = ""; }),
            R"(string_too_short ["run_id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["request_id"] = ""; }),
            R"(string_too_short ["request_id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b.erase("run_id"); }), R"(missing ["run_id"])");
}

TEST(SpecializedCoachingRequest, KindLiteral) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["kind"] = "style"; }),
            R"(literal_error ["kind"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["kind"] = "suboptimal"; }), "");
}

TEST(SpecializedCoachingRequest, Stage) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b.erase("stage"); }), R"(missing ["stage"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["stage"]["id"] = "0"; }),
            R"(int_type ["stage","id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["stage"]["hint"] = 3; }),
            R"(string_type ["stage","hint"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["stage"]["hint"] = "look first"; }), "");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["stage"]["name"] = "s"; }),
            R"(extra_forbidden ["stage","name"])");
}

TEST(SpecializedCoachingRequest, ActiveErrors) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              b["active_errors"] = json(R"([{"code":"c","description":"d","details":{"x":1}}])");
            }),
            "");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["active_errors"] = json(R"([{"code":"c"}])"); }),
            R"(missing ["active_errors",0,"description"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              b["active_errors"] = json(R"([{"code":"c","description":"d","details":[]}])");
            }),
            R"(dict_type ["active_errors",0,"details"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["active_errors"] = nullptr; }),
            R"(list_type ["active_errors"])");
}

TEST(SpecializedCoachingRequest, Diagnosis) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["diagnosis"] = nullptr; }), "");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["diagnosis"].erase("explanation"); }),
            R"(missing ["diagnosis","explanation"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["diagnosis"]["expected_decision"] = nullptr; }),
            "");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["diagnosis"] = "bad"; }),
            R"(model_type ["diagnosis"])");
}

TEST(SpecializedCoachingRequest, TargetStepMustNameAStep) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["target_step_id"] = 9; }),
            R"(value_error ["target_step_id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["target_step_id"] = "1"; }),
            R"(int_type ["target_step_id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b.erase("target_step_id"); }),
            R"(missing ["target_step_id"])");
}

TEST(SpecializedCoachingRequest, TrajectoryIdsUnique) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["trajectory"].push_back(step0(b)); }),
            R"(value_error ["trajectory",1,"id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              Json second = step0(b);
              second["id"] = 2;
              b["trajectory"].push_back(second);
            }),
            "");
}

TEST(SpecializedCoachingRequest, TrajectoryStepFields) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b.erase("trajectory"); }),
            R"(missing ["trajectory"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { step0(b)["input"]["id"] = 41.0; }),
            R"(int_type ["trajectory",0,"input","id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { step0(b).erase("input"); }),
            R"(missing ["trajectory",0,"input"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { step0(b)["output"]["say"] = 1; }),
            R"(string_type ["trajectory",0,"output","say"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              step0(b)["error"] = {{"code", ""}, {"message", "m"}};
            }),
            R"(string_too_short ["trajectory",0,"error","code"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { step0(b)["execution"] = Json::array(); }),
            R"(dict_type ["trajectory",0,"execution"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { step0(b)["internal_steps"] = {1}; }),
            R"(dict_type ["trajectory",0,"internal_steps",0])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { step0(b)["score"] = 1; }),
            R"(extra_forbidden ["trajectory",0,"score"])");
}

TEST(SpecializedCoachingRequest, ReinjectionPointNeedsExactlyOneInput) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { point0(b)["input_step_id"] = nullptr; }),
            R"(value_error ["reinjection_points",0])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              point0(b) = {{"id", "p1"}};
            }),
            R"(value_error ["reinjection_points",0])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { point0(b)["input"] = step0(b)["input"]; }),
            R"(value_error ["reinjection_points",0])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              point0(b)["input"] = step0(b)["input"];
              point0(b)["input_step_id"] = nullptr;
            }),
            "");
  auto parsed = parseSpecializedCoachingRequest([] {
    Json body = json(kCoachingRequest);
    point0(body).erase("input_step_id");
    return body;
  }());
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg, "Value error, Provide exactly one input or input_step_id");
}

TEST(SpecializedCoachingRequest, ReinjectionInputIsAStrictAgentInput) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              point0(b)["input"] = step0(b)["input"];
              point0(b)["input"]["num_outputs"] = 0;
              point0(b)["input_step_id"] = nullptr;
            }),
            R"(greater_than ["reinjection_points",0,"input","num_outputs"])");
}

TEST(SpecializedCoachingRequest, ReinjectionStepMustExist) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { point0(b)["input_step_id"] = 7; }),
            R"(value_error ["reinjection_points",0,"input_step_id"])");
}

TEST(SpecializedCoachingRequest, ReinjectionPointIdsUnique) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["reinjection_points"].push_back(point0(b)); }),
            R"(value_error ["reinjection_points",1,"id"])");
  EXPECT_EQ(requestFindingsAfter([](Json& b) {
              Json second = point0(b);
              second["id"] = "p2";
              b["reinjection_points"].push_back(second);
            }),
            "");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b.erase("reinjection_points"); }),
            R"(missing ["reinjection_points"])");
}

TEST(SpecializedCoachingRequest, AdditionalInfoFreeObject) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["additional_info"] = {{"seed", 3}}; }), "");
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["additional_info"] = "none"; }),
            R"(dict_type ["additional_info"])");
}

TEST(SpecializedCoachingRequest, UnknownKeysRejected) {
  EXPECT_EQ(requestFindingsAfter([](Json& b) { b["priority"] = 1; }),
            R"(extra_forbidden ["priority"])");
}

// --- SpecializedCoachingResponse ---

SpecializedCoachingRequest coachingRequest() {
  auto parsed = parseSpecializedCoachingRequest(json(kCoachingRequest));
  EXPECT_TRUE(parsed.ok());
  return parsed.value.value_or(SpecializedCoachingRequest{});
}

template <class Edit>
std::string responseFindingsAfter(Edit edit, bool with_request = false) {
  Json body = json(kCoachingResponse);
  edit(body);
  SpecializedCoachingRequest request = coachingRequest();
  auto parsed = parseSpecializedCoachingResponse(body, with_request ? &request : nullptr);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

Json abandoned() {
  return json(
      R"({"logs":[],"request_id":"c-12","status":"abandoned","proposals":[],"reason":"No better decision."})");
}

TEST(SpecializedCoachingResponse, EpisodeB3ParsesAgainstItsRequest) {
  SpecializedCoachingRequest request = coachingRequest();
  auto parsed = parseSpecializedCoachingResponse(json(kCoachingResponse), &request);
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ(parsed.value->status, "corrected");
  ASSERT_EQ(parsed.value->proposals.size(), 1U);
  EXPECT_EQ(parsed.value->proposals[0].extra_keys["kind"], "replace_decision");
  EXPECT_EQ(parsed.value->logs[0].coaching_type, "failure");
}

TEST(SpecializedCoachingResponse, CorrectedNeedsAProposal) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["proposals"] = Json::array(); }),
            R"(value_error ["proposals"])");
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b.erase("proposals"); }),
            R"(value_error ["proposals"])");
}

TEST(SpecializedCoachingResponse, AbandonedAndErrorNeedAReasonAndNoProposals) {
  EXPECT_EQ(summary(parseSpecializedCoachingResponse(abandoned()).findings), "");
  for (const char* status : {"abandoned", "error"}) {
    Json body = abandoned();
    body["status"] = status;
    body["reason"] = nullptr;
    EXPECT_EQ(summary(parseSpecializedCoachingResponse(body).findings),
              R"(value_error ["reason"])");
    body["reason"] = "";
    EXPECT_EQ(summary(parseSpecializedCoachingResponse(body).findings),
              R"(value_error ["reason"])");
    body.erase("reason");
    EXPECT_EQ(summary(parseSpecializedCoachingResponse(body).findings),
              R"(value_error ["reason"])");
    body["reason"] = "Service failed";
    body["proposals"] = json(kCoachingResponse)["proposals"];
    EXPECT_EQ(summary(parseSpecializedCoachingResponse(body).findings),
              R"(value_error ["proposals"])");
  }
}

TEST(SpecializedCoachingResponse, StatusLiteral) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["status"] = "done"; }),
            R"(literal_error ["status"])");
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b.erase("status"); }), R"(missing ["status"])");
}

TEST(SpecializedCoachingResponse, RequestIdNonEmpty) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["request_id"] = ""; }),
            R"(string_too_short ["request_id"])");
}

TEST(SpecializedCoachingResponse, LogCoachingTypePattern) {
  for (const char* good : {"failure", "format_2", "a", "x_y_z9"}) {
    EXPECT_EQ(responseFindingsAfter([&](Json& b) { b["logs"][0]["coaching_type"] = good; }), "")
        << good;
  }
  for (const char* bad : {"Failure", "2x", "", "_x", "fail-ure", "failure\n"}) {
    EXPECT_EQ(responseFindingsAfter([&](Json& b) { b["logs"][0]["coaching_type"] = bad; }),
              R"(string_pattern_mismatch ["logs",0,"coaching_type"])")
        << bad;
  }
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["logs"][0].erase("content"); }),
            R"(missing ["logs",0,"content"])");
}

TEST(SpecializedCoachingResponse, ProposalFields) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["proposals"][0].erase("extra_keys"); }),
            R"(missing ["proposals",0,"extra_keys"])");
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["proposals"][0]["extra_keys"] = "x"; }),
            R"(dict_type ["proposals",0,"extra_keys"])");
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["proposals"][0]["reinjection_point_id"] = 1; }),
            R"(string_type ["proposals",0,"reinjection_point_id"])");
}

TEST(SpecializedCoachingResponse, ReasonNullableString) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["reason"] = 1; }), R"(string_type ["reason"])");
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["reason"] = "because"; }), "");
}

TEST(SpecializedCoachingResponse, RequestIdMustMatchTheRequest) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["request_id"] = "c-13"; }, true),
            R"(value_error ["request_id"])");
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["request_id"] = "c-13"; }, false), "");
}

TEST(SpecializedCoachingResponse, ProposalsMustNameRequestPoints) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["proposals"][0]["reinjection_point_id"] = "p9"; },
                                  true),
            R"(value_error ["proposals",0,"reinjection_point_id"])");
}

TEST(SpecializedCoachingResponse, UnknownKeysRejected) {
  EXPECT_EQ(responseFindingsAfter([](Json& b) { b["duration"] = 1.5; }),
            R"(extra_forbidden ["duration"])");
}

}  // namespace
}  // namespace agentvcr::protocol::magma
