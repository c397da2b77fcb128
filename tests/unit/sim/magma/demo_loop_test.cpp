// The full in-process loop: DemoDriver against ScriptedAgent on the shipped fixtures, no sockets.

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/sim/magma/demo_driver.hpp"
#include "agentvcr/sim/magma/scripted_agent.hpp"
#include "test_support.hpp"

namespace agentvcr::sim::magma {
namespace {

using protocol::Json;

struct Exchange {
  std::string request;
  protocol::HttpReply reply;
};

struct DemoRun {
  Summary summary;
  std::vector<Exchange> exchanges;
  DemoPlan plan;
};

DemoRun runDemo() {
  ScriptedAgent::Load agent =
      ScriptedAgent::fromText(testing::readFixture("demo/agent-script.json"));
  PlanLoad plan = loadDemoPlanText(testing::readFixture("demo/episodes.json"));
  EXPECT_TRUE(agent.agent) << agent.error;
  EXPECT_TRUE(plan.plan) << plan.error;
  DemoRun run;
  if (!agent.agent || !plan.plan) {
    return run;
  }
  run.plan = *plan.plan;
  DemoDriver driver(std::move(*plan.plan));
  for (int guard = 0; !driver.done() && guard < 100; ++guard) {
    Exchange exchange;
    exchange.request = driver.nextRequestBody();
    exchange.reply = agent.agent->respond(exchange.request);
    const auto error = driver.onResponse(exchange.reply.status, exchange.reply.body);
    EXPECT_FALSE(error) << *error;
    run.exchanges.push_back(std::move(exchange));
  }
  EXPECT_TRUE(driver.done());
  run.summary = driver.summary();
  return run;
}

const BranchOutcome& outcome(const Summary& summary, const std::string& label) {
  for (const BranchOutcome& item : summary.outcomes) {
    if (item.label == label) {
      return item;
    }
  }
  ADD_FAILURE() << "no outcome " << label;
  static const BranchOutcome none;
  return none;
}

TEST(DemoLoop, EveryFixtureEpisodeEndsAsExpected) {
  const DemoRun run = runDemo();
  EXPECT_FALSE(run.summary.abort_reason);
  EXPECT_EQ(checkExpectations(run.plan, run.summary), std::vector<std::string>{});
  EXPECT_EQ(run.summary.outcomes.size(), run.plan.episodes.size() + 1);  // one tree of two

  EXPECT_EQ(outcome(run.summary, "press-sw1").agent_calls, 2);
  EXPECT_EQ(outcome(run.summary, "press-last-button").agent_calls, 3);  // sw9, then sw4, then say
  EXPECT_EQ(outcome(run.summary, "constraint-then-press").stages_completed, 2u);
  EXPECT_EQ(outcome(run.summary, "press-missing-sw7").agent_calls, 3);  // try, retry, give up
  EXPECT_EQ(outcome(run.summary, "self-destruct").reason,
            "agent error invalid_output: Model parser rejected its raw response");
  EXPECT_TRUE(outcome(run.summary, "sort-damaged/0").done);
  EXPECT_TRUE(outcome(run.summary, "sort-damaged/1").done);
}

TEST(DemoLoop, TheWrongButtonGetsTheToolsFailureMessage) {
  const DemoRun run = runDemo();
  bool seen = false;
  for (const Exchange& exchange : run.exchanges) {
    const Json request = testing::parse(exchange.request);
    for (const Json& input : request["inputs"]) {
      seen =
          seen ||
          input["instruction"]["content"] ==
              R"({"infos": "panda: press_button failed with message: No objects corresponding to id = sw9. You must pass the id of the object to take.", "previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw9"}}}})";
    }
  }
  EXPECT_TRUE(seen);
}

TEST(DemoLoop, RequestsBatchWaitingEpisodesAndReuseSlots) {
  const DemoRun run = runDemo();
  ASSERT_FALSE(run.exchanges.empty());
  std::set<std::int64_t> gen_ids;
  std::size_t most_inputs = 0;
  for (const Exchange& exchange : run.exchanges) {
    EXPECT_EQ(exchange.reply.status, 200);
    const Json request = testing::parse(exchange.request);
    most_inputs = std::max(most_inputs, request["inputs"].size());
    std::set<std::int64_t> ids;
    for (const Json& input : request["inputs"]) {
      const auto id = input["id"].get<std::int64_t>();
      EXPECT_TRUE(ids.insert(id).second);
      if (id >= run.plan.gen_first_id) {
        EXPECT_TRUE(gen_ids.insert(id).second) << "a GEN situation id was reused";
      } else {
        EXPECT_LT(id, run.plan.nb_env);
      }
    }
  }
  EXPECT_GE(most_inputs, 3u);  // two BENCH slots and the GEN root
  const Json first = testing::parse(run.exchanges[0].request);
  EXPECT_EQ(first["inputs"][1]["num_outputs"], 2);
  EXPECT_EQ(testing::parse(run.exchanges[0].reply.body).size(), 4u);  // (0,0),(41,0),(41,1),(1,0)
}

TEST(DemoLoop, GenBranchesFormATreeThroughMemory) {
  const DemoRun run = runDemo();
  // Every candidate memory returned by the agent, by canonical text (magma-protocol.md §18.3).
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> parents;
  std::set<std::pair<std::int64_t, std::int64_t>> children_of_root;
  for (const Exchange& exchange : run.exchanges) {
    const Json request = testing::parse(exchange.request);
    for (const Json& input : request["inputs"]) {
      const auto it = parents.find(protocol::canonicalJson(input["memory"]));
      if (it != parents.end() && it->second.first == 41) {
        children_of_root.insert(it->second);
      }
    }
    for (const Json& output : testing::parse(exchange.reply.body)) {
      parents[protocol::canonicalJson(output["memory"])] = {
          output["source_id"].get<std::int64_t>(), output["candidate_index"].get<std::int64_t>()};
    }
  }
  // Both candidates of situation 41 have a follow-up that carries their own memory.
  EXPECT_EQ(children_of_root, (std::set<std::pair<std::int64_t, std::int64_t>>{{41, 0}, {41, 1}}));
}

TEST(DemoLoop, RunsAreReproducibleByteForByte) {
  const DemoRun first = runDemo();
  const DemoRun second = runDemo();
  ASSERT_EQ(first.exchanges.size(), second.exchanges.size());
  for (std::size_t i = 0; i < first.exchanges.size(); ++i) {
    EXPECT_EQ(first.exchanges[i].request, second.exchanges[i].request);
    EXPECT_EQ(first.exchanges[i].reply, second.exchanges[i].reply);
  }
}

}  // namespace
}  // namespace agentvcr::sim::magma
