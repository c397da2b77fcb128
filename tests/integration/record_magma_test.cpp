// A scripted MAGMA agent on loopback, the recording proxy in front of it, BENCH-like and
// GEN-like traffic through it; then the archive is read back and checked.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "demo_recording.hpp"
#include "proxy_fixture.hpp"

namespace agentvcr::testing {
namespace {

using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const ordered_json kButtonTools = ordered_json::parse(R"([
  {"name": "cancel_current_action", "description": "Cancel the current action running on the targeted robot.", "arguments": {}},
  {"name": "press_button", "description": "Press a button.", "arguments": {"id": {"description": "Name of the button to press.", "type": "str"}}}])");
const ordered_json kButtonAttributes = ordered_json::parse(
    R"({"objects": ["sw0", "sw1", "sw2", "sw3", "sw4"], "known_robots": ["panda"], "robot_statuses": {"panda": "FREE"}})");
const ordered_json kSortTools = ordered_json::parse(R"([
  {"name": "cancel_current_action", "description": "Cancel the current action running on the targeted robot.", "arguments": {}},
  {"name": "get_objects_state", "description": "Return all known objects grouped by area.", "arguments": {}},
  {"name": "deplace", "description": "Move an object.", "arguments": {"object": {"description": "The object", "type": "str"}, "target_area": {"description": "The area", "type": "str"}}}])");
const ordered_json kSortAttributes = ordered_json::parse(
    R"({"zones": ["left_zone", "mutual_zone", "right_zone"], "objects": ["apple_0", "banana_1", "orange_2"], "known_robots": ["arm1", "arm2"], "robot_statuses": {"arm1": "FREE", "arm2": "FREE"}})");

ordered_json input(std::int64_t id, const std::string& type, const std::string& content,
                   const ordered_json& tools, const ordered_json& attributes,
                   const ordered_json& memory, std::int64_t num_outputs = 1) {
  return ordered_json{{"id", id},
                      {"instruction", {{"type", type}, {"content", content}}},
                      {"tools", tools},
                      {"attributes", attributes},
                      {"memory", memory},
                      {"num_outputs", num_outputs},
                      {"extra_keys", {{"inference_mode", true}}}};
}

/// A request body spelled as BENCH spells it (Python json.dumps: ", " and ": ", ASCII).
std::string benchBody(const std::string& request_id, const std::vector<ordered_json>& inputs) {
  return protocol::pythonJsonDumps(ordered_json{{"request_id", request_id}, {"inputs", inputs}},
                                   protocol::kPythonDefaultStyle);
}

/// Env feedback content exactly as BENCH builds it.
std::string envContent(const std::string& robot, const std::string& tool, bool succeeded,
                       const std::string& message, const ordered_json& arguments) {
  ordered_json payload;
  payload["infos"] =
      robot + ": " + tool + (succeeded ? " succeed" : " failed") + " with message: " + message;
  payload["previous_tool_call"] = {{robot, {{"name", tool}, {"arguments", arguments}}}};
  return protocol::pythonJsonDumps(payload, protocol::kPythonDefaultStyle);
}

class RecordMagmaTest : public ProxyTest {
 protected:
  void SetUp() override {
    startProxy(agent_.url(),
               [](proxy::RecordingProxyConfig& config) { config.probe_identity = true; });
  }

  /// POSTs through the proxy and directly to the agent; the caller must get the agent's bytes.
  net::ClientResponse postBoth(const std::string& body) {
    const protocol::Headers headers = {{"Content-Type", "application/json"},
                                       {"Authorization", "Bearer sk-live-secret-123"},
                                       {"X-Api-Key", "key-secret-456"}};
    auto through = client().send("POST", "/v1/responses", body, headers);
    net::HttpClient direct("127.0.0.1", agent_.port());
    auto expected = direct.send("POST", "/v1/responses", body, headers);
    EXPECT_EQ(through.status, expected.status);
    EXPECT_EQ(through.body, expected.body);
    EXPECT_EQ(through.header("Content-Type"), expected.header("Content-Type"));
    EXPECT_EQ(through.header("Content-Length"), expected.header("Content-Length"));
    return through;
  }

  ScriptedAgentServer agent_;
};

