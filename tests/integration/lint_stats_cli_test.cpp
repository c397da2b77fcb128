// `agentvcr lint` and `agentvcr stats` over archives recorded in the test: one seeded
// violation of each kind, found at its exchange and JSON path; a clean archive passes.

#include <sstream>

#include <gtest/gtest.h>

#include "../unit/store/store_test_support.hpp"
#include "agentvcr/cli/lint_command.hpp"
#include "agentvcr/cli/stats_command.hpp"

namespace agentvcr::cli {
namespace {

using namespace store::testing;  // NOLINT: the MAGMA exchange builders

Json callWith(const std::string& name, Json arguments, const std::string& robot) {
  return Json{{"name", name}, {"arguments", std::move(arguments)}, {"target_robot_name", robot}};
}

/// A valid one-input exchange whose single candidate carries `decision`.
protocol::Exchange decisionExchange(const std::string& id, const std::string& say, Json call) {
  Json out = callOutput(id, 1, 0, memoryOf(id, 1), "sw1");
  out["output"] = {{"say", say}, {"tool_calls", Json::array({std::move(call)})}};
  return magmaExchange(request(id, {input(1, "user", "go", memoryOf(id, 0))}), Json::array({out}));
}

protocol::Exchange a2aExchange(const std::string& request, const std::string& response) {
  return httpExchange("POST", "/api/v1/a2a", request, 200, response);
}

struct Seeded {
  std::string rule;
  std::int64_t exchange_id;
  std::string side;
  std::string path;
};

class LintStatsCliTest : public ::testing::Test {
 protected:
  void record(std::vector<protocol::Exchange> exchanges) {
    store::Recorder recorder(path_, testSession(), testOptions());
    for (auto& ex : exchanges) {
      submit(recorder, std::move(ex));
    }
    recorder.flush();
  }

  Json lintJson(int& status) {
    std::ostringstream out;
    status = runLint({path_, {}, "json"}, out);
    return Json::parse(out.str());
  }

  TempDir dir_;
  std::string path_ = dir_.file("lint.sqlite");
};

TEST_F(LintStatsCliTest, FindsEachSeededViolationAtItsExchangeAndPath) {
  Json extra_key = request("r2", {input(1, "user", "go", memoryOf("r2", 0))});
  extra_key["inputs"][0]["bogus"] = 1;
  Json order_request = request("r3", {input(1, "user", "go", memoryOf("r3", 0))});
  record({
      httpExchange("POST", "/v1/responses", "{not json", 422, "{}"),  // 1
      magmaExchange(extra_key, Json::array()),                        // 2
      magmaExchange(order_request,
                    Json::array({sayOutput("r3", 1, 1, memoryOf("r3", 1), "hi")})),  // 3
      httpExchange("POST", "/v1/responses",
                   request("r4", {input(1, "user", "go", memoryOf("r4", 0))}).dump(), 200,
                   R"([{"request_id":"r4","source_id":1,"candidate_index":0,"status":"completed",
                       "memory":{"x":NaN},"internal_steps":[],"output":{"say":"a","tool_calls":[]},
                       "error":null}])"),  // 4
      decisionExchange("r5", "also talking", callWith("press_button", {{"id", "sw1"}}, "panda")),
      decisionExchange("r6", "", callWith("fly", Json::object(), "panda")),
      decisionExchange("r7", "", callWith("press_button", {{"id", "sw1"}}, "arm9")),
      decisionExchange("r8", "", callWith("press_button", {{"id", "sw1"}, {"force", 1}}, "panda")),
      a2aExchange(R"({"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}})",
                  R"({"jsonrpc":"2.0","id":"1","error":{"code":"oops","message":"no"}})"),  // 9
  });
  int status = -1;
  Json report = lintJson(status);
  EXPECT_EQ(status, kExitFailure);

  const std::vector<Seeded> seeded = {
      {"json_invalid", 1, "request", ""},
      {"extra_forbidden", 2, "request", "/inputs/0/bogus"},
      {"candidate_order", 3, "response", "/0"},
      {"say_with_tool_calls", 5, "response", "/0/output/say"},
      {"undeclared_tool", 6, "response", "/0/output/tool_calls/0/name"},
      {"unknown_robot", 7, "response", "/0/output/tool_calls/0/target_robot_name"},
      {"unknown_argument", 8, "response", "/0/output/tool_calls/0/arguments/force"},
      {"a2a_id_mismatch", 9, "response", "/id"},
      {"a2a_error_code", 9, "response", "/error/code"},
  };
  for (const Seeded& want : seeded) {
    bool found = false;
    for (const Json& v : report["violations"]) {
      found = found || (v["rule"] == want.rule && v["exchange_id"] == want.exchange_id &&
                        v["side"] == want.side && v["path"] == want.path);
    }
    EXPECT_TRUE(found) << want.rule << " at exchange " << want.exchange_id << " " << want.path
                       << "\n"
                       << report.dump(2);
  }
  // The non-finite number is refused where the response is read, whatever the finding's type.
  bool non_finite = false;
  for (const Json& v : report["violations"]) {
    non_finite = non_finite || (v["exchange_id"] == 4 && v["side"] == "response");
  }
  EXPECT_TRUE(non_finite) << report.dump(2);

  std::ostringstream text;
  EXPECT_EQ(runLint({path_, {}, "text"}, text), kExitFailure);
  EXPECT_NE(text.str().find("exchange 7 response /0/output/tool_calls/0/target_robot_name: "
                            "unknown_robot:"),
            std::string::npos)
      << text.str();
}

