// Conversation threading through the real recording proxy: BENCH-like callers running the
// same episodes at once, each on its own connection, in front of the scripted agent.

#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/reindex_command.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "demo_recording.hpp"
#include "magma_output.hpp"
#include "proxy_fixture.hpp"

namespace agentvcr::testing {
namespace {

using nlohmann::ordered_json;

const ordered_json kTools = ordered_json::parse(R"([
  {"name": "press_button", "description": "Press a button.", "arguments": {"id": {"description": "Name of the button to press.", "type": "str"}}}])");
const ordered_json kAttributes = ordered_json::parse(
    R"({"objects": ["sw0", "sw1", "sw2", "sw3"], "known_robots": ["panda"], "robot_statuses": {"panda": "FREE"}})");

/// The four episodes every caller runs: 1, 2, 3 and 4 steps.
const std::vector<std::vector<std::string>> kEpisodes = {
    {"Each time you are asked to wave, say hello."},
    {"Please press sw1"},
    {"Please press sw2", "Each time you are asked to wave, say hello."},
    {"Please press sw1", "Please press sw3"}};

std::string benchBody(const std::string& request_id, std::int64_t id, const std::string& type,
                      const std::string& content, const ordered_json& memory,
                      std::int64_t num_outputs = 1) {
  ordered_json input = {{"id", id},
                        {"instruction", {{"type", type}, {"content", content}}},
                        {"tools", kTools},
                        {"attributes", kAttributes},
                        {"memory", memory},
                        {"num_outputs", num_outputs},
                        {"extra_keys", {{"inference_mode", true}}}};
  return protocol::pythonJsonDumps(
      ordered_json{{"request_id", request_id}, {"inputs", ordered_json::array({input})}},
      protocol::kPythonDefaultStyle);
}

/// Env feedback of `call` as BENCH builds it: the press succeeded.
std::string pressed(const ordered_json& call) {
  ordered_json payload;
  payload["infos"] = call["target_robot_name"].get<std::string>() + ": " +
                     call["name"].get<std::string>() + " succeed with message: done.";
  payload["previous_tool_call"] = {
      {call["target_robot_name"], {{"name", call["name"]}, {"arguments", call["arguments"]}}}};
  return protocol::pythonJsonDumps(payload, protocol::kPythonDefaultStyle);
}

class ThreadingProxyTest : public ProxyTest {
 protected:
  void SetUp() override {
    startProxy(agent_.url(),
               [](proxy::RecordingProxyConfig& config) { config.server.threads = 4; });
  }

  /// How a caller talks to the recorder.
  struct CallerStyle {
    bool equal_ids = true;  ///< every input numbered 0, or each caller's episodes apart
    /// A new TCP connection for every request, as BENCH's client closes each one after its
    /// answer; otherwise one connection kept for the whole run.
    bool connection_per_request = false;
    /// The two-step episode's first step asks two candidates, and the caller continues the
    /// first, as a GEN-like caller may.
    bool two_candidates = false;
  };

  /// One BENCH-like caller: the episodes in order, each numbering its input `id_of(episode)`,
  /// the memory echoed back. Returns the steps sent per episode.
  std::vector<int> runCaller(const std::string& name,
                             const std::function<std::int64_t(std::size_t)>& id_of,
                             const CallerStyle& style) {
    std::optional<net::HttpClient> kept;
    std::vector<int> steps;
    int request = 0;
    for (std::size_t e = 0; e < kEpisodes.size(); ++e) {
      ordered_json memory = {{"history", ordered_json::array()}};
      int sent = 0;
      auto ask = [&](const std::string& type, const std::string& content) {
        const std::int64_t num_outputs = style.two_candidates && e == 1 && sent == 0 ? 2 : 1;
        if (!kept || style.connection_per_request) {
          kept.emplace("127.0.0.1", proxyPort());
        }
        auto reply = kept->postJson(
            "/v1/responses", benchBody(name + "-" + std::to_string(request++), id_of(e), type,
                                       content, memory, num_outputs));
        ++sent;
        ordered_json outputs = ordered_json::parse(reply.body);
        memory = outputs[0]["memory"];
        return outputs[0]["output"];
      };
      for (const std::string& instruction : kEpisodes[e]) {
        ordered_json output = ask("user", instruction);
        while (!output["tool_calls"].empty()) {
          output = ask("env", pressed(output["tool_calls"][0]));
        }
      }
      steps.push_back(sent);
    }
    return steps;
  }

