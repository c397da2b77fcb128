// The commands a person types, run in-process: the demo records the bundled episodes, and
// ls/show print what the archive holds; and the errors they print, from the real binary.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../unit/store/store_test_support.hpp"
#include "agentvcr/cli/demo_command.hpp"
#include "agentvcr/cli/export_command.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/cli/lint_command.hpp"
#include "agentvcr/cli/migrate_command.hpp"
#include "agentvcr/cli/search_command.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/schema.hpp"
#include "agentvcr_process.hpp"
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
  EXPECT_EQ(cli::runLs(db_path_, 999, missing), cli::kExitUsage);
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

TEST_F(CliTest, AnArchiveOfVersion15MigratesAndEveryReaderGivesWhatItGaveBefore) {
  // The demo archive as this agentvcr records it, against the same archive shaped as version 15
  // kept it (every body whole) and migrated: its bodies are now segments, and every reader must
  // print what it printed on the original, byte for byte.
  const std::string migrated = temp_.file("v15.sqlite");
  std::filesystem::copy_file(db_path_, migrated);
  {
    SQLite::Database db(migrated, SQLite::OPEN_READWRITE);
    testing::shapeAsVersion(db, 15);
    ASSERT_EQ(db.execAndGet("SELECT count(*) FROM exchanges WHERE request_body_codec = "
                            "'zstd-segment' OR response_body_codec = 'zstd-segment'")
                  .getInt(),
              0);
  }
  std::ostringstream migration;
  ASSERT_EQ(cli::runMigrate(migrated, migration), cli::kExitOk);
  {
    SQLite::Database db(migrated, SQLite::OPEN_READONLY);
    ASSERT_GT(db.execAndGet("SELECT count(*) FROM exchanges WHERE response_body_codec = "
                            "'zstd-segment'")
                  .getInt(),
              5);
  }
  auto outputs = [](const std::string& path) {
    std::vector<std::string> printed;
    auto keep = [&](auto run, auto command) {
      std::ostringstream out;
      run(command, out);
      printed.push_back(out.str());
    };
    cli::ExportCommand jsonl;
    jsonl.db_path = path;
    keep(cli::runExport, jsonl);
    cli::ExportCommand har = jsonl;
    har.format = "har";
    keep(cli::runExport, har);
    cli::LintCommand lint;
    lint.db_path = path;
    lint.format = "json";
    keep(cli::runLint, lint);
    cli::SearchCommand search;
    search.db_path = path;
    search.words = {"press"};
    search.json = true;
    keep(cli::runSearch, search);
    const store::ArchiveReader reader(path);
    for (const store::ExchangeRow& ex : reader.exchanges(1, 0, 1000)) {
      cli::ShowCommand show;
      show.db_path = path;
      show.exchange = ex.id;
      show.bodies = true;
      keep(cli::runShow, show);
    }
    for (std::int64_t conversation = 1; conversation <= 7; ++conversation) {
      cli::ShowCommand show;
      show.db_path = path;
      show.conversation = conversation;
      keep(cli::runShow, show);
    }
    return printed;
  };
  const std::vector<std::string> before = outputs(db_path_);
  const std::vector<std::string> after = outputs(migrated);
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    // export names its archive's path; nothing else may differ.
    std::string expected = before[i];
    for (std::size_t at; (at = expected.find(db_path_)) != std::string::npos;) {
      expected.replace(at, db_path_.size(), migrated);
    }
    EXPECT_EQ(after[i], expected) << "output " << i;
  }
}

TEST(MigrateCli, AMissingArchiveIsAnErrorNotANewFile) {
  TempDir temp;
  const std::string path = temp.file("typo.sqlite");
  std::ostringstream out;
  EXPECT_THROW(cli::runMigrate(path, out), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// --- errors a person can act on: the real binary, its exit status and what it printed ---

/// A port of 127.0.0.1 held by a listening socket of this test.
class TakenPort {
 public:
  TakenPort() : socket_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(socket_, 1), 0);
    socklen_t length = sizeof address;
    ::getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = std::to_string(ntohs(address.sin_port));
  }

  ~TakenPort() { ::close(socket_); }

  TakenPort(const TakenPort&) = delete;
  TakenPort& operator=(const TakenPort&) = delete;

  std::string address() const { return "127.0.0.1:" + port_; }

 private:
  int socket_;
  std::string port_;
};

const std::string kDemoScript = std::string(AGENTVCR_FIXTURES_DIR) + "/demo/agent-script.json";

TEST(CliErrors, ATakenPortIsNamedWithAFreeOneToTry) {
  TempDir temp;
  const TakenPort taken;
  const Finished record = runAgentvcr({"record", "--upstream", "http://127.0.0.1:9", "--no-probe",
                                       "--db", temp.file("r.sqlite"), "--listen", taken.address()},
                                      temp.path().string());
  EXPECT_EQ(record.status, cli::kExitUsage);
  EXPECT_EQ(record.err, "agentvcr: cannot listen on " + taken.address() +
                            " (--listen): Address already in use; stop what holds it, or let "
                            "agentvcr pick a free port with --listen 127.0.0.1:0\n");

  const Finished metrics = runAgentvcr({"mock", "magma", "--script", kDemoScript, "--listen",
                                        "127.0.0.1:0", "--metrics-listen", taken.address()},
                                       temp.path().string());
  EXPECT_EQ(metrics.status, cli::kExitUsage);
  EXPECT_THAT(metrics.err, HasSubstr("cannot listen on " + taken.address() +
                                     " (--metrics-listen): Address already in use"));
  EXPECT_THAT(metrics.err, HasSubstr("--metrics-listen 127.0.0.1:0\n"));
  EXPECT_THAT(metrics.err, Not(HasSubstr("system:")));
}