TEST_F(LintStatsCliTest, CleanArchivePassesWithExitZero) {
  record({
      magmaExchange(request("c1", {input(1, "user", "hello", memoryOf("c1", 0))}),
                    Json::array({sayOutput("c1", 1, 0, memoryOf("c1", 1), "Hello!")})),
      magmaExchange(request("c2", {input(1, "user", "press", memoryOf("c2", 0))}),
                    Json::array({callOutput("c2", 1, 0, memoryOf("c2", 1), "sw1")})),
      a2aExchange(R"({"jsonrpc":"2.0","id":"a","method":"tasks/get","params":{"id":"t"}})",
                  R"({"jsonrpc":"2.0","id":"a","error":{"code":-32001,"message":"gone"}})"),
  });
  int status = -1;
  Json report = lintJson(status);
  EXPECT_EQ(status, kExitOk);
  EXPECT_EQ(report["count"], 0) << report.dump(2);
  std::ostringstream text;
  EXPECT_EQ(runLint({path_, {}, "text"}, text), kExitOk);
  EXPECT_EQ(text.str(), "0 violations\n");
}

TEST_F(LintStatsCliTest, ChecksV10ShapesByMethodNameAndA2aVersionHeader) {
  protocol::Exchange v03_name =
      a2aExchange(R"({"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}})",
                  R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}})");
  v03_name.request_headers.push_back({"A2A-Version", "1.0"});
  record({
      v03_name,  // 1
      a2aExchange(R"({"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{
                      "messageId":"m1","role":"user","parts":[{"text":"hi"}]}}})",
                  R"({"jsonrpc":"2.0","id":2,"result":{"kind":"task","id":"t1",
                      "status":{"state":"TASK_STATE_COMPLETED"}}})"),  // 2
      a2aExchange(R"({"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{
                      "messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"}]}}})",
                  R"({"jsonrpc":"2.0","id":3,"result":{"task":{"id":"t2","contextId":"c",
                      "status":{"state":"TASK_STATE_COMPLETED"}}}})"),  // 3
  });
  int status = -1;
  Json report = lintJson(status);
  EXPECT_EQ(status, kExitFailure);
  std::vector<std::string> found;
  for (const Json& v : report["violations"]) {
    found.push_back(std::to_string(v["exchange_id"].get<std::int64_t>()) + " " +
                    v["side"].get<std::string>() + " " + v["path"].get<std::string>() + " " +
                    v["rule"].get<std::string>());
  }
  EXPECT_EQ(found,
            (std::vector<std::string>{
                "1 request /method a2a_v1_method", "2 request /params/message/role a2a_v1_role",
                "2 response /result a2a_v1_result", "2 response /result/kind a2a_v1_kind"}))
      << report.dump(2);

  std::ostringstream text;
  EXPECT_EQ(runLint({path_, {}, "text"}, text), kExitFailure);
  EXPECT_NE(text.str().find("exchange 2 request /params/message/role: a2a_v1_role: role \"user\" "
                            "is the v0.3 spelling; v1.0 writes \"ROLE_USER\""),
            std::string::npos)
      << text.str();
}

