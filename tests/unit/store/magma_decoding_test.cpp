#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::canonicalJson;
using protocol::Json;
using testing::callOutput;
using testing::errorOutput;
using ::testing::HasSubstr;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::queryInt;
using testing::queryText;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

const char* kSuccessFeedback =
    R"({"infos": "panda: press_button succeed with message: You have the sw1 button pressed.", )"
    R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";
const char* kFailureFeedback =
    R"({"infos": "panda: press_button failed with message: No objects corresponding to id = sw9.", )"
    R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw9"}}}})";

class MagmaDecodingTest : public ::testing::Test {
 protected:
  void SetUp() override { recorder_ = std::make_unique<Recorder>(path_, testSession(), options_); }

  /// Records the exchanges, flushes, and opens a reader.
  ArchiveReader record(std::vector<protocol::Exchange> exchanges) {
    for (protocol::Exchange& ex : exchanges) {
      submit(*recorder_, std::move(ex));
    }
    recorder_->flush();
    return ArchiveReader(path_);
  }

  ExchangeRow onlyExchange(const ArchiveReader& reader) {
    std::vector<ExchangeRow> rows = reader.exchanges(recorder_->sessionId(), 0, 10);
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? ExchangeRow{} : *reader.exchange(rows[0].id);
  }

  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
  RecorderOptions options_ = testOptions();
  std::unique_ptr<Recorder> recorder_;
};

TEST_F(MagmaDecodingTest, AValidExchangeBecomesStepsAndCandidates) {
  Json in = input(7, "user", "Say hello.", Json::object());
  Json out = sayOutput("demo", 7, 0, memoryOf("m", 2), "Hello!");
  ArchiveReader reader = record({magmaExchange(request("demo", {in}), Json::array({out}))});

  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.protocol, "magma");
  EXPECT_EQ(ex.route, protocol::magma::routeName(protocol::magma::Route::Responses));
  EXPECT_EQ(ex.request_valid, std::optional<bool>(true));
  EXPECT_EQ(ex.response_valid, std::optional<bool>(true));
  EXPECT_FALSE(ex.findings.has_value());
  EXPECT_EQ(ex.magma_request_id.value_or(""), "demo");

  std::vector<StepRow> steps = reader.stepsOfExchange(ex.id);
  ASSERT_EQ(steps.size(), 1u);
  const StepRow& step = steps[0];
  EXPECT_EQ(step.position, 0);
  EXPECT_EQ(step.source_id, 7);
  EXPECT_EQ(step.instruction_type, "user");
  EXPECT_EQ(step.instruction_content, "Say hello.");
  EXPECT_TRUE(step.env_feedback.is_null());
  EXPECT_FALSE(step.env_failure.has_value());
  EXPECT_EQ(step.num_outputs, 1);
  EXPECT_EQ(step.replay_key, protocol::magma::replayKey(in));
  EXPECT_EQ(step.memory_hash, protocol::canonicalHash(Json::object()));
  EXPECT_EQ(step.tools_hash, protocol::canonicalHash(in["tools"]));
  EXPECT_EQ(step.candidate_count, 1);

  std::vector<CandidateRow> candidates = reader.candidates(step.id);
  ASSERT_EQ(candidates.size(), 1u);
  const CandidateRow& c = candidates[0];
  EXPECT_EQ(c.candidate_index, 0);
  EXPECT_EQ(c.status, "completed");
  EXPECT_EQ(c.say.value_or(""), "Hello!");
  EXPECT_EQ(c.decision_kind.value_or(""), "say");
  EXPECT_EQ(Json::parse(c.tool_calls.value_or("null")), Json::array());
  EXPECT_FALSE(c.error_code.has_value());
  EXPECT_EQ(c.memory_hash, protocol::canonicalHash(memoryOf("m", 2)));
  EXPECT_EQ(c.internal_step_count, 1);
  EXPECT_EQ(*reader.blob(c.memory_hash), canonicalJson(memoryOf("m", 2)));

  std::vector<StepRow> by_key = reader.stepsWithReplayKey(step.replay_key);
  ASSERT_EQ(by_key.size(), 1u);
  EXPECT_EQ(by_key[0].id, step.id);
}