  /// Eight callers at once; checks each ran 1, 2, 3, 4 steps.
  void runEightCallers(const CallerStyle& style) {
    std::vector<std::thread> callers;
    std::vector<std::vector<int>> steps(8);
    for (std::size_t c = 0; c < 8; ++c) {
      callers.emplace_back([&, c] {
        steps[c] = runCaller(
            "caller" + std::to_string(c),
            [&](std::size_t e) {
              return style.equal_ids ? std::int64_t{0} : static_cast<std::int64_t>(c * 10 + e);
            },
            style);
      });
    }
    for (std::thread& t : callers) {
      t.join();
    }
    for (const std::vector<int>& s : steps) {
      ASSERT_EQ(s, (std::vector<int>{1, 2, 3, 4}));
    }
  }

  /// Steps per conversation, counted: {steps: how many conversations}.
  std::map<std::int64_t, int> conversationShapes() {
    EXPECT_TRUE(proxy_->settle());
    return conversationShapesOnDisk(proxy_->sessionId());
  }

  std::map<std::int64_t, int> conversationShapesOnDisk(std::int64_t session) {
    std::map<std::int64_t, int> shapes;
    for (const store::ConversationRow& c : store::ArchiveReader(db_path_).conversations(session)) {
      ++shapes[c.step_count];
    }
    return shapes;
  }

