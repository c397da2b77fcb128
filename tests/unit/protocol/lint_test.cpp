// The lint rules of protocol/lint.hpp, one at a time, each with a passing and a failing case.

#include "agentvcr/protocol/lint.hpp"

#include <gtest/gtest.h>

namespace agentvcr::protocol::lint {
namespace {

Json benchInput() {
  return Json::parse(R"({"id":1,"instruction":{"type":"user","content":"press sw1"},
    "tools":[{"name":"cancel_current_action","description":"Cancel.","arguments":{}},
             {"name":"press_button","description":"Press a button.",
              "arguments":{"id":{"description":"Name of the button.","type":"str"}}}],
    "attributes":{"known_robots":["panda"]},"memory":{},"num_outputs":1,"extra_keys":{}})");
}

Json outputWith(const std::string& say, Json tool_calls) {
  return Json{{"request_id", "r"},
              {"source_id", 1},
              {"candidate_index", 0},
              {"status", "completed"},
              {"memory", Json::object()},
              {"internal_steps", Json::array()},
              {"output", {{"say", say}, {"tool_calls", std::move(tool_calls)}}},
              {"error", nullptr}};
}

Json call(const std::string& name, Json arguments, const std::string& robot = "panda") {
  return Json{{"name", name}, {"arguments", std::move(arguments)}, {"target_robot_name", robot}};
}

TEST(LintCandidate, AcceptsAValidCallAndAPlainSay) {
  EXPECT_TRUE(lintCandidate(benchInput(),
                            outputWith("", Json::array({call("press_button", {{"id", "sw1"}})})))
                  .empty());
  EXPECT_TRUE(lintCandidate(benchInput(), outputWith("Done.", Json::array())).empty());
}

TEST(LintCandidate, FlagsSayTogetherWithToolCalls) {
  auto findings =
      lintCandidate(benchInput(), outputWith("Sure", Json::array({call("press_button", {})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kSayWithToolCalls);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/say");
}

TEST(LintCandidate, FlagsAnUndeclaredTool) {
  auto findings = lintCandidate(
      benchInput(), outputWith("", Json::array({call("press_button", {}), call("fly", {})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUndeclaredTool);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/tool_calls/1/name");
}

TEST(LintCandidate, FlagsARobotNotInKnownRobotsOnlyWhenTheListExists) {
  Json output = outputWith("", Json::array({call("press_button", {}, "arm9")}));
  auto findings = lintCandidate(benchInput(), output);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUnknownRobot);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/tool_calls/0/target_robot_name");

  Json no_robots = benchInput();
  no_robots["attributes"] = Json::object();
  EXPECT_TRUE(lintCandidate(no_robots, output).empty());
}

TEST(LintCandidate, FlagsArgumentsTheToolDoesNotDeclare) {
  auto findings = lintCandidate(
      benchInput(),
      outputWith("", Json::array({call("press_button", {{"id", "a"}, {"force", 2}})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUnknownArgument);
  EXPECT_EQ(toJsonPointer(findings[0].path), "/output/tool_calls/0/arguments/force");
}

TEST(LintCandidate, ReadsParametersBeforeArgumentsAndJsonSchemaProperties) {
  Json input = benchInput();
  input["tools"] = Json::parse(R"([{"name":"move","parameters":{"type":"object",
      "properties":{"to":{"type":"string"}}},"arguments":{"other":{}}}])");
  EXPECT_TRUE(
      lintCandidate(input, outputWith("", Json::array({call("move", {{"to", "x"}})}))).empty());
  auto findings =
      lintCandidate(input, outputWith("", Json::array({call("move", {{"other", "x"}})})));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kUnknownArgument);
}

TEST(LintCandidate, IgnoresErrorCandidates) {
  Json output = outputWith("", Json::array());
  output["status"] = "error";
  output["output"] = nullptr;
  EXPECT_TRUE(lintCandidate(benchInput(), output).empty());
}

std::vector<std::string> rulesOf(const std::vector<LintFinding>& findings) {
  std::vector<std::string> rules;
  for (const auto& f : findings) {
    rules.push_back(f.rule + " " + toJsonPointer(f.path));
  }
  return rules;
}

TEST(LintA2a, AcceptsAWellFormedCall) {
  Json request = Json::parse(R"({"jsonrpc":"2.0","id":7,"method":"message/send","params":{}})");
  Json response = Json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"kind":"task"}})");
  EXPECT_TRUE(lintA2aRequest(request).empty());
  EXPECT_TRUE(lintA2aExchange(request, response).empty());
  Json error = Json::parse(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}})");
  EXPECT_TRUE(lintA2aExchange(request, error).empty());
}

TEST(LintA2a, FlagsRequestEnvelopeErrors) {
  EXPECT_EQ(rulesOf(lintA2aRequest(Json::parse(R"({"jsonrpc":"1.0","id":{},"method":3})"))),
            (std::vector<std::string>{"a2a_jsonrpc_version /jsonrpc", "a2a_method /method",
                                      "a2a_id /id"}));
  EXPECT_EQ(rulesOf(lintA2aRequest(Json::parse(R"([{"jsonrpc":"2.0","method":"a"},[]])"))),
            (std::vector<std::string>{"a2a_envelope /1"}));
}

TEST(LintA2a, FlagsResponseEnvelopeErrors) {
  EXPECT_EQ(rulesOf(lintA2aResponse(Json::parse(R"({"jsonrpc":"2.0","id":1,"result":1,
      "error":{"code":1}})"))),
            (std::vector<std::string>{"a2a_result_or_error "}));
  EXPECT_EQ(rulesOf(lintA2aResponse(Json::parse(R"({"jsonrpc":"2.0","id":[1]})"))),
            (std::vector<std::string>{"a2a_id /id", "a2a_result_or_error "}));
  EXPECT_EQ(rulesOf(lintA2aResponse(
                Json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":"-32600"}})"))),
            (std::vector<std::string>{"a2a_error_code /error/code"}));
  EXPECT_EQ(rulesOf(lintA2aResponse(Json::parse(R"({"jsonrpc":"2.0","result":{}})"))),
            (std::vector<std::string>{"a2a_id /id"}));
}

TEST(LintA2a, FlagsAResponseIdOfAnotherValueOrType) {
  Json request = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tasks/get"})");
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, Json::parse(R"({"jsonrpc":"2.0","id":"1","result":{}})"))),
      (std::vector<std::string>{"a2a_id_mismatch /id"}));
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, Json::parse(R"({"jsonrpc":"2.0","id":2,"result":{}})"))),
      (std::vector<std::string>{"a2a_id_mismatch /id"}));
  // null answers a request whose id could not be read: not a mismatch.
  EXPECT_TRUE(lintA2aExchange(request,
                              Json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})"))
                  .empty());
}

TEST(LintA2a, MatchesBatchResponsesByIdInAnyOrder) {
  Json request = Json::parse(R"([{"jsonrpc":"2.0","id":1,"method":"a"},
                                 {"jsonrpc":"2.0","id":"b","method":"b"}])");
  EXPECT_TRUE(lintA2aExchange(request, Json::parse(R"([{"jsonrpc":"2.0","id":"b","result":1},
                                                       {"jsonrpc":"2.0","id":1,"result":2}])"))
                  .empty());
  EXPECT_EQ(
      rulesOf(lintA2aExchange(request, Json::parse(R"([{"jsonrpc":"2.0","id":3,"result":1}])"))),
      (std::vector<std::string>{"a2a_id_mismatch /0/id"}));
}

}  // namespace
}  // namespace agentvcr::protocol::lint