TEST_F(LintStatsCliTest, ChecksEachEventOfAV10Stream) {
  const std::string good =
      R"(data: {"jsonrpc":"2.0","id":4,"result":{"statusUpdate":{"taskId":"t","contextId":"c",)"
      R"("status":{"state":"TASK_STATE_WORKING"}}}})"
      "\n\n";
  const std::string bad =
      R"(data: {"jsonrpc":"2.0","id":4,"result":{"statusUpdate":{"taskId":"t","contextId":"c",)"
      R"("status":{"state":"completed"}}}})"
      "\n\n";
  const std::string wrong_id =
      R"(data: {"jsonrpc":"2.0","id":5,"result":{"statusUpdate":{"taskId":"t","contextId":"c",)"
      R"("status":{"state":"TASK_STATE_COMPLETED"}}}})"
      "\n\n";
  protocol::Exchange stream = a2aExchange(
      R"({"jsonrpc":"2.0","id":4,"method":"SendStreamingMessage","params":{"message":{
          "messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}})",
      good + bad + wrong_id);
  stream.response_headers = {{"Content-Type", "text/event-stream"}};
  record({stream});
  int status = -1;
  Json report = lintJson(status);
  EXPECT_EQ(status, kExitFailure);
  std::vector<std::string> found;
  for (const Json& v : report["violations"]) {
    found.push_back(v["side"].get<std::string>() + " " + v["path"].get<std::string>() + " " +
                    v["rule"].get<std::string>());
  }
  EXPECT_EQ(found, (std::vector<std::string>{
                       "response /events/1/result/statusUpdate/status/state a2a_v1_task_state",
                       "response /events/2/id a2a_id_mismatch"}))
      << report.dump(2);
}

TEST_F(LintStatsCliTest, StatsReportsEachSessionAsTablesOrJson) {
  record({magmaExchange(request("s1", {input(1, "user", "press", memoryOf("s1", 0))}),
                        Json::array({callOutput("s1", 1, 0, memoryOf("s1", 1), "sw1")}))});
  std::ostringstream json_out;
  EXPECT_EQ(runStats({path_, {}, "json"}, json_out), kExitOk);
  Json stats = Json::parse(json_out.str());
  ASSERT_EQ(stats["sessions"].size(), 1u);
  EXPECT_EQ(stats["sessions"][0]["exchanges"], 1);
  EXPECT_EQ(stats["sessions"][0]["tools_by_robot"]["panda"]["press_button"], 1);
  EXPECT_EQ(stats["sessions"][0]["http_statuses"]["200"], 1);

  std::ostringstream text;
  EXPECT_EQ(runStats({path_, {}, "text"}, text), kExitOk);
  EXPECT_NE(text.str().find("tools used by panda"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("p50"), std::string::npos) << text.str();
  // The bodies' bytes on the wire, as stored, and the whole archive against them.
  const auto on_wire = stats["sessions"][0]["body_bytes"]["on_wire"].get<std::int64_t>();
  EXPECT_GT(on_wire, 0);
  EXPECT_EQ(stats["body_bytes_on_wire"], on_wire);
  EXPECT_NE(text.str().find("on the wire  " + std::to_string(on_wire)), std::string::npos)
      << text.str();
  EXPECT_NE(
      text.str().find("archive: " + std::to_string(stats["archive_bytes"].get<std::int64_t>()) +
                      " bytes for " + std::to_string(on_wire) + " bytes of bodies on the wire ("),
      std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace agentvcr::cli