  ScriptedAgentServer agent_;  // the demo's scripted agent, which answers like a real one
};

const std::map<std::int64_t, int> kEightOfEach = {{1, 8}, {2, 8}, {3, 8}, {4, 8}};

TEST_F(ThreadingProxyTest, EightIdenticalCallersWithEqualIdsThreadIntoEightOfEachEpisode) {
  runEightCallers(CallerStyle{});
  EXPECT_EQ(conversationShapes(), kEightOfEach);
}

TEST_F(ThreadingProxyTest, EightIdenticalCallersWithDistinctIdsThreadIntoEightOfEachEpisode) {
  CallerStyle distinct_ids;
  distinct_ids.equal_ids = false;
  runEightCallers(distinct_ids);
  EXPECT_EQ(conversationShapes(), kEightOfEach);
}

// Nothing but the rule tells these runs apart: equal ids, a client address that never repeats,
// two identical candidates of which one is continued. Each run must still get its own tree.
TEST_F(ThreadingProxyTest, NewConnectionsAndAContinuedOneOfTwoCandidatesThreadIntoEachRun) {
  CallerStyle bench_like;
  bench_like.connection_per_request = true;
  bench_like.two_candidates = true;
  runEightCallers(bench_like);
  EXPECT_EQ(conversationShapes(), kEightOfEach);
}

TEST_F(ThreadingProxyTest, ReindexRethreadsAnArchiveThreadedByTheNewestMatch) {
  runEightCallers(CallerStyle{});
  const std::int64_t session = proxy_->sessionId();
  ASSERT_EQ(conversationShapes(), kEightOfEach);
  cli::ReindexCommand command;
  command.db_path = db_path_;
  command.sessions = {session};
  std::ostringstream refused;
  EXPECT_THROW(cli::runReindex(command, refused), std::runtime_error);  // still recording
  proxy_->stop();
  {
    // The newest-match rule: every step under the newest candidate that returned its memory.
    SQLite::Database db(db_path_, SQLite::OPEN_READWRITE);
    db.exec(R"sql(
      UPDATE steps SET
        parent_candidate_id = (SELECT max(c.id) FROM candidates c
          WHERE c.memory_hash = steps.memory_hash AND c.step_id < steps.id),
        conversation_id = (SELECT p.conversation_id FROM steps p WHERE p.id =
          (SELECT c.step_id FROM candidates c WHERE c.id = (SELECT max(c2.id) FROM candidates c2
            WHERE c2.memory_hash = steps.memory_hash AND c2.step_id < steps.id)))
      WHERE parent_candidate_id IS NOT NULL)sql");
    db.exec("DELETE FROM conversations WHERE id NOT IN (SELECT conversation_id FROM steps)");
    db.exec(
        "UPDATE conversations SET step_count = "
        "(SELECT count(*) FROM steps WHERE conversation_id = conversations.id)");
  }
  ASSERT_NE(conversationShapesOnDisk(session), kEightOfEach);

  std::ostringstream out;
  EXPECT_EQ(cli::runReindex(command, out), cli::kExitOk);
  EXPECT_NE(out.str().find("session " + std::to_string(session) + ": 80 steps"), std::string::npos)
      << out.str();
  EXPECT_EQ(conversationShapesOnDisk(session), kEightOfEach);
}

/// A fake agent whose memory is a function of its input alone: identical inputs give
/// identical memories, so every candidate of one input is the same (greedy decoding). An
/// instruction containing "flaky" gets an error candidate (its input memory back) the first
/// time (`failed` remembers); with `stateless` every memory is {}.
FakeReply fakeAgent(const protocol::HttpRequest& request, bool stateless, bool& failed) {
  const ordered_json body = ordered_json::parse(request.body);
  ordered_json outputs = ordered_json::array();
  for (const ordered_json& input : body["inputs"]) {
    const std::string content = input["instruction"]["content"];
    ordered_json memory = ordered_json::object();
    if (!stateless) {
      memory = input["memory"];
      memory["history"].push_back({{"author", "USER"}, {"content", content}});
    }
    const bool fail = !failed && content.find("flaky") != std::string::npos;
    failed = failed || fail;
    for (std::int64_t k = 0; k < input["num_outputs"].get<std::int64_t>(); ++k) {
      outputs.push_back(magmaOutput(body, input, k, memory, fail, "ok"));
    }
  }
  return FakeReply::http(200, outputs.dump());
}

class FakeAgentThreadingTest : public ProxyTest {
 protected:
  void start(bool stateless) {
    // The fake agent answers one request at a time: one connection, one caller.
    agent_ = std::make_unique<FakeUpstream>(
        [stateless, failed = std::make_shared<bool>(false)](const protocol::HttpRequest& r) {
          return fakeAgent(r, stateless, *failed);
        });
    startProxy(agent_->url());
    client_ = std::make_unique<net::HttpClient>("127.0.0.1", proxyPort());
  }

  /// Sends one request of `inputs` ({id, type, content, memory, num_outputs}); returns the
  /// candidates' memories.
  std::vector<ordered_json> ask(const std::vector<ordered_json>& inputs) {
    ordered_json request = {{"request_id", "r" + std::to_string(requests_++)},
                            {"inputs", ordered_json::array()}};
    for (const ordered_json& in : inputs) {
      request["inputs"].push_back({{"id", in[0]},
                                   {"instruction", {{"type", in[1]}, {"content", in[2]}}},
                                   {"tools", kTools},
                                   {"attributes", kAttributes},
                                   {"memory", in[3]},
                                   {"num_outputs", in.size() > 4 ? in[4] : ordered_json(1)},
                                   {"extra_keys", {{"inference_mode", true}}}});
    }
    auto reply = client_->postJson("/v1/responses", request.dump());
    EXPECT_EQ(reply.status, 200);
    std::vector<ordered_json> memories;
    for (const ordered_json& out : ordered_json::parse(reply.body)) {
      memories.push_back(out["memory"]);
    }
    return memories;
  }

  /// Every step of the session in recording order, and the candidate ids of each.
  struct Recorded {
    std::vector<store::StepRow> steps;
    std::vector<std::vector<std::int64_t>> candidates;
  };

