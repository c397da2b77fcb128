// The commands a person types, run in-process: the demo records the bundled episodes, and
// ls/show print what the archive holds.

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/store/store_test_support.hpp"
#include "agentvcr/cli/demo_command.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/cli/migrate_command.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/schema.hpp"
#include "demo_archive_fixture.hpp"
#include "older_schema.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using CliTest = DemoArchiveTest;

TEST_F(CliTest, DemoRecordsEveryFixtureEpisodeAsExpected) {
  // The hints name the archive the demo wrote.
  const DemoRun& run = demoRun();
  EXPECT_THAT(run.output, Not(HasSubstr("UNEXPECTED")));
  EXPECT_THAT(run.output, HasSubstr("agentvcr ls --db " + run.db_path));
  EXPECT_THAT(run.output,
              HasSubstr("agentvcr-viewer " + std::filesystem::absolute(run.db_path).string()));

  store::ArchiveReader archive(db_path_);
  auto sessions = archive.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].mode, "demo");
  EXPECT_TRUE(sessions[0].ended_ns.has_value());
  EXPECT_GT(sessions[0].step_count, 5);
  EXPECT_EQ(sessions[0].invalid_exchange_count, 0);
  // The GEN-like input forks: some conversation has a candidate with two children or more
  // steps at depth > 0 under a two-candidate root.
  bool has_tree = false;
  for (const auto& conversation : archive.conversations(sessions[0].id)) {
    auto steps = archive.steps(conversation.id);
    if (!steps.empty() && archive.candidates(steps[0].id).size() == 2 && steps.size() > 2) {
      has_tree = true;
    }
  }
  EXPECT_TRUE(has_tree);
}

TEST_F(CliTest, DemoReplacesItsPreviousArchive) {
  cli::DemoCommand demo;
  demo.fixtures_dir = AGENTVCR_FIXTURES_DIR;
  demo.db_path = db_path_;
  demo.node = "lab-7";
  std::ostringstream out;
  ASSERT_EQ(cli::runDemo(demo, out), cli::kExitOk);
  const auto sessions = store::ArchiveReader(db_path_).sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].node, "lab-7");
}

TEST_F(CliTest, LsListsSessionsAndConversations) {
  std::ostringstream sessions;
  ASSERT_EQ(cli::runLs(db_path_, std::nullopt, sessions), cli::kExitOk);
  EXPECT_THAT(sessions.str(), HasSubstr("agentvcr-scripted-demo 1.0.0"));
  EXPECT_THAT(sessions.str(), HasSubstr("demo"));
  const store::SessionRow session = store::ArchiveReader(db_path_).sessions().at(0);
  EXPECT_THAT(sessions.str(), HasSubstr("UUID"));
  EXPECT_THAT(sessions.str(), HasSubstr(session.uuid.substr(0, 8) + "  "));
  EXPECT_THAT(sessions.str(), HasSubstr(session.node.substr(0, 13)));

  std::ostringstream conversations;
  ASSERT_EQ(cli::runLs(db_path_, 1, conversations), cli::kExitOk);
  EXPECT_THAT(conversations.str(), HasSubstr("Please press sw1"));

  std::ostringstream missing;
  EXPECT_EQ(cli::runLs(db_path_, 999, missing), cli::kExitFailure);
}

TEST_F(CliTest, ShowPrintsStepsWithDecisionsAndAnExchange) {
  cli::ShowCommand show;
  show.db_path = db_path_;
  show.conversation = 1;
  std::ostringstream steps;
  ASSERT_EQ(cli::runShow(show, steps), cli::kExitOk);
  EXPECT_THAT(steps.str(), HasSubstr("[user]"));
  EXPECT_THAT(steps.str(), HasSubstr("panda.press_button"));
  EXPECT_THAT(steps.str(), HasSubstr("[env]"));

  show.conversation.reset();
  show.exchange = 1;
  show.bodies = true;
  std::ostringstream exchange;
  ASSERT_EQ(cli::runShow(show, exchange), cli::kExitOk);
  EXPECT_THAT(exchange.str(), HasSubstr("GET /health -> 200"));
  EXPECT_THAT(exchange.str(), HasSubstr(R"({"status":"ready"})"));
  // Relayed by the proxy: every share of the time was measured.
  EXPECT_THAT(exchange.str(),
              ::testing::MatchesRegex(".*timing: caller request [0-9.]+ ms, agentvcr forwarding "
                                      "[0-9.]+ ms, agent headers [0-9.]+ ms, agent body complete "
                                      "[0-9.]+ ms, relay [0-9.]+ ms\n.*"));
}

// The archive keeps tool calls canonical (sorted keys); show prints them as the agent sent them.
TEST(ShowCli, PrintsToolCallArgumentsInTheAgentsKeyOrder) {
  namespace build = store::testing;  // the MAGMA exchange builders
  TempDir temp;
  const std::string path = temp.file("order.sqlite");
  std::string answer =
      protocol::Json::array({build::callOutput("r1", 1, 0, build::memoryOf("r1", 1), "sw1")})
          .dump();
  const std::string sorted_arguments = R"({"id":"sw1"})";
  answer.replace(answer.find(sorted_arguments), sorted_arguments.size(),
                 R"({"speed":2,"id":"sw1","axis":{"z":1,"a":0}})");
  {
    store::Recorder recorder(path, build::testSession(), build::testOptions());
    build::submit(
        recorder,
        build::httpExchange(
            "POST", "/v1/responses",
            build::request("r1", {build::input(1, "user", "go", build::memoryOf("r1", 0))}).dump(),
            200, answer));
    recorder.flush();
  }
  cli::ShowCommand show;
  show.db_path = path;
  show.conversation = 1;
  std::ostringstream steps;
  ASSERT_EQ(cli::runShow(show, steps), cli::kExitOk);
  EXPECT_THAT(steps.str(),
              HasSubstr(R"(panda.press_button({"speed":2,"id":"sw1","axis":{"z":1,"a":0}}))"))
      << steps.str();
}