TEST_F(RecordMagmaTest, BenchEpisodeAndGenBatchLandInTheArchive) {
  // Start-up, as BENCH does it.
  auto health = client().get("/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ready"})");
  EXPECT_EQ(client().get("/v1/info").status, 200);

  // A1: user instruction -> tool call.
  const ordered_json start_memory = {{"history", ordered_json::array()}};
  auto a1 = postBoth(benchBody(
      "9c1e4f0a2b7d4c0e8f3a6b5d1e2c7f90",
      {input(0, "user", "Please press sw1", kButtonTools, kButtonAttributes, start_memory)}));
  ASSERT_EQ(a1.status, 200);
  auto a1_outputs = ordered_json::parse(a1.body);
  ASSERT_EQ(a1_outputs.size(), 1u);
  const auto& call = a1_outputs[0]["output"]["tool_calls"][0];
  EXPECT_EQ(call["name"], "press_button");
  EXPECT_EQ(call["target_robot_name"], "panda");

  // A2: env feedback of that call, memory echoed back -> say.
  auto a2 =
      postBoth(benchBody("4d7b0000000000000000000000000001",
                         {input(0, "env",
                                envContent("panda", "press_button", true,
                                           "You have the sw1 button pressed.", call["arguments"]),
                                kButtonTools, kButtonAttributes, a1_outputs[0]["memory"])}));
  ASSERT_EQ(a2.status, 200);
  auto a2_outputs = ordered_json::parse(a2.body);
  EXPECT_EQ(a2_outputs[0]["output"]["say"], "Done, sw1 is pressed.");

  // B1: GEN-like batch, two inputs, the first asking for two candidates.
  const ordered_json sort_memory = {{"memory_list", {"Only arm1 can inspect objects."}},
                                    {"history", ordered_json::array()}};
  auto b1 = postBoth(benchBody(
      "gen-0007",
      {input(41, "user", "Please move every damaged fruit to the mutual zone.", kSortTools,
             kSortAttributes, sort_memory, 2),
       input(3, "user", "Please press sw3", kButtonTools, kButtonAttributes, start_memory)}));
  ASSERT_EQ(b1.status, 200);
  auto b1_outputs = ordered_json::parse(b1.body);
  ASSERT_EQ(b1_outputs.size(), 3u);
  EXPECT_EQ(b1_outputs[0]["source_id"], 41);
  EXPECT_EQ(b1_outputs[1]["source_id"], 41);
  EXPECT_EQ(b1_outputs[2]["source_id"], 3);
  ASSERT_NE(b1_outputs[0]["memory"], b1_outputs[1]["memory"]);

  // B2: each branch continues with its own memory, in the opposite order.
  auto branch_call = [&](int k) { return b1_outputs[k]["output"]["tool_calls"][0]; };
  auto b2 = postBoth(benchBody(
      "gen-0008",
      {input(64, "env",
             envContent(branch_call(1)["target_robot_name"], branch_call(1)["name"], false,
                        "The area mutual_zone is out of range for robot arm1.",
                        branch_call(1)["arguments"]),
             kSortTools, kSortAttributes, b1_outputs[1]["memory"]),
       input(63, "env",
             envContent(branch_call(0)["target_robot_name"], branch_call(0)["name"], true,
                        "apple_0, banana_1 are in the right area. Damaged objects: banana_1.",
                        branch_call(0)["arguments"]),
             kSortTools, kSortAttributes, b1_outputs[0]["memory"])}));
  ASSERT_EQ(b2.status, 200);

  auto reader = archive();
  auto session = reader.session(proxy_->sessionId());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->agent_id, "agentvcr-scripted-demo");
  EXPECT_EQ(session->exchange_count, 6);  // health, info and four /v1/responses
  EXPECT_EQ(session->step_count, 6);
  EXPECT_EQ(session->candidate_count, 7);
  EXPECT_EQ(session->conversation_count, 3);

  // Every exchange holds the bytes that crossed, secrets redacted.
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 6u);
  EXPECT_EQ(exchanges[0].route, "health");
  EXPECT_EQ(exchanges[0].response_body, R"({"status":"ready"})");
  EXPECT_EQ(exchanges[2].response_body, a1.body);
  EXPECT_EQ(exchanges[5].response_body, b2.body);
  for (std::size_t i = 2; i < exchanges.size(); ++i) {
    EXPECT_EQ(exchanges[i].protocol, "magma");
    EXPECT_EQ(exchanges[i].request_valid, true);
    EXPECT_EQ(exchanges[i].response_valid, true);
    EXPECT_GT(exchanges[i].upstream_first_byte_ns.value_or(0), exchanges[i].started_ns);
    EXPECT_GE(exchanges[i].ended_ns.value_or(0), *exchanges[i].upstream_first_byte_ns);
    for (const auto& field : exchanges[i].request_headers) {
      if (field.name == "Authorization" || field.name == "X-Api-Key") {
        EXPECT_THAT(field.value, StartsWith("REDACTED-"));
      }
    }
  }

  // The BENCH episode is a chain: user step, then the env step as its child.
  auto conversations = reader.conversations(proxy_->sessionId());
  ASSERT_EQ(conversations.size(), 3u);
  EXPECT_EQ(conversations[0].title, "Please press sw1");
  auto chain = reader.steps(conversations[0].id);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_FALSE(chain[0].parent_candidate_id);
  auto chain_candidates = reader.candidates(chain[0].id);
  ASSERT_EQ(chain_candidates.size(), 1u);
  EXPECT_EQ(chain[1].parent_candidate_id, chain_candidates[0].id);
  EXPECT_EQ(chain[1].instruction_type, "env");
  EXPECT_EQ(chain[1].env_feedback["outcomes"][0]["robot"], "panda");
  EXPECT_EQ(chain[1].env_feedback["outcomes"][0]["succeeded"], true);
  EXPECT_EQ(reader.candidates(chain[1].id)[0].say, "Done, sw1 is pressed.");

  // The GEN input is a tree: each continuation hangs under the candidate whose memory it
  // carries, whatever the batch order.
  auto tree = reader.steps(conversations[1].id);
  ASSERT_EQ(tree.size(), 3u);
  EXPECT_EQ(tree[0].source_id, 41);
  auto roots = reader.candidates(tree[0].id);
  ASSERT_EQ(roots.size(), 2u);
  for (const auto& child : {tree[1], tree[2]}) {
    const auto expected_parent = child.source_id == 63 ? roots[0].id : roots[1].id;
    EXPECT_EQ(child.parent_candidate_id, expected_parent) << "input " << child.source_id;
    EXPECT_EQ(child.depth, 1);
  }
  EXPECT_EQ(reader.steps(conversations[2].id).size(), 1u);

  // One internal step row per entry, and the input rebuilds to what was sent.
  for (const auto& candidate : roots) {
    auto internal = reader.internalSteps(candidate.id);
    ASSERT_EQ(internal.size(), 1u);
    EXPECT_EQ(internal[0].component, "scripted");
    EXPECT_FALSE(internal[0].full_prompt.value_or("").empty());
    EXPECT_FALSE(internal[0].output_raw.value_or("").empty());
  }
  auto rebuilt = reader.inputJson(tree[0].id);
  ASSERT_TRUE(rebuilt);
  auto sent =
      protocol::Json::parse(input(41, "user", "Please move every damaged fruit to the mutual zone.",
                                  kSortTools, kSortAttributes, sort_memory, 2)
                                .dump());
  EXPECT_EQ(protocol::canonicalJson(*rebuilt), protocol::canonicalJson(sent));

  // No secret reaches the disk.
  auto bytes = archiveBytes();
  EXPECT_THAT(bytes, Not(HasSubstr("sk-live-secret-123")));
  EXPECT_THAT(bytes, Not(HasSubstr("key-secret-456")));
}

