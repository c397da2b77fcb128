// `agentvcr eval` of recorded A2A contexts: a conversation of several messages in one context,
// recorded through the real proxy from the fake A2A agent, then sent again to the replay of
// itself, to an agent that changes one answer and names contexts its own way, and to one that
// breaks; alone and compared, against a count made by hand.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "a2a_fixture.hpp"
#include "agentvcr/cli/eval_command.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/replay/evaluation_report.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/step_links.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {
namespace {

using protocol::Json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kA2aEvalEndpoint = "/api/v1/a2a";

void sendThroughProxy(std::uint16_t port, const std::string& body) {
  net::HttpClient client("127.0.0.1", port);
  auto response =
      client.send("POST", kA2aEvalEndpoint, body, {{"Content-Type", "application/json"}});
  ASSERT_EQ(response.status, 200) << response.body;
}

/// `reply` with `from` replaced by `to` (as long: Content-Length stays right) wherever it is.
void replaceInReply(FakeReply& reply, const std::string& from, const std::string& to) {
  for (auto& segment : reply.segments) {
    for (auto at = segment.bytes.find(from); at != std::string::npos;
         at = segment.bytes.find(from, at)) {
      segment.bytes.replace(at, from.size(), to);
    }
  }
}

/// The recorded agent, changed: its answer to "And mercy?" (message 2) in other words, and a
/// context id of its own, which a later call must carry for the agent to know the context.
FakeHandler changedA2aAgent() {
  return [agent = fakeA2aAgent("http://127.0.0.1:1")](const protocol::HttpRequest& request) {
    FakeReply reply = agent(request);
    if (request.body.find("And mercy?") != std::string::npos) {
      replaceInReply(reply, "answer: And mercy?", "changed:And mercy?");
    }
    replaceInReply(reply, "ctx-What", "ctx-Wh4t");
    return reply;
  };
}

/// The changed agent, broken besides: a JSON-RPC error for "And hope?" (message 3).
FakeHandler brokenA2aAgent() {
  return [changed = changedA2aAgent()](const protocol::HttpRequest& request) {
    if (request.body.find("And hope?") != std::string::npos) {
      return FakeReply::http(
          200, R"({"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}})");
    }
    return changed(request);
  };
}

class A2aEvalTest : public ::testing::Test {
 protected:
  /// Records three messages in one context (the first names none: the agent gives it), then a
  /// tasks/get, which evaluation leaves out.
  void recordContext() {
    FakeUpstream agent(fakeA2aAgent("http://127.0.0.1:1"));
    proxy::RecordingProxyConfig config;
    config.relay.upstream = *net::parseUrl(agent.url());
    config.db_path = db_path_;
    config.session.name = "a2a";
    config.probe_identity = false;
    proxy::RecordingProxy recording(config);
    recording.start();
    const std::uint16_t port = recording.endpoint().port;
    sendThroughProxy(port, sendBody(1, "m-1", "What is grace?"));
    sendThroughProxy(port, sendBody(2, "m-2", "And mercy?", "message/send", "ctx-What"));
    sendThroughProxy(port, sendBody(3, "m-3", "And hope?", "message/send", "ctx-What"));
    sendThroughProxy(port, taskCall(4, "tasks/get", "task-14"));
    recording.settle();
    recording.stop();
    store::ArchiveReader reader(db_path_);
    const auto first = reader.exchanges(1, 0, 1);
    ASSERT_EQ(first.size(), 1u);
    const auto calls = reader.a2aCallsOfExchange(first.front().id);
    ASSERT_EQ(calls.size(), 1u);
    ASSERT_TRUE(calls.front().conversation_id);
    conversation_id_ = *calls.front().conversation_id;
  }

  std::unique_ptr<services::ReplayService> startReplay() {
    services::ReplayServiceConfig config;
    config.db_path = db_path_;
    config.server.port = 0;
    auto service = std::make_unique<services::ReplayService>(config);
    service->start();
    return service;
  }

  int evaluate(const std::vector<std::string>& agent_urls, std::optional<double> fail_under = {}) {
    cli::EvalCommand command;
    command.config.db_path = db_path_;
    for (const auto& url : agent_urls) {
      command.agents.push_back(*net::parseUrl(url));
    }
    command.report_path = report_path_;
    command.fail_under = fail_under;
    return cli::runEval(command, output_);
  }

  Json report() const {
    std::ifstream file(report_path_);
    return Json::parse(file);
  }