/// An archive of one A2A context: a task asked for input, then `last_state`.
std::string recordA2aContext(const TempDir& temp, const std::string& last_state = "completed") {
  namespace build = store::testing;
  const std::string path = temp.file("a2a.sqlite");
  store::Recorder recorder(path, build::testSession(), build::testOptions());
  build::submit(recorder,
                build::httpExchange("POST", "/api/v1/a2a",
                                    build::a2aSend(1, "m-1", "What is grace?", "ctx-1"), 200,
                                    build::a2aTask(1, "t-1", "ctx-1", "input-required", "More?")));
  build::submit(recorder,
                build::httpExchange("POST", "/api/v1/a2a",
                                    build::a2aSend(2, "m-2", "Sanctifying grace", "ctx-1"), 200,
                                    build::a2aTask(2, "t-1", "ctx-1", last_state, "It is a gift")));
  recorder.flush();
  return path;
}

TEST(ShowCli, AnA2aConversationListsItsCalls) {
  TempDir temp;
  const std::string path = recordA2aContext(temp);
  const auto conversations = store::ArchiveReader(path).conversations(1);
  ASSERT_EQ(conversations.size(), 1u);
  cli::ShowCommand show;
  show.db_path = path;
  show.conversation = conversations[0].id;
  std::ostringstream out;
  ASSERT_EQ(cli::runShow(show, out), cli::kExitOk);
  EXPECT_THAT(out.str(), HasSubstr("A2A context ctx-1, 2 calls"));
  EXPECT_THAT(out.str(), HasSubstr("[message/send, v0.3]"));
  EXPECT_THAT(out.str(), HasSubstr("task t-1"));
  EXPECT_THAT(out.str(), HasSubstr("asked: \"What is grace?\""));
  EXPECT_THAT(out.str(), HasSubstr("-> input-required"));
  EXPECT_THAT(out.str(), HasSubstr("-> completed"));
}

// Every column is as wide as its widest value: "input-required" no longer runs into DURATION.
TEST(LsCli, ColumnsNeverRunTogether) {
  TempDir temp;
  const std::string path = recordA2aContext(temp, "input-required");
  std::ostringstream out;
  ASSERT_EQ(cli::runLs(path, 1, out), cli::kExitOk);
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  const std::size_t column = header.find("DURATION");
  ASSERT_NE(column, std::string::npos);
  EXPECT_THAT(row, HasSubstr("input-required  ")) << out.str();
  EXPECT_EQ(row.substr(column - 2, 2), "  ") << out.str();
  EXPECT_NE(row[column], ' ') << "each value starts under its header\n" << out.str();
}

TEST(MigrateCli, BringsAnOlderArchiveToThisSchemaSoReadersOpenIt) {
  TempDir temp;
  const std::string path = temp.file("old.sqlite");
  store::migrateArchive(path);
  {  // shaped as version 6 wrote it
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    testing::shapeAsVersion(db, 6);
  }
  std::string refusal;
  try {
    store::ArchiveReader reader(path);
  } catch (const std::runtime_error& e) {
    refusal = e.what();
  }
  EXPECT_THAT(refusal, HasSubstr("run `agentvcr migrate --db " + path + "` first"));

  std::ostringstream out;
  ASSERT_EQ(cli::runMigrate(path, out), cli::kExitOk);
  EXPECT_EQ(out.str(),
            path + ": archive schema version 6 -> " + std::to_string(store::kSchemaVersion) + "\n");
  EXPECT_NO_THROW(store::ArchiveReader reader(path));

  std::ostringstream again;
  ASSERT_EQ(cli::runMigrate(path, again), cli::kExitOk);
  EXPECT_THAT(again.str(), HasSubstr("already at archive schema version"));
}

TEST_F(CliTest, MigrateIndexesWhatAKilledRecorderLeftUnindexed) {
  // Exchanges nothing was derived from (probes, plain HTTP): marked unindexed, they look as a
  // killed recorder leaves them, and indexing them again cannot duplicate rows.
  const std::string underived =
      " FROM exchanges WHERE id NOT IN (SELECT exchange_id FROM steps) AND id NOT IN (SELECT "
      "exchange_id FROM a2a_calls)";
  {
    SQLite::Database db(db_path_, SQLite::OPEN_READWRITE);
    ASSERT_GT(db.execAndGet("SELECT count(*)" + underived).getInt(), 0);
    db.exec("UPDATE exchanges SET indexed = 0, decoder_version = 0 WHERE id IN (SELECT id" +
            underived + ")");
  }
  std::ostringstream out;
  ASSERT_EQ(cli::runMigrate(db_path_, out), cli::kExitOk);
  EXPECT_THAT(out.str(), HasSubstr("exchanges a recorder left unindexed"));
  SQLite::Database db(db_path_, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM exchanges WHERE indexed = 0").getInt(), 0);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM exchanges WHERE decoder_version = 0").getInt(), 0);
}

TEST(MigrateCli, AMissingArchiveIsAnErrorNotANewFile) {
  TempDir temp;
  const std::string path = temp.file("typo.sqlite");
  std::ostringstream out;
  EXPECT_THROW(cli::runMigrate(path, out), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace agentvcr::testing