TEST_F(MagmaDecodingTest, DecisionKindsAndErrorCandidates) {
  Json in = input(3, "user", "Press sw1", memoryOf("k", 0), 4);
  Json mixed = sayOutput("r", 3, 2, memoryOf("k", 3), "Pressing");
  mixed["output"]["tool_calls"] =
      callOutput("r", 3, 2, Json::object(), "sw1")["output"]["tool_calls"];
  Json empty = sayOutput("r", 3, 3, memoryOf("k", 4), "");
  Json response = Json::array({callOutput("r", 3, 0, memoryOf("k", 1), "sw1"),
                               errorOutput("r", 3, 1, memoryOf("k", 0)), mixed, empty});
  ArchiveReader reader = record({magmaExchange(request("r", {in}), response)});

  std::vector<StepRow> steps = reader.stepsOfExchange(onlyExchange(reader).id);
  ASSERT_EQ(steps.size(), 1u);
  std::vector<CandidateRow> c = reader.candidates(steps[0].id);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].decision_kind.value_or(""), "tool_calls");
  EXPECT_EQ(Json::parse(*c[0].tool_calls)[0]["arguments"]["id"], "sw1");
  EXPECT_EQ(c[1].status, "error");
  EXPECT_FALSE(c[1].decision_kind.has_value());
  EXPECT_FALSE(c[1].say.has_value());
  EXPECT_EQ(c[1].error_code.value_or(""), "invalid_output");
  EXPECT_EQ(c[1].error_message.value_or(""), "Model parser rejected its raw response");
  EXPECT_EQ(c[1].error_component.value_or(""), "commander");
  EXPECT_EQ(c[2].decision_kind.value_or(""), "mixed");
  EXPECT_EQ(c[3].decision_kind.value_or(""), "empty");

  std::optional<ConversationRow> conv = reader.conversation(steps[0].conversation_id);
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->candidate_count, 4);
  EXPECT_EQ(conv->error_candidates, 1);
  EXPECT_EQ(conv->ended_in.value_or(""), "empty");  // the last candidate recorded
  EXPECT_EQ(reader.session(recorder_->sessionId())->error_candidate_count, 1);
}

TEST_F(MagmaDecodingTest, EnvFeedbackIsDecoded) {
  Json ok = input(0, "env", kSuccessFeedback, memoryOf("e", 2));
  Json failed = input(1, "env", kFailureFeedback, memoryOf("f", 2));
  Json raw = input(2, "env", "not a json payload", memoryOf("g", 2));
  Json response = Json::array({sayOutput("r", 0, 0, memoryOf("e", 4), "Done"),
                               callOutput("r", 1, 0, memoryOf("f", 4), "sw1"),
                               sayOutput("r", 2, 0, memoryOf("g", 4), "?")});
  ArchiveReader reader = record({magmaExchange(request("r", {ok, failed, raw}), response)});

  std::vector<StepRow> steps = reader.stepsOfExchange(onlyExchange(reader).id);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].instruction_type, "env");
  EXPECT_EQ(steps[0].env_failure, std::optional<bool>(false));
  ASSERT_TRUE(steps[0].env_feedback.is_object());
  ASSERT_EQ(steps[0].env_feedback["outcomes"].size(), 1u);
  EXPECT_EQ(steps[0].env_feedback["outcomes"][0]["robot"], "panda");
  EXPECT_EQ(steps[0].env_feedback["outcomes"][0]["tool"], "press_button");
  EXPECT_EQ(steps[0].env_feedback["outcomes"][0]["succeeded"], true);
  EXPECT_EQ(steps[1].env_failure, std::optional<bool>(true));
  EXPECT_EQ(steps[1].env_feedback["outcomes"][0]["succeeded"], false);
  EXPECT_TRUE(steps[2].env_feedback.is_object());  // decoded defensively, never fails

  std::optional<ConversationRow> conv = reader.conversation(steps[1].conversation_id);
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->env_failures, 1);

  // Only the failed one, decoded as steps() decodes it.
  std::vector<StepRow> failures = reader.envFailureSteps(recorder_->sessionId());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].id, steps[1].id);
  EXPECT_EQ(failures[0].env_feedback, steps[1].env_feedback);
  EXPECT_TRUE(reader.envFailureSteps(recorder_->sessionId() + 1).empty());
}