  Recorded recorded() {
    Recorded r;
    store::ArchiveReader reader = archive();
    for (const store::ExchangeRow& ex : reader.exchanges(proxy_->sessionId(), 0, 1000)) {
      for (store::StepRow& step : reader.stepsOfExchange(ex.id)) {
        std::vector<std::int64_t> ids;
        for (const store::CandidateRow& c : reader.candidates(step.id)) {
          ids.push_back(c.id);
        }
        r.candidates.push_back(ids);
        r.steps.push_back(std::move(step));
      }
    }
    return r;
  }

  std::unique_ptr<FakeUpstream> agent_;
  std::unique_ptr<net::HttpClient> client_;
  int requests_ = 0;
};

const ordered_json kEmptyMemory = {{"history", ordered_json::array()}};
const std::string kEnvPressed =
    R"({"infos": "panda: press_button succeed with message: done.", )"
    R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw1"}}}})";

TEST_F(FakeAgentThreadingTest, IdenticalCandidatesOfAGenForkEachGetAChild) {
  start(false);
  std::vector<ordered_json> fork = ask({{41, "user", "Move the fruit.", kEmptyMemory, 2}});
  ASSERT_EQ(fork.size(), 2u);
  ASSERT_EQ(fork[0], fork[1]);
  ask({{64, "env", kEnvPressed, fork[0]}, {65, "env", kEnvPressed, fork[1]}});

  Recorded r = recorded();
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[1].parent_candidate_id, r.candidates[0][0]);
  EXPECT_EQ(r.steps[2].parent_candidate_id, r.candidates[0][1]);
  EXPECT_EQ(r.steps[1].parent_ambiguity, 2);
  EXPECT_EQ(r.steps[2].conversation_id, r.steps[0].conversation_id);
}

TEST_F(FakeAgentThreadingTest, ARetryAfterAnErrorStaysASibling) {
  start(false);
  const ordered_json m1 = ask({{0, "user", "Please press sw1", kEmptyMemory}})[0];
  ask({{0, "user", "A flaky request", m1}});
  ask({{0, "user", "A flaky request", m1}});

  Recorded r = recorded();
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[1].parent_candidate_id, r.candidates[0][0]);
  EXPECT_EQ(r.steps[2].parent_candidate_id, r.candidates[0][0]);
  EXPECT_EQ(r.steps[2].depth, 1);
  EXPECT_EQ(r.steps[2].conversation_id, r.steps[0].conversation_id);
}

TEST_F(FakeAgentThreadingTest, AStatelessAgentFallsBackByInputId) {
  start(true);
  const ordered_json none = ordered_json::object();
  ask({{0, "user", "Please press sw1", none}, {1, "user", "Please press sw2", none}});
  ask({{1, "env", kEnvPressed, none}, {0, "env", kEnvPressed, none}});

  Recorded r = recorded();
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_EQ(r.steps[2].parent_candidate_id, r.candidates[1][0]);  // id 1
  EXPECT_EQ(r.steps[3].parent_candidate_id, r.candidates[0][0]);  // id 0
  EXPECT_EQ(r.steps[3].parent_ambiguity, 0);                      // the fallback, not the memory
}

/// Callers on connections that tell nothing, in front of fakeAgent, which takes as long as
/// the test says for each request id.
class SlowStepThreadingTest : public ProxyTest {
 protected:
  void start(std::chrono::milliseconds live_order_hold) {
    agent_ = std::make_unique<FakeUpstream>([this](const protocol::HttpRequest& r) {
      bool failed = true;  // no error candidates here
      FakeReply reply = fakeAgent(r, false, failed);
      const auto delay = delays_.find(ordered_json::parse(r.body)["request_id"]);
      reply.delay = delay != delays_.end() ? delay->second : std::chrono::milliseconds{0};
      return reply;
    });
    startProxy(agent_->url(), [live_order_hold](proxy::RecordingProxyConfig& config) {
      config.server.threads = 4;
      config.recorder.live_order_hold = live_order_hold;
    });
  }