  TempDir dir_;
  std::string db_path_ = dir_.file("a2a-eval.sqlite");
  std::string report_path_ = dir_.file("report.json");
  std::ostringstream output_;
  std::int64_t conversation_id_ = 0;
};

TEST_F(A2aEvalTest, TheReplayOfTheRecordingMatchesEveryCall) {
  recordContext();
  auto replay = startReplay();
  const std::string url = "http://127.0.0.1:" + std::to_string(replay->endpoint().port);
  ASSERT_EQ(evaluate({url}), cli::kExitOk) << output_.str();
  const Json result = report();
  const Json& a2a = result["a2a"];
  EXPECT_EQ(a2a["overall"]["calls"], 3) << "the three sends; tasks/get is left out";
  EXPECT_EQ(a2a["overall"]["matched"], 3) << a2a.dump(2);
  EXPECT_EQ(a2a["overall"]["match_rate"].get<double>(), 1.0);
  EXPECT_EQ(a2a["overall"]["contract_violations"], 0);
  ASSERT_EQ(a2a["contexts"].size(), 1u);
  const Json& context = a2a["contexts"][0];
  EXPECT_EQ(context["conversation_id"], conversation_id_);
  EXPECT_EQ(context["context_id"], "ctx-What");
  EXPECT_EQ(context["calls"], 3);
  EXPECT_TRUE(context["first_divergent_message"].is_null());
  EXPECT_EQ(result["recorded_sessions"], Json::array({1}));
  EXPECT_THAT(output_.str(), HasSubstr("A2A overall: 3/3 calls match (100.0%"));
  EXPECT_THAT(output_.str(), Not(HasSubstr("steps match"))) << "no MAGMA table without steps";

  // The live calls are the evaluation session, threaded by context as recorded traffic is.
  store::ArchiveReader reader(db_path_);
  const auto session = reader.session(result["eval_session_id"].get<std::int64_t>());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->mode, "eval");
  EXPECT_EQ(session->name, "eval of session 1");
  const auto eval_conversation = context["eval_conversation_id"].get<std::int64_t>();
  ASSERT_NE(eval_conversation, 0);
  const auto live_calls = reader.a2aCalls(eval_conversation);
  ASSERT_EQ(live_calls.size(), 3u);
  for (const auto& call : live_calls) {
    EXPECT_EQ(call.session_id, session->id);
    EXPECT_EQ(call.method, "message/send");
    EXPECT_EQ(call.context_id, "ctx-What");
  }
  // Each live call is linked to the recorded call it asked again, as the report names it.
  const auto links = reader.callLinksOfSession(session->id);
  ASSERT_EQ(links.size(), 3u);
  for (std::size_t i = 0; i < links.size(); ++i) {
    EXPECT_EQ(links[i].call_id, live_calls[i].id);
    EXPECT_EQ(links[i].recorded_call_id, a2a["calls"][i]["recorded_call_id"].get<std::int64_t>());
    EXPECT_EQ(reader.a2aCall(links[i].recorded_call_id)->message_id, "m-" + std::to_string(i + 1));
  }
}

TEST_F(A2aEvalTest, AChangedAnswerIsTheFirstDivergentMessageUnderTheLiveContextId) {
  recordContext();
  FakeUpstream changed(changedA2aAgent());
  ASSERT_EQ(evaluate({changed.url()}), cli::kExitFailure) << output_.str();
  const Json result = report();
  const Json& context = result["a2a"]["contexts"].at(0);
  EXPECT_EQ(context["calls"], 3);
  EXPECT_EQ(context["matched"], 2);
  EXPECT_EQ(context["first_divergent_message"], 2);
  EXPECT_EQ(context["first_difference"], "text \"answer: And mercy?\" vs \"changed:And mercy?\"");
  EXPECT_EQ(result["a2a"]["overall"]["contract_violations"], 0);
  EXPECT_THAT(output_.str(),
              HasSubstr("message 2: text \"answer: And mercy?\" vs \"changed:And mercy?\""));
  EXPECT_THAT(output_.str(), HasSubstr("FAILED: 1 of 3 A2A calls differ"));

  // The first call went as recorded; the later ones carried the context the live agent gave.
  const auto requests = changed.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].body, sendBody(1, "m-1", "What is grace?"));
  EXPECT_THAT(requests[1].body, HasSubstr("\"contextId\":\"ctx-Wh4t\""));
  EXPECT_THAT(requests[2].body, HasSubstr("\"contextId\":\"ctx-Wh4t\""));
  EXPECT_THAT(requests[2].body, Not(HasSubstr("ctx-What")));

  // --fail-under accepts the A2A rate of 2/3 as it does a MAGMA one.
  output_.str("");
  EXPECT_EQ(evaluate({changed.url()}, 0.6), cli::kExitOk) << output_.str();
}