TEST_F(MagmaDecodingTest, InternalStepsAreStoredOneRowPerEntry) {
  Json entry0 = testing::internalStep("<tool_call>x</tool_call>");
  entry0["usage"] = {{"prompt_tokens", 812}, {"completion_tokens", 17}};
  Json entry1 = {{"id", 5},                    // not a string: stays in the body only
                 {"component", "summarizer"},  // a string
                 {"full_prompt", Json::array({"odd"})},
                 {"output_raw", "summary text"}};
  Json out = sayOutput("r", 1, 0, memoryOf("i", 2), "ok");
  out["internal_steps"] = Json::array({entry0, entry1});
  ArchiveReader reader = record(
      {magmaExchange(request("r", {input(1, "user", "hi", Json::object())}), Json::array({out}))});

  std::vector<StepRow> steps = reader.stepsOfExchange(onlyExchange(reader).id);
  ASSERT_EQ(steps.size(), 1u);
  std::vector<CandidateRow> candidates = reader.candidates(steps[0].id);
  ASSERT_EQ(candidates.size(), 1u);
  std::vector<InternalStepRow> rows = reader.internalSteps(candidates[0].id);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].position, 0);
  EXPECT_EQ(rows[0].step_key.value_or(""), "step-0");
  EXPECT_EQ(rows[0].component.value_or(""), "commander");
  EXPECT_EQ(rows[0].origin.value_or(""), "model");
  EXPECT_EQ(rows[0].full_prompt.value_or(""), "user: prompt\nassistant:");
  EXPECT_EQ(rows[0].output_raw.value_or(""), "<tool_call>x</tool_call>");
  EXPECT_EQ(rows[0].body, canonicalJson(entry0));
  EXPECT_FALSE(rows[1].step_key.has_value());
  EXPECT_EQ(rows[1].component.value_or(""), "summarizer");
  EXPECT_FALSE(rows[1].full_prompt.has_value());
  EXPECT_EQ(rows[1].output_raw.value_or(""), "summary text");
  EXPECT_EQ(rows[1].body, canonicalJson(entry1));

  // The prompt is not copied: the row keeps where the response body holds it, and the search
  // indexes it whole (it continues no earlier prompt). The SQL view rebuilds the rest.
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM internal_steps WHERE rest LIKE '%prompt\\n%'"),
            0);
  EXPECT_EQ(queryText(path_,
                      "SELECT coalesce(full_prompt, 'none') FROM internal_steps WHERE "
                      "position = 0"),
            "none");
  const std::string response = onlyExchange(reader).response_body;
  EXPECT_EQ(
      response.substr(static_cast<std::size_t>(queryInt(
                          path_, "SELECT full_prompt_at FROM internal_steps WHERE position = 0")),
                      std::string(R"("user: prompt\nassistant:")").size()),
      R"("user: prompt\nassistant:")");
  EXPECT_EQ(queryText(path_, "SELECT prompt_new FROM internal_steps WHERE position = 0"),
            "user: prompt\nassistant:");
  Json without_prompt = entry0;
  without_prompt.erase("full_prompt");
  EXPECT_EQ(
      Json::parse(queryText(path_, "SELECT body FROM internal_steps_full WHERE position = 0")),
      without_prompt);
  EXPECT_EQ(reader.session(recorder_->sessionId())->internal_step_count, 2);
}