TEST_F(RecordMagmaTest, SessionKeepsTheAgentIdentityProbedAtStart) {
  auto reader = archive();
  auto session = reader.session(proxy_->sessionId());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->agent_health, R"({"status":"ready"})");
  EXPECT_THAT(session->agent_info.value_or(""), HasSubstr("\"protocol_version\":\"2.0\""));
  EXPECT_EQ(session->agent_version, "1.0.0");
  EXPECT_EQ(session->upstream, agent_.url());
  EXPECT_EQ(session->exchange_count, 0);
}

TEST_F(RecordMagmaTest, InvalidRequestIsRelayedAndFlagged) {
  auto response = postBoth(R"({"request_id": "", "inputs": [{"id": 7.0}]})");
  EXPECT_EQ(response.status, 422);
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].status, 422);
  EXPECT_EQ(exchanges[0].request_valid, false);
  EXPECT_THAT(exchanges[0].findings.value_or(""), HasSubstr("string_too_short"));
  EXPECT_EQ(archive().counts().steps, 0);
}

TEST_F(RecordMagmaTest, CoachingBackendHeadersNeverReachTheDisk) {
  const std::string body =
      R"({"backends": {"local": {"type": "ollama", "endpoint": "http://127.0.0.1:1/v1", )"
      R"("default_model": "m", "headers": {"Authorization": "Bearer coach-secret-789"}, )"
      R"("timeout": 60, "max_retry": 3}}, "provider": "llm", "endpoint": null, )"
      R"("connect_timeout": 10, "capture_logs": true})";
  auto response = client().send("PUT", "/v1/coaching/sessions/run-1", body,
                                {{"Content-Type", "application/json"}});
  EXPECT_EQ(response.status, 404);  // the scripted agent has no coaching: relayed as is
  auto exchanges = recordedExchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_TRUE(exchanges[0].request_body_redacted);
  EXPECT_THAT(exchanges[0].request_body, HasSubstr("REDACTED-"));
  EXPECT_THAT(archiveBytes(), Not(HasSubstr("coach-secret-789")));
}

}  // namespace
}  // namespace agentvcr::testing