// An HTTP error breaks the contract; the viewer's report, recomputed from the evaluation
// session, says so as the terminal does.
TEST_F(A2aEvalTest, AnHttpErrorBreaksTheContractInTheTerminalAndTheViewerAlike) {
  recordContext();
  FakeUpstream failing([agent = fakeA2aAgent("http://127.0.0.1:1")](const auto& request) {
    if (request.body.find("And hope?") != std::string::npos) {
      return FakeReply::http(503, "busy", "text/plain");
    }
    return agent(request);
  });
  ASSERT_EQ(evaluate({failing.url()}), cli::kExitFailure) << output_.str();
  const Json result = report();
  const Json& context = result["a2a"]["contexts"].at(0);
  EXPECT_EQ(context["matched"], 2);
  EXPECT_EQ(context["first_divergent_message"], 3);
  EXPECT_EQ(context["first_difference"], "contract: http 503");

  const auto recomputed = replay::evaluationReport(store::ArchiveReader(db_path_),
                                                   result["eval_session_id"].get<std::int64_t>());
  ASSERT_TRUE(recomputed);
  EXPECT_EQ(recomputed->a2a_calls, 3);
  EXPECT_EQ(recomputed->a2a_matched, 2);
  EXPECT_EQ(recomputed->a2a_contract_violations, 1);
  ASSERT_EQ(recomputed->a2a_contexts.size(), 1u);
  EXPECT_EQ(recomputed->a2a_contexts[0].first_divergent_message, std::optional<std::int64_t>(3));
  EXPECT_EQ(recomputed->a2a_contexts[0].first_difference, "contract: http 503");
}

// An A2A agent is not asked BENCH's MAGMA checks, but one that does not answer its first call
// is refused as a MAGMA agent that is down: exit 2, nothing stored.
TEST_F(A2aEvalTest, AnA2aAgentThatIsDownIsRefusedAndNothingIsStored) {
  recordContext();
  EXPECT_EQ(evaluate({"http://127.0.0.1:1"}), cli::kExitNotEvaluated) << output_.str();
  EXPECT_THAT(output_.str(), HasSubstr("refusing to evaluate: http://127.0.0.1:1"));
  EXPECT_THAT(output_.str(), HasSubstr("is not answering"));
  EXPECT_EQ(store::ArchiveReader(db_path_).sessions().size(), 1u);
}