TEST_F(MagmaDecodingTest, MalformedRequestIsStoredAndFlagged) {
  const std::string body = "{\"request_id\": \"x\", \"inputs\": [";
  ArchiveReader reader =
      record({httpExchange("POST", "/v1/responses", body, 422, R"({"detail":"bad"})")});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.request_body, body);
  EXPECT_EQ(ex.request_valid, std::optional<bool>(false));
  EXPECT_FALSE(ex.response_valid.has_value());  // a 422 is not an AgentResponse
  ASSERT_TRUE(ex.findings.has_value());
  Json findings = Json::parse(*ex.findings);
  ASSERT_GE(findings.size(), 1u);
  EXPECT_EQ(findings[0]["side"], "request");
  EXPECT_EQ(findings[0]["type"], "json_invalid");
  EXPECT_TRUE(reader.stepsOfExchange(ex.id).empty());
  EXPECT_FALSE(ex.magma_request_id.has_value());
  EXPECT_EQ(reader.session(recorder_->sessionId())->invalid_exchange_count, 1);
}

TEST_F(MagmaDecodingTest, NonJsonAndBinaryBodiesAreStoredVerbatim) {
  std::string binary("\x00\xff\xfe{\"a\":", 7);
  ArchiveReader reader = record({httpExchange("POST", "/v1/responses", binary, 200, binary)});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.request_body, binary);
  EXPECT_EQ(ex.response_body, binary);
  EXPECT_EQ(ex.request_valid, std::optional<bool>(false));
  EXPECT_EQ(ex.response_valid, std::optional<bool>(false));
}

TEST_F(MagmaDecodingTest, InvalidRequestShapeIsFlaggedWithFindings) {
  Json bad = request("r", {input(1, "user", "hi", Json::object())});
  bad["inputs"][0]["num_outputs"] = "2";  // strict int
  bad["inputs"][0]["surprise"] = true;    // extra key
  ArchiveReader reader = record({magmaExchange(bad, Json::array())});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.request_valid, std::optional<bool>(false));
  ASSERT_TRUE(ex.findings.has_value());
  Json findings = Json::parse(*ex.findings);
  std::set<std::string> types;
  for (const Json& f : findings) {
    EXPECT_EQ(f["side"], "request");
    EXPECT_TRUE(f["loc"].is_array());
    EXPECT_TRUE(f["msg"].is_string());
    types.insert(f["type"].get<std::string>());
  }
  EXPECT_TRUE(types.count("extra_forbidden") == 1) << *ex.findings;
  EXPECT_TRUE(reader.stepsOfExchange(ex.id).empty());
}

TEST_F(MagmaDecodingTest, MalformedResponseKeepsStepsButNoCandidates) {
  Json req = request("r", {input(1, "user", "hi", Json::object())});
  ArchiveReader reader =
      record({httpExchange("POST", "/v1/responses", req.dump(), 200, "[{\"request_id\":")});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.request_valid, std::optional<bool>(true));
  EXPECT_EQ(ex.response_valid, std::optional<bool>(false));
  Json findings = Json::parse(ex.findings.value_or("[]"));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0]["side"], "response");
  std::vector<StepRow> steps = reader.stepsOfExchange(ex.id);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(reader.candidates(steps[0].id).empty());
}

TEST_F(MagmaDecodingTest, ResponseInTheWrongOrderIsFlaggedWithoutCandidates) {
  Json req = request(
      "r", {input(7, "user", "a", memoryOf("a", 0)), input(3, "user", "b", memoryOf("b", 0))});
  Json response = Json::array(
      {sayOutput("r", 3, 0, memoryOf("b", 2), "B"), sayOutput("r", 7, 0, memoryOf("a", 2), "A")});
  ArchiveReader reader = record({magmaExchange(req, response)});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.request_valid, std::optional<bool>(true));
  EXPECT_EQ(ex.response_valid, std::optional<bool>(false));
  EXPECT_THAT(ex.findings.value_or(""), HasSubstr("\"side\":\"response\""));
  std::vector<StepRow> steps = reader.stepsOfExchange(ex.id);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].source_id, 7);
  EXPECT_EQ(steps[1].source_id, 3);
  EXPECT_TRUE(reader.candidates(steps[0].id).empty());
  EXPECT_TRUE(reader.candidates(steps[1].id).empty());
}

