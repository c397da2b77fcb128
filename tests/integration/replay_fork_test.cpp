// `agentvcr replay --fork-at N`: the demo recorded from the scripted agent, then played again
// against a replay that keeps its first N steps and sends the rest to a changed scripted agent,
// over loopback, into the same SQLite file.

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "replay_fixture.hpp"

namespace agentvcr::testing {
namespace {

/// The demo's scripted agent, changed: the same decisions, but a memory of its own (a key the
/// recorded agent never wrote), so every step after its first live answer leaves the recording.
class ChangedAgentServer {
 public:
  ChangedAgentServer()
      : scripted_(services::scriptedAgentRoutes(services::loadScriptedAgent(
            std::string(AGENTVCR_FIXTURES_DIR) + "/demo/agent-script.json"))),
        server_(proxy::ServerOptions{},
                proxy::makeLocalServiceFactory(
                    [this](const protocol::HttpRequest& request) { return answer(request); })) {
    server_.start();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.endpoint().port); }

 private:
  protocol::HttpReply answer(const protocol::HttpRequest& request) {
    protocol::HttpReply reply = scripted_(request);
    if (request.target == "/v1/responses" && reply.status == 200) {
      protocol::Json outputs = protocol::Json::parse(reply.body);
      for (auto& output : outputs) {
        output["memory"]["agent_generation"] = 2;
      }
      reply.body = outputs.dump();
    }
    return reply;
  }

  proxy::LocalHandler scripted_;
  proxy::Server server_;
};

class ReplayForkTest : public ReplayTest {
 protected:
  /// The replay of the recording forking at `fork_at` to `agent`.
  void startFork(const ChangedAgentServer& agent, std::int64_t fork_at) {
    startReplay([&](services::ReplayServiceConfig& config) {
      config.replay.on_miss = replay::MissPolicy::Forward;
      config.upstream = *net::parseUrl(agent.url());
      config.replay.fork_at = fork_at;
    });
  }

  std::string show(std::int64_t conversation_id) {
    cli::ShowCommand command;
    command.db_path = db_path_;
    command.conversation = conversation_id;
    std::ostringstream out;
    EXPECT_EQ(cli::runShow(command, out), cli::kExitOk);
    return out.str();
  }
};

TEST_F(ReplayForkTest, KeepsTheStepsAboveTheForkAndSendsEveryLaterStepLive) {
  recordDemo();
  ChangedAgentServer changed;
  startFork(changed, 2);
  sim::magma::DemoDriver driver(demoPlan());
  const sim::magma::Summary summary = drive(driver, replayPort());
  ASSERT_FALSE(summary.abort_reason) << *summary.abort_reason;
  replay_->stop();
  const replay::ReplayStats stats = replay_->replayer().stats();

  const store::ArchiveReader reader(db_path_);
  const auto sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  const store::SessionRow& recorded = sessions[0];
  const store::SessionRow& fork = sessions[1];
  EXPECT_EQ(fork.mode, "fork");
  EXPECT_EQ(fork.name, "fork of " + std::to_string(recorded.id) + " at 2");
  std::ostringstream listed;  // `ls`: the mode and the origin, in its MODE and NAME columns
  ASSERT_EQ(cli::runLs(db_path_, std::nullopt, listed), cli::kExitOk);
  std::istringstream lines(listed.str());
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);  // the recording
  std::getline(lines, line);
  EXPECT_NE(line.find("  fork of " + std::to_string(recorded.id) + " at 2  fork  "),
            std::string::npos)
      << listed.str();

  std::map<std::int64_t, store::StepRow> recorded_steps;
  std::size_t above_fork = 0;
  std::size_t at_fork = 0;
  for (const auto& conversation : reader.conversations(recorded.id)) {
    for (auto& step : reader.steps(conversation.id)) {
      above_fork += step.depth < 2 ? 1 : 0;
      at_fork += step.depth == 2 ? 1 : 0;
      recorded_steps.emplace(step.id, std::move(step));
    }
  }
  ASSERT_GT(at_fork, 0u);
  // Depth 0 and 1 came from the recording; everything else reached the changed agent: the
  // steps that still asked a recorded input (forked) and those the live answers led off it.
  EXPECT_EQ(stats.hits, above_fork);
  EXPECT_EQ(stats.forked, at_fork);
  std::size_t live_steps = 0;
  for (const auto& conversation : reader.conversations(fork.id)) {
    live_steps += reader.steps(conversation.id).size();
  }
  EXPECT_EQ(live_steps, stats.forked + stats.misses);
  EXPECT_GT(stats.misses, 0u) << "the changed agent never led a conversation off the recording";
  for (const std::string& logged : missLog()) {
    EXPECT_EQ(protocol::Json::parse(logged)["policy"], "forward") << logged;
  }