// The issue's three agents over the A2A context: the recorded one (the replay), the changed
// one (message 2 reworded) and the broken one (message 2 reworded alike, message 3 a JSON-RPC
// error). By hand: rates 3/3, 2/3, 1/3; agents 1-2 differ at one call and agree at none, 1-3 at
// two and none, 2-3 at two (messages 2 and 3) and agree at one (message 2).
TEST_F(A2aEvalTest, ThreeAgentsAreComparedCallByCallAsCountedByHand) {
  recordContext();
  auto replay = startReplay();
  FakeUpstream changed(changedA2aAgent());
  FakeUpstream broken(brokenA2aAgent());
  const std::string replay_url = "http://127.0.0.1:" + std::to_string(replay->endpoint().port);
  EXPECT_EQ(evaluate({replay_url, changed.url(), broken.url()}, 0.5), cli::kExitFailure)
      << output_.str();
  const Json comparison = report();
  const Json& agents = comparison["agents"];
  ASSERT_EQ(agents.size(), 3u) << comparison.dump(2);
  const std::vector<std::int64_t> matched{3, 2, 1};
  const std::vector<std::int64_t> violations{0, 0, 1};
  const std::vector<Json> first_divergent{nullptr, 2, 2};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("agent " + std::to_string(i + 1));
    const Json& overall = agents[i]["report"]["a2a"]["overall"];
    EXPECT_EQ(overall["calls"], 3);
    EXPECT_EQ(overall["matched"], matched[i]);
    EXPECT_DOUBLE_EQ(overall["match_rate"].get<double>(), static_cast<double>(matched[i]) / 3);
    EXPECT_EQ(overall["contract_violations"], violations[i]);
  }
  EXPECT_EQ(agents[2]["report"]["a2a"]["calls"][2]["violations"],
            Json::array({"JSON-RPC error -32603: Internal error"}));
  EXPECT_EQ(comparison["a2a_contexts"],
            Json::array({Json{{"conversation_id", conversation_id_},
                              {"first_divergent_message", first_divergent}}}));
  const Json expected_agreement = Json::array(
      {Json{{"agents", {0, 1}}, {"differing_steps", 1}, {"agreeing_steps", 0}, {"rate", 0.0}},
       Json{{"agents", {0, 2}}, {"differing_steps", 2}, {"agreeing_steps", 0}, {"rate", 0.0}},
       Json{{"agents", {1, 2}}, {"differing_steps", 2}, {"agreeing_steps", 1}, {"rate", 0.5}}});
  EXPECT_EQ(comparison["a2a_agreement"], expected_agreement) << comparison["a2a_agreement"];
  EXPECT_EQ(comparison["agreement"].size(), 3u) << "the MAGMA pairs, with no step to compare";

  // The viewer's comparison, recomputed from the three evaluation sessions' stored answers,
  // gives the same A2A figures, first divergences and agreement as the terminal.
  std::vector<std::int64_t> sessions;
  for (std::size_t i = 0; i < 3; ++i) {
    sessions.push_back(agents[i]["report"]["eval_session_id"].get<std::int64_t>());
  }
  const replay::EvaluationComparison recomputed =
      replay::compareEvaluations(store::ArchiveReader(db_path_), sessions);
  ASSERT_EQ(recomputed.agents.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("recomputed agent " + std::to_string(i + 1));
    const replay::EvaluationReport& agent = recomputed.agents[i];
    const Json& a2a = agents[i]["report"]["a2a"];
    EXPECT_EQ(agent.a2a_calls, a2a["overall"]["calls"].get<std::int64_t>());
    EXPECT_EQ(agent.a2a_matched, a2a["overall"]["matched"].get<std::int64_t>());
    EXPECT_DOUBLE_EQ(agent.a2aMatchRate(), a2a["overall"]["match_rate"].get<double>());
    EXPECT_EQ(agent.a2a_contract_violations,
              a2a["overall"]["contract_violations"].get<std::int64_t>());
    EXPECT_EQ(agent.a2a_text_normalised, a2a["overall"]["text_normalised"].get<std::int64_t>());
    ASSERT_EQ(agent.a2a_contexts.size(), 1u);
    const replay::EvaluatedA2aContext& context = agent.a2a_contexts[0];
    const Json& printed_context = a2a["contexts"][0];
    EXPECT_EQ(context.recorded_conversation_id, conversation_id_);
    EXPECT_EQ(context.context_id, "ctx-What");
    EXPECT_EQ(context.evaluated_conversation_id,
              printed_context["eval_conversation_id"].get<std::int64_t>());
    EXPECT_EQ(context.calls, 3);
    EXPECT_EQ(context.matched, matched[i]);
    EXPECT_EQ(context.first_divergent_message ? Json(*context.first_divergent_message) : Json(),
              first_divergent[i]);
    EXPECT_EQ(context.first_difference.empty() ? Json() : Json(context.first_difference),
              printed_context["first_difference"]);
    EXPECT_EQ(agent.a2a_answers.size(), 3u);
    EXPECT_EQ(agent.steps, 0);
  }
  ASSERT_EQ(recomputed.a2a_agreement.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(recomputed.a2a_agreement[k].first, expected_agreement[k]["agents"][0]);
    EXPECT_EQ(recomputed.a2a_agreement[k].second, expected_agreement[k]["agents"][1]);
    EXPECT_EQ(recomputed.a2a_agreement[k].differing_steps,
              expected_agreement[k]["differing_steps"].get<std::int64_t>());
    EXPECT_EQ(recomputed.a2a_agreement[k].agreeing_steps,
              expected_agreement[k]["agreeing_steps"].get<std::int64_t>());
  }

  const std::string printed = output_.str();
  EXPECT_THAT(printed, HasSubstr("agents 2 and 3: the same answers at 1 of 2 calls where either "
                                 "differs (50.0%)"));
  EXPECT_THAT(printed,
              HasSubstr("FAILED: agent 3 (" + broken.url() + "): the agent broke the contract"));
  EXPECT_THAT(printed, Not(HasSubstr("FAILED: agent 1")));
  EXPECT_THAT(printed, Not(HasSubstr("FAILED: agent 2")));
}

}  // namespace
}  // namespace agentvcr::testing