TEST_F(MagmaDecodingTest, A422ResponseHasStepsAndNoCandidates) {
  Json req = request("r", {input(1, "user", "hi", Json::object())});
  ArchiveReader reader = record({httpExchange(
      "POST", "/v1/responses", req.dump(), 422,
      R"({"detail":[{"type":"missing","loc":["body","x"],"msg":"Field required"}]})")});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.status, 422);
  EXPECT_FALSE(ex.response_valid.has_value());
  std::vector<StepRow> steps = reader.stepsOfExchange(ex.id);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(reader.candidates(steps[0].id).empty());
  EXPECT_EQ(reader.session(recorder_->sessionId())->failed_exchange_count, 1);
  EXPECT_EQ(reader.session(recorder_->sessionId())->candidate_count, 0);
}

TEST_F(MagmaDecodingTest, NonMagmaPathsAreRecordedAsHttp) {
  ArchiveReader reader = record({httpExchange("GET", "/metrics", "", 200, "up 1")});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.protocol, "http");
  EXPECT_EQ(ex.route, protocol::magma::routeName(protocol::magma::Route::None));
  EXPECT_FALSE(ex.request_valid.has_value());
  EXPECT_FALSE(ex.response_valid.has_value());
  EXPECT_FALSE(ex.findings.has_value());
  EXPECT_TRUE(reader.stepsOfExchange(ex.id).empty());
}

TEST_F(MagmaDecodingTest, HealthAndInfoResponsesAreValidated) {
  ArchiveReader reader = record({httpExchange("GET", "/health", "", 200, R"({"status":"ready"})"),
                                 httpExchange("GET", "/v1/info", "", 200, R"({"agent_id":"x"})")});
  std::vector<ExchangeRow> rows = reader.exchanges(recorder_->sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].protocol, "magma");
  EXPECT_EQ(rows[0].response_valid, std::optional<bool>(true));
  EXPECT_FALSE(rows[0].request_valid.has_value());
  EXPECT_EQ(rows[1].response_valid, std::optional<bool>(false));
  EXPECT_TRUE(rows[1].findings.has_value());
}

TEST_F(MagmaDecodingTest, BodiesOverTheDecodeLimitAreStoredUndecoded) {
  recorder_.reset();
  options_.max_decode_bytes = 64;
  recorder_ = std::make_unique<Recorder>(path_, testSession(), options_);
  Json req = request("r", {input(1, "user", "hi", Json::object())});
  ArchiveReader reader = record({magmaExchange(req, Json::array())});
  ExchangeRow ex = onlyExchange(reader);
  EXPECT_EQ(ex.request_body, req.dump());
  EXPECT_FALSE(ex.request_valid.has_value());  // not judged
  EXPECT_THAT(ex.findings.value_or(""), HasSubstr("too_large"));
  EXPECT_TRUE(reader.stepsOfExchange(ex.id).empty());
}

TEST_F(MagmaDecodingTest, RepeatedJsonIsStoredOnceAsABlob) {
  const Json memory = memoryOf("shared", 3);
  std::vector<protocol::Exchange> exchanges;
  std::set<std::string> distinct;
  for (int i = 0; i < 3; ++i) {
    const std::string rid = "r" + std::to_string(i);
    Json in = input(i, "user", "same memory " + std::to_string(i), memory);
    Json out = sayOutput(rid, i, 0, memory, "ok");  // returns it unchanged, too
    for (const char* key : {"tools", "attributes", "memory", "extra_keys"}) {
      distinct.insert(canonicalJson(in[key]));
    }
    exchanges.push_back(magmaExchange(request(rid, {in}), Json::array({out})));
  }
  ArchiveReader reader = record(std::move(exchanges));
  EXPECT_EQ(reader.counts().steps, 3);
  EXPECT_EQ(reader.counts().blobs, static_cast<std::int64_t>(distinct.size()));
  EXPECT_EQ(queryInt(path_,
                     "SELECT count(*) FROM blobs WHERE hash = (SELECT memory_hash FROM "
                     "steps LIMIT 1)"),
            1);
  EXPECT_EQ(queryInt(path_, "SELECT count(DISTINCT memory_hash) FROM steps"), 1);
}

