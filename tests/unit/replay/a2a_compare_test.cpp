#include "agentvcr/replay/a2a_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/replay/agent_agreement.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;
using ::testing::ElementsAre;

/// A live answer as the recorder and the evaluator decode it, from its bytes.
A2aReply liveReply(const std::string& response_body, const std::string& a2a_version = "") {
  const std::string request =
      R"({"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message",)"
      R"("role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}})";
  protocol::a2a::CallExchange exchange;
  exchange.http_method = "POST";
  exchange.target = "/a2a";
  exchange.a2a_version_header = a2a_version;
  exchange.request_body = request;
  exchange.response_body = response_body;
  exchange.http_status = 200;
  const auto calls = protocol::a2a::decodeCalls(exchange);
  return calls.empty() ? A2aReply{} : a2aReplyOf(calls.front());
}

std::string task(const std::string& task_id, const std::string& context, const std::string& state,
                 const std::string& text) {
  return Json{
      {"jsonrpc", "2.0"},
      {"id", 7},
      {"result",
       {{"kind", "task"},
        {"id", task_id},
        {"contextId", context},
        {"status", {{"state", state}, {"timestamp", task_id + "-time"}}},
        {"artifacts",
         {{{"artifactId", "a-" + task_id}, {"parts", {{{"kind", "text"}, {"text", text}}}}}}}}}}
      .dump();
}

TEST(A2aCompareTest, IdsAndTimestampsAreNotCompared) {
  const auto comparison = compareA2aReplies(liveReply(task("t1", "c1", "completed", "Grace.")),
                                            liveReply(task("t9", "c9", "completed", "Grace.")));
  EXPECT_TRUE(comparison.match());
  EXPECT_FALSE(comparison.text_normalised);
}

TEST(A2aCompareTest, TheTaskStateIsComparedAcrossBothWires) {
  const std::string v10 = R"({"jsonrpc":"2.0","id":7,"result":{"task":{"id":"t","contextId":"c",)"
                          R"("status":{"state":"TASK_STATE_COMPLETED"},)"
                          R"("artifacts":[{"artifactId":"a","parts":[{"text":"Grace."}]}]}}})";
  EXPECT_TRUE(
      compareA2aReplies(liveReply(task("t", "c", "completed", "Grace.")), liveReply(v10, "1.0"))
          .match());
  const auto failed = compareA2aReplies(liveReply(task("t", "c", "completed", "Grace.")),
                                        liveReply(task("t", "c", "failed", "Grace.")));
  EXPECT_THAT(failed.differences, ElementsAre("state \"completed\" vs \"failed\""));
}

TEST(A2aCompareTest, TextMatchesEqualOrNormalisedAndOtherwiseNamesBothSides) {
  const auto normalised = compareA2aReplies(liveReply(task("t", "c", "completed", "Grace  is")),
                                            liveReply(task("t", "c", "completed", " grace is ")));
  EXPECT_TRUE(normalised.match());
  EXPECT_TRUE(normalised.text_normalised);
  const auto changed = compareA2aReplies(liveReply(task("t", "c", "completed", "answer: mercy")),
                                         liveReply(task("t", "c", "completed", "changed:mercy")));
  EXPECT_FALSE(changed.match());
  EXPECT_THAT(changed.differences, ElementsAre("text \"answer: mercy\" vs \"changed:mercy\""));
}

TEST(A2aCompareTest, AMessageIsNotATask) {
  const std::string message =
      R"({"jsonrpc":"2.0","id":7,"result":{"kind":"message","role":"agent","messageId":"r",)"
      R"("parts":[{"kind":"text","text":"Grace."}]}})";
  const auto comparison =
      compareA2aReplies(liveReply(task("t", "c", "completed", "Grace.")), liveReply(message));
  EXPECT_THAT(comparison.differences,
              ElementsAre("kind \"task\" vs \"message\"", "state \"completed\" vs \"\""));
}

TEST(A2aCompareTest, AJsonRpcErrorOrAnUnparsableAnswerBreaksTheContract) {
  const A2aReply recorded = liveReply(task("t", "c", "completed", "Grace."));
  const auto error = compareA2aReplies(
      recorded,
      liveReply(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}})"));
  EXPECT_FALSE(error.match());
  EXPECT_THAT(error.violations, ElementsAre("JSON-RPC error -32603: Internal error"));
  const auto garbage = compareA2aReplies(recorded, liveReply("<html>busy</html>"));
  EXPECT_THAT(garbage.violations, ElementsAre("no JSON-RPC result"));
}

TEST(A2aCompareTest, TwoAgentsAgreeOnTheSameReplyButNeverOnAnError) {
  const Json grace = toJson(liveReply(task("t1", "c1", "completed", "Grace.")));
  const Json grace_again = toJson(liveReply(task("t2", "c2", "completed", "grace.")));
  const Json mercy = toJson(liveReply(task("t1", "c1", "completed", "Mercy.")));
  const Json error = toJson(
      liveReply(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}})"));
  EXPECT_TRUE(sameA2aReplies(grace, grace_again));
  EXPECT_FALSE(sameA2aReplies(grace, mercy));
  EXPECT_FALSE(sameA2aReplies(error, error));

  // Through pairwiseAgreement: call 1 where both differ from the recording alike, call 2 where
  // they differ apart.
  const std::vector<AgentAnswers> agents = {
      {{1, {false, true, grace}}, {2, {false, true, mercy}}},
      {{1, {false, true, grace_again}}, {2, {false, true, grace}}}};
  const auto pairs = pairwiseAgreement(agents, sameA2aReplies);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].differing_steps, 2);
  EXPECT_EQ(pairs[0].agreeing_steps, 1);
}

}  // namespace
}  // namespace agentvcr::replay