// One table for every command: the issue's statuses (105, 106, 1 for a port) are all 2 now.
TEST(CliErrors, UsageAndInputErrorsExit2AndHelpPrintsTheTable) {
  TempDir temp;
  const std::vector<std::vector<std::string>> usage_errors = {
      {"record", "--upstream", "http://127.0.0.1:9", "--listen", "18080"},
      {"mock", "magma"},
      {"ls", "--db", temp.file("missing.sqlite")},
      {"lint", "--db", temp.file("missing.sqlite")},
      {"no-such-command"},
  };
  for (const auto& args : usage_errors) {
    const Finished run = runAgentvcr(args, temp.path().string());
    EXPECT_EQ(run.status, cli::kExitUsage) << args[0] << ": " << run.err;
    EXPECT_NE(run.err, "") << args[0];
  }
  const Finished help = runAgentvcr({"--help"}, temp.path().string());
  EXPECT_EQ(help.status, cli::kExitOk);
  EXPECT_THAT(help.out, HasSubstr("Exit status:\n  0  done; every check passed\n  1  a check "
                                  "failed"));
  EXPECT_THAT(help.out, HasSubstr("  4  ship: "));
}

// The fixtures root, as `demo` takes it; the banner says the quota is on and how to turn it off
// (a second run of an SDK's tests within the minute meets 429s otherwise).
TEST(CliErrors, MockA2aTakesTheFixturesRootAndNamesItsQuota) {
  TempDir temp;
  const std::string ready = temp.file("ready");
  const std::string out = temp.file("out");
  AgentvcrProcess mock({"mock", "a2a", "--no-auth", "--listen", "127.0.0.1:0", "--fixtures",
                        AGENTVCR_FIXTURES_DIR, "--ready-file", ready},
                       out, temp.file("err"));
  ASSERT_NE(readyPort(ready), 0) << readWhole(temp.file("err"));
  EXPECT_EQ(mock.stop(SIGTERM), cli::kExitOk);
  EXPECT_THAT(readWhole(out),
              HasSubstr("\nagentvcr mock a2a: quota on: per token, 15 message/send calls a 60 s "
                        "window, 2 of them to catholic_qa (60 s), then 429; --no-quota turns it "
                        "off"));

  const Finished wrong = runAgentvcr(
      {"mock", "a2a", "--no-auth", "--listen", "127.0.0.1:0", "--fixtures", temp.path().string()},
      temp.path().string());
  EXPECT_EQ(wrong.status, cli::kExitUsage);
  EXPECT_EQ(wrong.err, "agentvcr: cannot read " + temp.path().string() +
                           "/card.json: --fixtures takes the fixtures folder (holding "
                           "a2a/magisterium/) or the magisterium profile's own folder (card.json, "
                           "skills.json)\n");
}

/// True when SQLite's write-ahead log or shared memory is beside `path`.
bool hasWalOrShm(const std::string& path) {
  return std::filesystem::exists(path + "-wal") || std::filesystem::exists(path + "-shm");
}

const std::vector<std::vector<std::string>> kReadingCommands = {
    {"ls"}, {"ls", "1"}, {"show", "1"}, {"stats"}, {"lint"}};

TEST_F(CliTest, ReadingAnArchiveLeavesNothingBesideIt) {
  ASSERT_FALSE(hasWalOrShm(db_path_));
  for (auto args : kReadingCommands) {
    args.insert(args.begin() + 1, {"--db", db_path_});
    const Finished run = runAgentvcr(args, temp_.path().string());
    EXPECT_EQ(run.status, cli::kExitOk) << args[0] << ": " << run.err;
    EXPECT_FALSE(hasWalOrShm(db_path_)) << args[0];
  }
}

TEST_F(CliTest, ADamagedArchiveIsNamedAndLeftAsItWas) {
  {  // the second half: past the schema, so the archive opens and its rows do not read
    const auto size = std::filesystem::file_size(db_path_);
    std::fstream file(db_path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(size / 2));
    const std::string garbage(size - size / 2, '\xAA');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string damaged = readWhole(db_path_);
  int refused = 0;
  for (auto args : kReadingCommands) {
    args.insert(args.begin() + 1, {"--db", db_path_});
    const Finished run = runAgentvcr(args, temp_.path().string());
    if (run.status != cli::kExitOk) {
      ++refused;
      EXPECT_EQ(run.status, cli::kExitUsage) << args[0] << ": " << run.err;
      EXPECT_THAT(run.err, HasSubstr(db_path_ +
                                     ": database disk image is malformed (the file is "
                                     "damaged: restore a copy, or save what it still "
                                     "holds with `sqlite3 " +
                                     db_path_ + " .recover"))
          << args[0];
    }
    EXPECT_FALSE(hasWalOrShm(db_path_)) << args[0];
    EXPECT_EQ(readWhole(db_path_), damaged) << args[0] << " wrote to a damaged archive";
  }
  EXPECT_GE(refused, 2);  // stats and lint read every row
}

}  // namespace
}  // namespace agentvcr::testing