TEST_F(MagmaDecodingTest, InputJsonRebuildsTheRecordedInput) {
  Json memory = Json::parse(
      R"({"history":[{"author":"USER","content":"caf\u00e9 \ud83e\udd16"}],
          "n":12345678901234567,"f":0.1,"neg":-2.5e-8,"nested":{"b":[1,{"c":null}],"a":true}})");
  Json in0 = input(41, "user", "Please move every damaged fruit.\nNow.", memory, 2);
  in0["extra_keys"] = {{"inference_mode", false},
                       {"coaching", {{"kind", "replace_say"}, {"text", "hi"}}}};
  Json in1 = input(-3, "env", kSuccessFeedback, Json::object());
  in1["tools"] = Json::array();
  in1["attributes"] = Json::object();
  Json response = Json::array({sayOutput("g", 41, 0, memoryOf("x", 1), "a"),
                               sayOutput("g", 41, 1, memoryOf("x", 2), "b"),
                               callOutput("g", -3, 0, memoryOf("y", 1), "sw2")});
  ArchiveReader reader = record({magmaExchange(request("g", {in0, in1}), response)});

  std::vector<StepRow> steps = reader.stepsOfExchange(onlyExchange(reader).id);
  ASSERT_EQ(steps.size(), 2u);
  const Json originals[] = {in0, in1};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::optional<Json> rebuilt = reader.inputJson(steps[i].id);
    ASSERT_TRUE(rebuilt.has_value());
    EXPECT_EQ(canonicalJson(*rebuilt), canonicalJson(originals[i]));
    EXPECT_EQ(protocol::magma::replayKey(*rebuilt), steps[i].replay_key);
    // The SQL view rebuilds the same object for sqlite3/pandas users.
    Json from_view = Json::parse(queryText(
        path_, "SELECT input FROM step_inputs WHERE step_id = " + std::to_string(steps[i].id)));
    EXPECT_EQ(canonicalJson(from_view), canonicalJson(originals[i]));
  }

  // And every candidate rebuilds to its recorded output.
  std::vector<Json> outputs;
  for (const StepRow& step : steps) {
    for (const CandidateRow& c : reader.candidates(step.id)) {
      outputs.push_back(*reader.outputJson(c.id));
    }
  }
  ASSERT_EQ(outputs.size(), response.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(canonicalJson(outputs[i]), canonicalJson(response[i]));
  }
  EXPECT_FALSE(reader.inputJson(987654).has_value());
  EXPECT_FALSE(reader.outputJson(987654).has_value());
}

TEST_F(MagmaDecodingTest, ErrorCandidateOutputRebuilds) {
  Json in = input(0, "user", "x", memoryOf("z", 1));
  Json out = errorOutput("r", 0, 0, memoryOf("z", 1));
  out["error"]["component"] = nullptr;
  ArchiveReader reader = record({magmaExchange(request("r", {in}), Json::array({out}))});
  std::vector<StepRow> steps = reader.stepsOfExchange(onlyExchange(reader).id);
  ASSERT_EQ(steps.size(), 1u);
  std::vector<CandidateRow> c = reader.candidates(steps[0].id);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].error_component.has_value());
  EXPECT_EQ(canonicalJson(*reader.outputJson(c[0].id)), canonicalJson(out));
}

}  // namespace
}  // namespace agentvcr::store
