#pragma once

// The archive the viewer tests look at: the bundled demo (BENCH-like episodes and a GEN tree
// with 2 candidates) recorded through the real proxy into a real SQLite file, once per test
// binary; the demo evaluated against a replay of itself; and the demo's scripted agent with
// some of its sentences changed, an agent that leaves the recording at known steps; an A2A
// context recorded from a fake agent, and forked against that agent answering in other words.

#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "a2a_fixture.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/services/evaluator.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_recording.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

/// Records the demo into `db_path` as one session named `name`, the agent's identity probed at
/// start as `agentvcr record` does.
inline sim::magma::Summary recordDemoInto(const std::string& db_path, const std::string& name) {
  return recordDemo(db_path, name, demoPlan(), /*probe_identity=*/true);
}

/// The conversation whose title starts with `title`, in the first session.
inline std::int64_t conversationTitled(const std::string& db_path, const std::string& title) {
  store::ArchiveReader reader(db_path);
  for (const auto& conversation : reader.conversations(1)) {
    if (conversation.title && conversation.title->rfind(title, 0) == 0) {
      return conversation.id;
    }
  }
  return 0;
}

/// Evaluates the recordings of `db_path` against the agent at `agent_url`, its session's name
/// ending with `label` when one is given (as `eval --agent A --agent B` names each agent's).
inline services::EvalRun evaluateAgent(const std::string& db_path, const std::string& agent_url,
                                       const std::string& label = {}) {
  services::EvalConfig eval;
  eval.db_path = db_path;
  eval.agent = *net::parseUrl(agent_url);
  eval.label = label;
  return services::runEvaluation(eval);
}

/// Evaluates the recordings of `db_path` against a replay of themselves: every step matches.
inline services::EvalRun evaluateAgainstItsReplay(const std::string& db_path,
                                                  const std::string& label = {}) {
  services::ReplayServiceConfig replay;
  replay.db_path = db_path;
  replay.server.port = 0;
  services::ReplayService service(replay);
  service.start();
  services::EvalRun run =
      evaluateAgent(db_path, "http://127.0.0.1:" + std::to_string(service.endpoint().port), label);
  service.stop();
  return run;
}

/// Records the demo into `db_path`, then evaluates it against a replay of itself (every step
/// matches): the archive then holds the recording (session 1) and its evaluation.
inline services::EvalRun recordAndEvaluateDemo(const std::string& db_path) {
  recordDemoInto(db_path, "demo");
  return evaluateAgainstItsReplay(db_path);
}

/// The demo's scripted agent on 127.0.0.1:0 with the say of some of its rules changed (rule
/// name -> the new say, `${...}` as the script writes them), its script written to
/// `script_path`: it answers as the recorded agent did but at the steps those rules answer.
class ChangedScriptedAgent {
 public:
  ChangedScriptedAgent(const std::string& script_path,
                       const std::map<std::string, std::string>& says)
      : server_(proxy::ServerOptions{},
                proxy::makeLocalServiceFactory(services::scriptedAgentRoutes(
                    services::loadScriptedAgent(writeScript(script_path, says))))) {
    server_.start();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.endpoint().port); }

 private:
  static const std::string& writeScript(const std::string& path,
                                        const std::map<std::string, std::string>& says) {
    std::ifstream in(std::string(AGENTVCR_FIXTURES_DIR) + "/demo/agent-script.json");
    protocol::Json script = protocol::Json::parse(in);
    for (auto& rule : script["rules"]) {
      if (auto say = says.find(rule["name"].get<std::string>()); say != says.end()) {
        rule["then"]["say"] = say->second;
      }
    }
    std::ofstream(path) << script.dump(2);
    return path;
  }

  proxy::Server server_;
};

/// Sends one A2A JSON-RPC call to the proxy or replay on `port`, as the fake agent's clients do.
inline void postA2a(std::uint16_t port, const std::string& body) {
  net::HttpClient("127.0.0.1", port)
      .send("POST", "/api/v1/a2a", body,
            {{"Content-Type", "application/json"},
             {"Authorization", "Bearer a2a-secret-token-93f1"}});
}

/// The four calls of context ctx-What (two questions, a tasks/get, a refused tasks/cancel)
/// recorded through the real proxy from the fake A2A agent into `db_path`, as session 1.
inline void recordA2aContextInto(const std::string& db_path) {
  FakeUpstream agent(fakeA2aAgent("http://127.0.0.1:1"));
  proxy::RecordingProxyConfig config;
  config.relay.upstream = *net::parseUrl(agent.url());
  config.db_path = db_path;
  config.session.name = "a2a";
  config.probe_identity = false;
  proxy::RecordingProxy recording(config);
  recording.start();
  const std::uint16_t port = recording.endpoint().port;
  postA2a(port, sendBody(1, "m-1", "What is grace?"));
  postA2a(port, sendBody(2, "m-2", "And mercy?", "message/send", "ctx-What"));
  postA2a(port, taskCall(3, "tasks/get", "task-14"));
  postA2a(port, taskCall(4, "tasks/cancel", "task-14"));
  recording.settle();
  recording.stop();
}

/// The fake A2A agent answering in other words ("changed:" for "answer: ", as long).
inline FakeHandler changedA2aAgent() {
  return [agent = fakeA2aAgent("http://127.0.0.1:1")](const protocol::HttpRequest& request) {
    FakeReply reply = agent(request);
    for (auto& segment : reply.segments) {
      for (auto at = segment.bytes.find("answer: "); at != std::string::npos;
           at = segment.bytes.find("answer: ", at)) {
        segment.bytes.replace(at, 8, "changed:");
      }
    }
    return reply;
  };
}

/// Replays the recorded ctx-What with `replay --fork-at 2` against the changed agent: its
/// first two calls from the recording, its tasks/get and tasks/cancel live, in a fork session.
inline void forkA2aContextAt2(const std::string& db_path) {
  FakeUpstream changed(changedA2aAgent());
  services::ReplayServiceConfig config;
  config.db_path = db_path;
  config.server.port = 0;
  config.replay.on_miss = replay::MissPolicy::Forward;
  config.replay.fork_at = 2;
  config.upstream = *net::parseUrl(changed.url());
  config.log_miss = [](const std::string&) {};
  services::ReplayService replay(config);
  replay.start();
  const std::uint16_t port = replay.endpoint().port;
  postA2a(port, sendBody(1, "m-1", "What is grace?"));
  postA2a(port, sendBody(2, "m-2", "And mercy?", "message/send", "ctx-What"));
  postA2a(port, taskCall(3, "tasks/get", "task-14"));
  postA2a(port, taskCall(4, "tasks/cancel", "task-14"));
  replay.stop();
}

}  // namespace agentvcr::testing