  /// Sends one input on a new connection; returns its candidates' memories.
  std::vector<ordered_json> ask(const std::string& request_id, std::int64_t id,
                                const std::string& type, const std::string& content,
                                const ordered_json& memory, std::int64_t num_outputs = 1) {
    net::HttpClient client("127.0.0.1", proxyPort());
    auto reply = client.postJson("/v1/responses",
                                 benchBody(request_id, id, type, content, memory, num_outputs));
    EXPECT_EQ(reply.status, 200);
    std::vector<ordered_json> memories;
    for (const ordered_json& out : ordered_json::parse(reply.body)) {
      memories.push_back(out["memory"]);
    }
    return memories;
  }

  /// Run A asks once and carries its answer on in a step the agent answers slowly. Run B asks
  /// the same just after, is answered while A's step is still out, and carries both of its
  /// identical candidates on at once: one on its slot, one on a new slot. A's step began
  /// before B's answer existed, so only A's candidate can be its parent; B's steps may take
  /// any of the three, and are answered first.
  void runASlowStepAndAFastFork() {
    delays_ = {{"b1", std::chrono::milliseconds{300}}, {"a2", std::chrono::milliseconds{800}}};
    const ordered_json m1 = ask("a1", 0, "user", "Please press sw1", kEmptyMemory).at(0);
    std::vector<ordered_json> b1;
    std::thread b([&] { b1 = ask("b1", 0, "user", "Please press sw1", kEmptyMemory, 2); });
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
    std::thread a([&] { ask("a2", 0, "env", kEnvPressed, m1); });
    b.join();
    ASSERT_EQ(b1.size(), 2u);
    ASSERT_EQ(b1[0], m1);
    ask("b2", 0, "env", kEnvPressed, b1[0]);
    ask("b3", 1, "env", kEnvPressed, b1[1]);
    a.join();
  }

  /// The request id whose candidate each request's step continues ("" for a root).
  std::map<std::string, std::string> parents(const store::ArchiveReader& reader) {
    std::map<std::int64_t, std::string> request_of_candidate;
    std::map<std::string, std::optional<std::int64_t>> parent_of;
    for (const store::ExchangeRow& row : reader.exchanges(proxy_->sessionId(), 0, 100)) {
      const std::string request_id =
          ordered_json::parse(reader.exchange(row.id)->request_body)["request_id"];
      for (const store::StepRow& step : reader.stepsOfExchange(row.id)) {
        parent_of[request_id] = step.parent_candidate_id;
        for (const store::CandidateRow& c : reader.candidates(step.id)) {
          request_of_candidate[c.id] = request_id;
        }
      }
    }
    std::map<std::string, std::string> out;
    for (const auto& [request_id, parent] : parent_of) {
      out[request_id] = parent ? request_of_candidate.at(*parent) : "";
    }
    return out;
  }

  const std::map<std::string, std::string> kTruth = {
      {"a1", ""}, {"a2", "a1"}, {"b1", ""}, {"b2", "b1"}, {"b3", "b1"}};

  std::unique_ptr<FakeUpstream> agent_;
  std::map<std::string, std::chrono::milliseconds> delays_;
};

TEST_F(SlowStepThreadingTest, AStepThatBeganFirstIsThreadedFirstThoughAnsweredLast) {
  start(store::RecorderOptions{}.live_order_hold);
  runASlowStepAndAFastFork();
  ASSERT_TRUE(proxy_->settle());
  EXPECT_EQ(parents(archive()), kTruth);
}

TEST_F(SlowStepThreadingTest, ReindexThreadsStepsInTheOrderTheyBegan) {
  // Without the hold, the steps are numbered as answered: B's new-slot step takes A's
  // untouched candidate, and A's step, which could have taken nothing else, becomes its
  // second child.
  start(std::chrono::milliseconds{0});
  runASlowStepAndAFastFork();
  ASSERT_TRUE(proxy_->settle());
  ASSERT_NE(parents(archive()), kTruth) << "the archive was numbered in start order anyway";
  proxy_->stop();

  cli::ReindexCommand command;
  command.db_path = db_path_;
  std::ostringstream out;
  ASSERT_EQ(cli::runReindex(command, out), cli::kExitOk);
  EXPECT_EQ(parents(archive()), kTruth);
}

}  // namespace
}  // namespace agentvcr::testing
