// What `agentvcr eval` prints and writes for a run (docs/eval.md, Output and Report): each
// difference with both sides shortened, the evaluated conversation beside the recorded one,
// and the agent's first-byte times; a table per A2A context after the MAGMA one.

#include "agentvcr/cli/eval_report.hpp"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace agentvcr::cli {
namespace {

using protocol::Json;

Json sayOutput(const std::string& say) {
  return Json{{"candidate_index", 0},
              {"status", "completed"},
              {"output", {{"say", say}, {"tool_calls", Json::array()}}}};
}

Json errorOutput(const std::string& code) {
  return Json{{"candidate_index", 0},
              {"status", "error"},
              {"output", nullptr},
              {"error", {{"code", code}, {"message", "m"}}}};
}

services::EvalStep step(std::int64_t conversation, std::int64_t number, const Json& recorded,
                        const Json& live) {
  services::EvalStep step;
  step.recorded_session_id = 1;
  step.conversation_id = conversation;
  step.eval_conversation_id = conversation + 10;
  step.step_number = number;
  step.recorded_step_id = conversation * 100 + number;
  step.eval_step_id = conversation * 1000 + number;
  const Json input = {{"id", 0}, {"instruction", {{"type", "user"}, {"content", "go"}}}};
  step.comparison = replay::compareDecisions(input, Json::array({recorded}), Json::array({live}));
  return step;
}

TEST(EvalReport, PrintsBothSidesOfEachDifferenceAndTheEvaluatedConversation) {
  services::EvalRun run;
  run.eval_session_id = 4;
  run.recorded_sessions = {1};
  run.steps = {
      step(3, 1, sayOutput("Hello."), sayOutput("Hello.")),
      step(3, 2, sayOutput("Done."), sayOutput("Finished.")),
      step(5, 1, sayOutput("Done."), errorOutput("agent_failure")),
      step(5, 2, errorOutput("timeout"),
           errorOutput("a_code_that_goes_on_for_far_more_than_forty_characters")),
  };
  run.exchanges = {{1, 2.0, 1.5}, {2, 4.0, 3.5}, {3, std::nullopt, 2.5}};
  const Json report = evalReportJson(run, "http://127.0.0.1:8000");
  std::ostringstream out;
  printEvalSummary(report, out);
  EXPECT_EQ(out.str(),
            "conversation  evaluated as  steps  matched  first divergence\n"
            "           3            13      2        1  step 2: candidate 0: say \"Done.\" vs "
            "\"Finished.\"\n"
            "           5            15      2        0  step 1: candidate 0: status "
            "\"completed\" vs \"error\"\n"
            "overall: 1/4 steps match (25.0%, 0 only once say is normalised), 0 contract "
            "violations, 0 error candidates\n"
            "agent's time to first byte: live p50 2.0 ms, p95 4.0 ms; recorded p50 2.5 ms, p95 "
            "3.5 ms\n"
            "stored as session 4\n");

  const Json& last = report["steps"][3];
  EXPECT_EQ(last["eval_conversation_id"], 15);
  EXPECT_EQ(last["differences"], Json::array({"candidate 0: error code \"timeout\" vs "
                                              "\"a_code_that_goes_on_for_far_more_than_fo…\""}));
  EXPECT_EQ(report["conversations"][1]["eval_conversation_id"], 15);
  EXPECT_EQ(report["steps"][2]["differences"],
            Json::array({"candidate 0: status \"completed\" vs \"error\"",
                         "candidate 0: kind say vs error",
                         "candidate 0: error code \"\" vs \"agent_failure\""}));
}

services::A2aEvalCall a2aCall(std::int64_t conversation, std::int64_t message,
                              const std::string& recorded_text, const replay::A2aReply& live) {
  services::A2aEvalCall call;
  call.recorded_session_id = 2;
  call.conversation_id = conversation;
  call.context_id = "ctx-" + std::to_string(conversation);
  call.message_number = message;
  call.recorded_call_id = conversation * 100 + message;
  call.eval_conversation_id = conversation + 10;
  call.comparison = replay::compareA2aReplies({"task", "completed", recorded_text, {}, ""}, live);
  call.live_reply = replay::toJson(live);
  return call;
}

TEST(EvalReport, PrintsATablePerA2aContextAfterTheMagmaOneAndTheA2aFigures) {
  services::EvalRun run;
  run.eval_session_id = 9;
  run.steps = {step(3, 1, sayOutput("Hello."), sayOutput("Hello."))};
  run.exchanges = {{1, 2.0, 1.5}};
  run.a2a_calls = {
      a2aCall(6, 1, "Grace.", {"task", "completed", "grace.", {}, ""}),
      a2aCall(6, 3, "Mercy.", {"task", "completed", "Pity.", {}, ""}),
      a2aCall(7, 1, "Hope.", {"", "", "", -32603, "Internal error"}),
  };
  const Json report = evalReportJson(run, "http://127.0.0.1:8000");
  std::ostringstream out;
  printEvalSummary(report, out);
  EXPECT_EQ(out.str(),
            "conversation  evaluated as  steps  matched  first divergence\n"
            "           3            13      1        1  -\n"
            "overall: 1/1 steps match (100.0%, 0 only once say is normalised), 0 contract "
            "violations, 0 error candidates\n"
            "agent's time to first byte: live p50 2.0 ms, p95 2.0 ms; recorded p50 1.5 ms, p95 "
            "1.5 ms\n"
            " A2A context  evaluated as  calls  matched  first divergence\n"
            "           6            16      2        1  message 3: text \"Mercy.\" vs \"Pity.\"\n"
            "           7            17      1        0  message 1: contract: JSON-RPC error "
            "-32603: Internal error\n"
            "A2A overall: 1/3 calls match (33.3%, 1 only once text is normalised), 1 contract "
            "violations\n"
            "stored as session 9\n");
  const Json& a2a = report["a2a"];
  EXPECT_EQ(a2a["overall"]["calls"], 3);
  EXPECT_EQ(a2a["overall"]["contract_violations"], 1);
  EXPECT_EQ(a2a["contexts"][0]["context_id"], "ctx-6");
  EXPECT_EQ(a2a["contexts"][0]["first_divergent_message"], 3);
  EXPECT_EQ(a2a["calls"][0]["text_normalised"], true);

  // Without MAGMA steps, only the A2A table.
  run.steps.clear();
  run.exchanges.clear();
  out.str("");
  printEvalSummary(evalReportJson(run, "http://127.0.0.1:8000"), out);
  EXPECT_EQ(out.str().rfind(" A2A context", 0), 0u) << out.str();
}

}  // namespace
}  // namespace agentvcr::cli