  // Each forked step links to the recorded step it asked again, at depth 2 or deeper: every
  // branch of the GEN tree and every BENCH episode that got that far forks on its own.
  const auto links = reader.stepLinksOfSession(fork.id);
  EXPECT_EQ(links.size(), stats.forked);
  std::set<std::int64_t> linked;
  for (const store::StepLink& link : links) {
    const auto it = recorded_steps.find(link.recorded_step_id);
    ASSERT_NE(it, recorded_steps.end()) << "a link points outside the recording";
    EXPECT_GE(it->second.depth, 2);
    EXPECT_EQ(reader.step(link.step_id)->replay_key, it->second.replay_key);
    linked.insert(link.recorded_step_id);
  }
  for (const auto& [id, step] : recorded_steps) {
    if (step.depth == 2) {
      EXPECT_TRUE(linked.contains(id)) << "recorded step " << id << " at the fork point";
    }
  }
}

TEST_F(ReplayForkTest, ShowPrintsTheRecordedPrefixOnceThenTheLiveSteps) {
  recordDemo();
  ChangedAgentServer changed;
  startFork(changed, 2);
  sim::magma::DemoDriver driver(demoPlan());
  ASSERT_FALSE(drive(driver, replayPort()).abort_reason);
  replay_->stop();

  const store::ArchiveReader reader(db_path_);
  const std::int64_t fork_session = reader.sessions().back().id;
  const auto links = reader.stepLinksOfSession(fork_session);
  // The GEN tree's branches: two live conversations whose recorded prefixes share their root.
  std::map<std::int64_t, std::vector<std::int64_t>> forks_of_recorded_conversation;
  for (const auto& conversation : reader.conversations(fork_session)) {
    for (const store::StepLink& link : links) {
      if (link.step_id == conversation.root_step_id) {
        forks_of_recorded_conversation[reader.step(link.recorded_step_id)->conversation_id]
            .push_back(conversation.id);
      }
    }
  }
  const auto gen =
      std::find_if(forks_of_recorded_conversation.begin(), forks_of_recorded_conversation.end(),
                   [](const auto& entry) { return entry.second.size() == 2; });
  ASSERT_NE(gen, forks_of_recorded_conversation.end()) << "no GEN tree forked on both branches";

  for (const std::int64_t live_id : gen->second) {
    const auto live = *reader.conversation(live_id);
    const auto root = *reader.step(*live.root_step_id);
    std::int64_t reasked = 0;
    for (const store::StepLink& link : links) {
      reasked = link.step_id == root.id ? link.recorded_step_id : reasked;
    }
    const auto at_fork = *reader.step(reasked);
    const auto parent = *reader.step(*at_fork.parent_step_id);
    const auto first = *reader.step(*parent.parent_step_id);

    // What show prints, line by line: the header, the two recorded steps above the fork once
    // each, the fork point, then every live step two levels deeper than in its own session.
    std::ostringstream expected_head;
    expected_head << "recorded prefix: conversation " << gen->first << " of session "
                  << first.session_id << ", 2 steps\n";
    const std::string text = show(live_id);
    EXPECT_NE(text.find(expected_head.str()), std::string::npos) << text;
    const std::string marker = "    --- fork at depth 2: the live agent from here (recorded step " +
                               std::to_string(at_fork.id) + " asked again)\n";
    const auto marker_at = text.find(marker);
    ASSERT_NE(marker_at, std::string::npos) << text;
    for (const auto& step : {first, parent}) {
      const std::string line = std::string(static_cast<std::size_t>(step.depth) * 2, ' ') +
                               "step " + std::to_string(step.id) + " [";
      const auto at = text.find("\n" + line);
      ASSERT_NE(at, std::string::npos) << text;
      EXPECT_LT(at, marker_at);
      EXPECT_EQ(text.find("\n" + line, at + 1), std::string::npos) << "printed twice: " << text;
    }
    for (const auto& step : reader.steps(live_id)) {
      const std::string line = std::string(static_cast<std::size_t>(step.depth + 2) * 2, ' ') +
                               "step " + std::to_string(step.id) + " [";
      const auto at = text.find("\n" + line);
      ASSERT_NE(at, std::string::npos) << line << " in " << text;
      EXPECT_GT(at, marker_at);
    }
  }
}

TEST_F(ReplayForkTest, LinksThatCannotBeWrittenAreReportedAndTheForkIsKept) {
  recordDemo();
  ChangedAgentServer changed;
  startFork(changed, 2);
  sim::magma::DemoDriver driver(demoPlan());
  ASSERT_FALSE(drive(driver, replayPort()).abort_reason);
  {
    // The recorded steps at the fork point vanish before replay stops: no link can name them.
    SQLite::Database db(db_path_, SQLite::OPEN_READWRITE, /*busy_timeout_ms=*/10000);
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("DELETE FROM steps WHERE depth = 2 AND session_id = 1");
  }
  ::testing::internal::CaptureStderr();
  replay_->stop();
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("[replay.fork] the fork's exchanges are stored, but its steps and calls "
                      "could not be linked to the recorded ones they continue: [store.links]"),
            std::string::npos)
      << said;
  const store::ArchiveReader reader(db_path_);
  const store::SessionRow fork = reader.sessions().back();
  EXPECT_EQ(fork.mode, "fork");
  EXPECT_GT(fork.exchange_count, 0);
  EXPECT_TRUE(reader.stepLinksOfSession(fork.id).empty());
}

}  // namespace
}  // namespace agentvcr::testing
