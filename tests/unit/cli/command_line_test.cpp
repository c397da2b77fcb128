// Each `agentvcr` command parsed from argument vectors on its own CLI11 app: the options it
// fills, its defaults and its usage errors, with nothing run.

#include "agentvcr/cli/command_line.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/cli/demo_command.hpp"
#include "agentvcr/cli/eval_command.hpp"
#include "agentvcr/cli/export_command.hpp"
#include "agentvcr/cli/import_command.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/cli/lint_command.hpp"
#include "agentvcr/cli/merge_command.hpp"
#include "agentvcr/cli/migrate_command.hpp"
#include "agentvcr/cli/mock_a2a_command.hpp"
#include "agentvcr/cli/mock_command.hpp"
#include "agentvcr/cli/record_command.hpp"
#include "agentvcr/cli/reindex_command.hpp"
#include "agentvcr/cli/replay_command.hpp"
#include "agentvcr/cli/search_command.hpp"
#include "agentvcr/cli/stats_command.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "agentvcr/sim/a2a/profile.hpp"
#include "agentvcr/store/identity.hpp"

namespace agentvcr::cli {
namespace {

namespace fs = std::filesystem;

class CommandLineTest : public ::testing::Test {
 protected:
  /// Parses `args` (the program name is added): CLI11's exit status when it refuses them.
  std::optional<int> parse(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"agentvcr"};
    for (const auto& arg : args) {
      argv.push_back(arg.c_str());
    }
    try {
      app_.parse(static_cast<int>(argv.size()), argv.data());
      return std::nullopt;
    } catch (const CLI::ParseError& error) {
      return app_.exit(error, out_, err_);
    }
  }

  /// Parses `args`, which must be accepted and leave a command to run.
  void parseRunnable(const std::vector<std::string>& args) {
    ASSERT_EQ(parse(args), std::nullopt) << err_.str();
    ASSERT_EQ(invocation_.usage_error, "");
    ASSERT_TRUE(invocation_.run);
  }

  /// Parses `args`, which CLI11 accepts but the command refuses: execute()'s status and what
  /// it printed.
  std::pair<int, std::string> usageError(const std::vector<std::string>& args) {
    EXPECT_EQ(parse(args), std::nullopt) << err_.str();
    EXPECT_FALSE(invocation_.run);
    const int status = execute(invocation_, out_, err_);
    return {status, err_.str()};
  }

  CLI::App app_{"agentvcr"};
  Invocation invocation_;
  std::ostringstream out_;
  std::ostringstream err_;
};

constexpr int kValidationError = static_cast<int>(CLI::ExitCodes::ValidationError);
constexpr int kRequiredError = static_cast<int>(CLI::ExitCodes::RequiredError);

// --- record ---

TEST_F(CommandLineTest, RecordDefaults) {
  auto record = registerRecord(app_, invocation_);
  parseRunnable({"record", "--upstream", "http://agent.test:9000/base"});
  const auto& config = record.command->config;
  EXPECT_EQ(invocation_.command, "record");
  EXPECT_EQ(config.db_path, kDefaultArchive);
  EXPECT_EQ(config.server.host, "127.0.0.1");
  EXPECT_EQ(config.server.port, 8080);
  EXPECT_EQ(config.server.threads, defaultThreads());
  EXPECT_EQ(config.relay.upstream.host, "agent.test");
  EXPECT_EQ(config.relay.upstream.port, 9000);
  EXPECT_EQ(config.relay.upstream.base_path, "/base");
  EXPECT_EQ(config.relay.upstream_timeout, std::chrono::seconds(600));
  EXPECT_TRUE(config.relay.verify_tls);
  EXPECT_EQ(config.recorder.durability, store::Durability::Normal);
  EXPECT_DOUBLE_EQ(config.recorder.index_share_under_load, 0.25);
  EXPECT_TRUE(config.recorder.compress_bodies);
  EXPECT_TRUE(config.probe_identity);
  EXPECT_EQ(config.session.mode, "record");
}

TEST_F(CommandLineTest, RecordOptions) {
  auto record = registerRecord(app_, invocation_);
  parseRunnable({"record",
                 "--upstream",
                 "https://agent.test",
                 "--listen",
                 "0.0.0.0:0",
                 "--db",
                 "x.sqlite",
                 "--session",
                 "nightly",
                 "--threads",
                 "3",
                 "--upstream-timeout",
                 "5",
                 "--durability",
                 "full",
                 "--plain-bodies",
                 "--index-share",
                 "1",
                 "--insecure",
                 "--no-probe",
                 "--ready-file",
                 "ready.txt"});
  const auto& config = record.command->config;
  EXPECT_TRUE(config.relay.upstream.tls);
  EXPECT_EQ(config.server.host, "0.0.0.0");
  EXPECT_EQ(config.server.port, 0);
  EXPECT_EQ(config.db_path, "x.sqlite");
  EXPECT_EQ(config.session.name, "nightly");
  EXPECT_EQ(config.server.threads, 3u);
  EXPECT_EQ(config.relay.upstream_timeout, std::chrono::seconds(5));
  EXPECT_EQ(config.recorder.durability, store::Durability::Full);
  EXPECT_FALSE(config.recorder.compress_bodies);
  EXPECT_DOUBLE_EQ(config.recorder.index_share_under_load, 1.0);
  EXPECT_FALSE(config.relay.verify_tls);
  EXPECT_FALSE(config.probe_identity);
  EXPECT_EQ(record.command->ready_file, "ready.txt");
}

TEST_F(CommandLineTest, EveryCommandThatRecordsTakesANode) {
  auto record = registerRecord(app_, invocation_);
  auto replay = registerReplay(app_, invocation_);
  auto eval = registerEval(app_, invocation_);
  auto demo = registerDemo(app_, invocation_, "agentvcr");
  EXPECT_EQ(record.command->config.session.node, "");  // empty: the host name
  parseRunnable({"record", "--upstream", "http://agent.test", "--node", "rig-1"});
  EXPECT_EQ(record.command->config.session.node, "rig-1");
  parseRunnable({"replay", "--node", "rig-2"});
  EXPECT_EQ(replay.command->config.node, "rig-2");
  parseRunnable({"eval", "--agent", "http://agent.test", "--node", "rig-3"});
  EXPECT_EQ(eval.command->config.node, "rig-3");
  parseRunnable({"demo", "--fixtures", AGENTVCR_FIXTURES_DIR, "--node", "rig-4"});
  EXPECT_EQ(demo.command->node, "rig-4");
}

TEST_F(CommandLineTest, ImportAndMergeCopyAsNewOnlyWhenAsked) {
  auto import = registerImport(app_, invocation_);
  auto merge = registerMerge(app_, invocation_);
  const std::string input = AGENTVCR_FIXTURES_DIR "/demo/episodes.json";  // any existing file
  parseRunnable({"import", input});
  EXPECT_FALSE(import.command->as_new);
  parseRunnable({"import", "--as-new", input});
  EXPECT_TRUE(import.command->as_new);
  parseRunnable({"merge", "out.sqlite", input});
  EXPECT_FALSE(merge.command->as_new);
  parseRunnable({"merge", "--as-new", "out.sqlite", input});
  EXPECT_TRUE(merge.command->as_new);
}

TEST_F(CommandLineTest, RecordRefusesABadUpstreamAsAUsageError) {
  registerRecord(app_, invocation_);
  auto [status, err] = usageError({"record", "--upstream", "ftp://agent.test"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err,
            "agentvcr record: --upstream must be http(s)://host[:port][/path], got "
            "'ftp://agent.test'\n");
}

TEST_F(CommandLineTest, RecordRefusesABadListen) {
  registerRecord(app_, invocation_);
  EXPECT_EQ(parse({"record", "--upstream", "http://a.test", "--listen", "nowhere"}),
            kValidationError);
  EXPECT_NE(err_.str().find("--listen: expected HOST:PORT, got 'nowhere'"), std::string::npos)
      << err_.str();
  EXPECT_FALSE(invocation_.run);
}

TEST_F(CommandLineTest, RecordNeedsAnUpstream) {
  registerRecord(app_, invocation_);
  EXPECT_EQ(parse({"record"}), kRequiredError);
  EXPECT_NE(err_.str().find("--upstream"), std::string::npos);
}

TEST_F(CommandLineTest, RecordRefusesAnUnknownDurability) {
  registerRecord(app_, invocation_);
  EXPECT_EQ(parse({"record", "--upstream", "http://a.test", "--durability", "sometimes"}),
            kValidationError);
}

TEST_F(CommandLineTest, RecordRefusesAnIndexShareOutOfRange) {
  registerRecord(app_, invocation_);
  EXPECT_EQ(parse({"record", "--upstream", "http://a.test", "--index-share", "0.01"}),
            kValidationError);
}

TEST_F(CommandLineTest, MetricsListenIsTakenByRecordReplayAndBothMocks) {
  const auto record = registerRecord(app_, invocation_);
  const auto replay = registerReplay(app_, invocation_);
  CLI::App* mock = registerMock(app_);
  const auto magma = registerMockMagma(*mock, invocation_);
  const auto a2a = registerMockA2a(*mock, invocation_);
  parseRunnable({"record", "--upstream", "http://a.test", "--metrics-listen", "127.0.0.1:9464"});
  EXPECT_EQ(record.command->metrics_listen, "127.0.0.1:9464");
  parseRunnable({"replay", "--metrics-listen", "0.0.0.0:9465"});
  EXPECT_EQ(replay.command->metrics_listen, "0.0.0.0:9465");
  parseRunnable({"mock", "magma", "--script", "s.json", "--metrics-listen", "127.0.0.1:0"});
  EXPECT_EQ(magma.command->metrics_listen, "127.0.0.1:0");
  parseRunnable({"mock", "a2a", "--no-auth", "--metrics-listen", "127.0.0.1:9466"});
  EXPECT_EQ(a2a.command->metrics_listen, "127.0.0.1:9466");
}

TEST_F(CommandLineTest, MetricsListenIsOffUnlessAskedAndRefusesWhatIsNotHostPort) {
  const auto record = registerRecord(app_, invocation_);
  parseRunnable({"record", "--upstream", "http://a.test"});
  EXPECT_EQ(record.command->metrics_listen, "");
  for (const char* bad : {"9464", "localhost", "127.0.0.1:99999", ":"}) {
    CLI::App app{"agentvcr"};
    Invocation invocation;
    registerRecord(app, invocation);
    std::vector<const char*> argv{"agentvcr",      "record",           "--upstream",
                                  "http://a.test", "--metrics-listen", bad};
    EXPECT_THROW(app.parse(static_cast<int>(argv.size()), argv.data()), CLI::ValidationError)
        << bad;
  }
}

// --- replay ---

TEST_F(CommandLineTest, ReplayDefaults) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay"});
  const auto& config = replay.command->config;
  EXPECT_EQ(invocation_.command, "replay");
  EXPECT_EQ(config.db_path, kDefaultArchive);
  EXPECT_EQ(config.server.host, "127.0.0.1");
  EXPECT_EQ(config.server.port, 8000);
  EXPECT_EQ(config.server.threads, std::min(4u, defaultThreads()));
  EXPECT_EQ(config.replay.on_miss, replay::MissPolicy::Error);
  EXPECT_FALSE(config.upstream);
  EXPECT_EQ(config.forward_timeout, std::chrono::seconds(600));
  EXPECT_TRUE(config.store_misses);
  EXPECT_EQ(config.replay.answer_pace, replay::kFastPace);
  EXPECT_EQ(config.replay.stream_pace, replay::kRecordedPace);
  EXPECT_TRUE(config.replay.key_rules.ignoresNothing());
  EXPECT_EQ(config.replay.memo_bytes, std::size_t{64} << 20);
}

TEST_F(CommandLineTest, ReplayMemoIsSizedInMib) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay", "--memo-mib", "8"});
  EXPECT_EQ(replay.command->config.replay.memo_bytes, std::size_t{8} << 20);
}

TEST_F(CommandLineTest, ReplayMemoTurnsOff) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay", "--no-memo"});
  EXPECT_EQ(replay.command->config.replay.memo_bytes, 0u);
}

TEST_F(CommandLineTest, ReplayRefusesAnEmptyMemo) {
  registerReplay(app_, invocation_);
  EXPECT_EQ(parse({"replay", "--memo-mib", "0"}), kValidationError);
  EXPECT_NE(err_.str().find("--memo-mib"), std::string::npos) << err_.str();
}

TEST_F(CommandLineTest, ReplayForwardsMissesToTheUpstream) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay",
                 "--db",
                 "a.sqlite",
                 "--session",
                 "2",
                 "--session",
                 "3",
                 "--on-miss",
                 "forward",
                 "--upstream",
                 "http://live.test:81",
                 "--forward-timeout",
                 "7",
                 "--no-store-misses",
                 "--sse-pace",
                 "fast",
                 "--ignore",
                 "/messages/0",
                 "--listen",
                 "127.0.0.1:0"});
  const auto& config = replay.command->config;
  EXPECT_EQ(config.db_path, "a.sqlite");
  EXPECT_EQ(config.replay.selection.sessions, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(config.replay.on_miss, replay::MissPolicy::Forward);
  ASSERT_TRUE(config.upstream);
  EXPECT_EQ(config.upstream->host, "live.test");
  EXPECT_EQ(config.upstream->port, 81);
  EXPECT_EQ(config.forward_timeout, std::chrono::seconds(7));
  EXPECT_FALSE(config.store_misses);
  EXPECT_EQ(config.replay.stream_pace, replay::kFastPace);
  EXPECT_EQ(config.replay.key_rules.ignoredPointers(), std::vector<std::string>{"/messages/0"});
  EXPECT_EQ(config.server.port, 0);
}

TEST_F(CommandLineTest, ReplayPaceRecordedHoldsAnswersAndStreams) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay", "--pace", "recorded"});
  EXPECT_EQ(replay.command->config.replay.answer_pace, replay::kRecordedPace);
  EXPECT_EQ(replay.command->config.replay.stream_pace, replay::kRecordedPace);
}

TEST_F(CommandLineTest, ReplayPaceFactorScalesAnswersAndStreams) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay", "--pace", "0.5"});
  EXPECT_DOUBLE_EQ(replay.command->config.replay.answer_pace, 0.5);
  EXPECT_DOUBLE_EQ(replay.command->config.replay.stream_pace, 0.5);
}

TEST_F(CommandLineTest, ReplaySsePaceWinsOverPaceForStreams) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay", "--pace", "recorded", "--sse-pace", "0.25"});
  EXPECT_EQ(replay.command->config.replay.answer_pace, replay::kRecordedPace);
  EXPECT_DOUBLE_EQ(replay.command->config.replay.stream_pace, 0.25);
}

/// `--pace=VALUE` or `--sse-pace=VALUE` with a value that is no pace.
class ReplayBadPaceTest
    : public CommandLineTest,
      public ::testing::WithParamInterface<std::tuple<std::string, std::string>> {};

TEST_P(ReplayBadPaceTest, IsRefusedNamingWhatAPaceIs) {
  const auto& [option, value] = GetParam();
  registerReplay(app_, invocation_);
  EXPECT_EQ(parse({"replay", option + "=" + value}), kValidationError);
  EXPECT_NE(err_.str().find("recorded, fast or a factor"), std::string::npos) << err_.str();
}

INSTANTIATE_TEST_SUITE_P(NotAFactor, ReplayBadPaceTest,
                         ::testing::Combine(::testing::Values("--pace", "--sse-pace"),
                                            ::testing::Values("abc", "-1", "nan", "inf", "0.5x",
                                                              "1e400")));

TEST_F(CommandLineTest, ReplayRefusesAnUnknownMissPolicy) {
  registerReplay(app_, invocation_);
  EXPECT_EQ(parse({"replay", "--on-miss", "ignore"}), kValidationError);
  EXPECT_NE(err_.str().find("--on-miss"), std::string::npos) << err_.str();
}

TEST_F(CommandLineTest, ReplayForwardNeedsAnHttpUpstream) {
  registerReplay(app_, invocation_);
  auto [status, err] =
      usageError({"replay", "--on-miss", "forward", "--upstream", "https://live.test"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err,
            "agentvcr replay: --on-miss forward needs --upstream http://host[:port][/path], got "
            "'https://live.test'\n");
}

TEST_F(CommandLineTest, ReplayUpstreamOnlyWithForward) {
  registerReplay(app_, invocation_);
  auto [status, err] = usageError({"replay", "--upstream", "http://live.test"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err, "agentvcr replay: --upstream is only used with --on-miss forward\n");
}

TEST_F(CommandLineTest, ReplayForkAtNeedsForwarding) {
  registerReplay(app_, invocation_);
  auto [status, err] = usageError({"replay", "--fork-at", "2"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err,
            "agentvcr replay: --fork-at 2 sends the steps from there on to a live agent: add "
            "--on-miss forward --upstream URL\n");
  const auto refused = usageError({"replay", "--fork-at", "2", "--on-miss", "http"});
  EXPECT_EQ(refused.first, kExitUsage);
  EXPECT_NE(refused.second.find("add --on-miss forward"), std::string::npos) << refused.second;
}

TEST_F(CommandLineTest, ReplayForkAtIsADepth) {
  registerReplay(app_, invocation_);
  EXPECT_EQ(parse({"replay", "--fork-at", "-1", "--on-miss", "forward", "--upstream",
                   "http://live.test"}),
            kValidationError);
}

TEST_F(CommandLineTest, ReplayRefusesIgnoringTheWholeInput) {
  registerReplay(app_, invocation_);
  auto [status, err] = usageError({"replay", "--ignore", ""});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err, "agentvcr replay: --ignore '': the whole input cannot be ignored\n");
}

TEST_F(CommandLineTest, ReplayRefusesABadListen) {
  registerReplay(app_, invocation_);
  EXPECT_EQ(parse({"replay", "--listen", "8000"}), kValidationError);
  EXPECT_NE(err_.str().find("--listen: expected HOST:PORT, got '8000' (a port alone: "
                            "127.0.0.1:8000 listens on it)"),
            std::string::npos)
      << err_.str();
}

// --- mock magma and mock a2a ---

TEST_F(CommandLineTest, MockNeedsAnAgentKind) {
  registerMock(app_);
  EXPECT_EQ(parse({"mock"}), kRequiredError);
}

TEST_F(CommandLineTest, MockMagma) {
  auto magma = registerMockMagma(*registerMock(app_), invocation_);
  parseRunnable({"mock", "magma", "--script", "script.json", "--listen", "[::1]:9100"});
  EXPECT_EQ(invocation_.command, "mock magma");
  EXPECT_EQ(magma.command->script_path, "script.json");
  EXPECT_EQ(magma.command->server.host, "::1");
  EXPECT_EQ(magma.command->server.port, 9100);
}

TEST_F(CommandLineTest, MockMagmaNeedsAScript) {
  registerMockMagma(*registerMock(app_), invocation_);
  EXPECT_EQ(parse({"mock", "magma"}), kRequiredError);
}

TEST_F(CommandLineTest, MockMagmaListensOnPort8000ByDefault) {
  auto magma = registerMockMagma(*registerMock(app_), invocation_);
  parseRunnable({"mock", "magma", "--script", "s.json"});
  EXPECT_EQ(magma.command->server.host, "127.0.0.1");
  EXPECT_EQ(magma.command->server.port, 8000);
}

TEST_F(CommandLineTest, MockMagmaRefusesABadListen) {
  registerMockMagma(*registerMock(app_), invocation_);
  EXPECT_EQ(parse({"mock", "magma", "--script", "s.json", "--listen", "host:port"}),
            kValidationError);
}

TEST_F(CommandLineTest, MockA2aOptions) {
  auto a2a = registerMockA2a(*registerMock(app_), invocation_);
  parseRunnable({"mock",
                 "a2a",
                 "--profile",
                 "magisterium",
                 "--token",
                 "t1",
                 "--fixtures",
                 "/elsewhere",
                 "--listen",
                 "127.0.0.1:0",
                 "--rate-default",
                 "3",
                 "--rate-expensive",
                 "1",
                 "--rate-window-s",
                 "10",
                 "--rate-window",
                 "sliding",
                 "--no-cors",
                 "--stream-delay-ms",
                 "5",
                 "--card-version",
                 "0.2.6"});
  const auto& command = *a2a.command;
  EXPECT_EQ(invocation_.command, "mock a2a");
  EXPECT_EQ(command.config.profile, sim::a2a::ProfileKind::Magisterium);
  EXPECT_EQ(command.tokens, std::vector<std::string>{"t1"});
  EXPECT_EQ(command.fixtures_dir, "/elsewhere");
  EXPECT_EQ(command.server.port, 0);
  EXPECT_EQ(command.server.threads, std::min(2u, defaultThreads()));
  EXPECT_EQ(command.config.limits.default_pool.calls, 3u);
  EXPECT_EQ(command.config.limits.expensive_pool.calls, 1u);
  EXPECT_EQ(command.config.limits.default_pool.window, std::chrono::seconds(10));
  EXPECT_EQ(command.config.limits.window, sim::a2a::WindowKind::Sliding);
  EXPECT_TRUE(command.config.quota);
  EXPECT_FALSE(command.config.cors);
  EXPECT_EQ(command.config.stream_delay, std::chrono::milliseconds(5));
  EXPECT_EQ(command.config.card_version, "0.2.6");
}

TEST_F(CommandLineTest, MockA2aFindsTheBundledFixturesOfItsProfile) {
  ::unsetenv("AGENTVCR_FIXTURES");
  auto a2a = registerMockA2a(*registerMock(app_), invocation_);
  parseRunnable({"mock", "a2a", "--profile", "standard"});
  EXPECT_EQ(fs::weakly_canonical(a2a.command->fixtures_dir),
            fs::weakly_canonical(fs::path(AGENTVCR_FIXTURES_DIR) / "a2a" / "standard"));
  EXPECT_EQ(a2a.command->server.host, "127.0.0.1");
  EXPECT_EQ(a2a.command->server.port, 8000);
}

// --fixtures takes what `demo` and AGENTVCR_FIXTURES take, the fixtures root, or as before the
// profile's own folder.
TEST_F(CommandLineTest, MockA2aTakesTheFixturesRootOrTheProfileFolder) {
  auto a2a = registerMockA2a(*registerMock(app_), invocation_);
  parseRunnable({"mock", "a2a", "--profile", "standard", "--fixtures", AGENTVCR_FIXTURES_DIR});
  EXPECT_EQ(a2a.command->fixtures_dir,
            (fs::path(AGENTVCR_FIXTURES_DIR) / "a2a" / "standard").string());
  const std::string profile_dir = std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/standard";
  parseRunnable({"mock", "a2a", "--profile", "standard", "--fixtures", profile_dir});
  EXPECT_EQ(a2a.command->fixtures_dir, profile_dir);
}

TEST(MockA2aBanner, SaysTheQuotaIsOnAndHowToTurnItOff) {
  sim::a2a::MockConfig config;
  auto fixtures =
      sim::a2a::loadFixturesDir(std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/magisterium");
  ASSERT_TRUE(fixtures.fixtures) << fixtures.error;
  config.fixtures = std::move(*fixtures.fixtures);
  EXPECT_EQ(quotaBanner(config, sim::a2a::magisteriumProfile()),
            "quota on: per token, 15 message/send calls a 60 s window, 2 of them to catholic_qa "
            "(60 s), then 429; --no-quota turns it off, --rate-default N and --rate-expensive N "
            "raise it");
  EXPECT_EQ(quotaBanner(config, sim::a2a::standardProfile()), "");  // it counts nothing
  config.quota = false;
  EXPECT_EQ(quotaBanner(config, sim::a2a::magisteriumProfile()), "");
}

TEST_F(CommandLineTest, MockA2aMagisteriumNeedsTokens) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] = usageError({"mock", "a2a"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err,
            "agentvcr mock a2a: the magisterium profile needs --token, --tokens-file or "
            "--no-auth\n");
}

TEST_F(CommandLineTest, MockA2aStandardTakesNoTokens) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] = usageError({"mock", "a2a", "--profile", "standard", "--token", "t"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_NE(err.find("the standard profile checks no tokens"), std::string::npos) << err;
}

TEST_F(CommandLineTest, MockA2aRefusesAnEndpointPathWithoutSlash) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] = usageError({"mock", "a2a", "--no-auth", "--endpoint-path", "rpc"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err, "agentvcr mock a2a: --endpoint-path must start with '/'\n");
}

TEST_F(CommandLineTest, MockA2aRefusesARestPathThatCannotBeABase) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] =
      usageError({"mock", "a2a", "--profile", "standard", "--rest-path", "/api/v1/a2a"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err,
            "agentvcr mock a2a: --rest-path must start with '/', not end with one, and differ "
            "from --endpoint-path\n");
}

TEST_F(CommandLineTest, MockA2aRefusesZeroRates) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] = usageError({"mock", "a2a", "--no-auth", "--rate-default", "0"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_NE(err.find("the rate numbers must be at least 1"), std::string::npos) << err;
}

TEST_F(CommandLineTest, MockA2aStandardServesBothVersionsOnTheSystemClockByDefault) {
  using sim::a2a::WireVersion;
  auto a2a = registerMockA2a(*registerMock(app_), invocation_);
  parseRunnable({"mock", "a2a", "--profile", "standard"});
  EXPECT_EQ(a2a.command->config.a2a_versions,
            (std::vector<WireVersion>{WireVersion::V03, WireVersion::V10}));
  EXPECT_FALSE(a2a.command->fixed_clock);
}

TEST_F(CommandLineTest, MockA2aStandardServesOneVersionOnAStoppedClock) {
  using sim::a2a::WireVersion;
  auto a2a = registerMockA2a(*registerMock(app_), invocation_);
  parseRunnable({"mock", "a2a", "--profile", "standard", "--a2a-version", "1.0", "--clock",
                 "fixed:2026-01-01T00:00:00Z"});
  EXPECT_EQ(a2a.command->config.a2a_versions, std::vector<WireVersion>{WireVersion::V10});
  EXPECT_EQ(a2a.command->fixed_clock, sim::a2a::parseIsoTimestamp("2026-01-01T00:00:00Z"));
}

TEST_F(CommandLineTest, MockA2aStandardServesOnlyV03WhenAsked) {
  using sim::a2a::WireVersion;
  auto a2a = registerMockA2a(*registerMock(app_), invocation_);
  parseRunnable({"mock", "a2a", "--profile", "standard", "--a2a-version", "0.3"});
  EXPECT_EQ(a2a.command->config.a2a_versions, std::vector<WireVersion>{WireVersion::V03});
}

TEST_F(CommandLineTest, MockA2aRefusesAClockThatIsNotFixedToATime) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] =
      usageError({"mock", "a2a", "--profile", "standard", "--clock", "fixed:tomorrow"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_NE(err.find("--clock must be `system` or `fixed:` and an RFC 3339 time"),
            std::string::npos)
      << err;
}

TEST_F(CommandLineTest, MockA2aMagisteriumTakesNoA2aVersion) {
  registerMockA2a(*registerMock(app_), invocation_);
  auto [status, err] = usageError({"mock", "a2a", "--no-auth", "--a2a-version", "1.0"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_NE(err.find("--a2a-version applies to the standard profile only"), std::string::npos)
      << err;
}

TEST_F(CommandLineTest, MockA2aRefusesAnUnknownA2aVersion) {
  registerMockA2a(*registerMock(app_), invocation_);
  EXPECT_EQ(parse({"mock", "a2a", "--profile", "standard", "--a2a-version", "2.0"}),
            kValidationError);
}

TEST_F(CommandLineTest, MockA2aRefusesAnUnknownProfile) {
  registerMockA2a(*registerMock(app_), invocation_);
  EXPECT_EQ(parse({"mock", "a2a", "--profile", "grand"}), kValidationError);
}

// --- demo ---

TEST_F(CommandLineTest, DemoDefaultsToItsOwnArchiveAndTheBundledFixtures) {
  ::unsetenv("AGENTVCR_FIXTURES");
  auto demo = registerDemo(app_, invocation_, "./agentvcr");
  parseRunnable({"demo"});
  EXPECT_EQ(demo.command->db_path, kDefaultDemoArchive);
  EXPECT_EQ(demo.command->program, "./agentvcr");
  EXPECT_EQ(fs::weakly_canonical(demo.command->fixtures_dir),
            fs::weakly_canonical(AGENTVCR_FIXTURES_DIR));
}

TEST_F(CommandLineTest, DemoTakesTheFixturesOfTheEnvironment) {
  ::setenv("AGENTVCR_FIXTURES", "/from/environment", 1);
  auto demo = registerDemo(app_, invocation_, "agentvcr");
  parseRunnable({"demo"});
  ::unsetenv("AGENTVCR_FIXTURES");
  EXPECT_EQ(demo.command->fixtures_dir, "/from/environment");
}

TEST_F(CommandLineTest, DemoFixturesOptionWins) {
  ::setenv("AGENTVCR_FIXTURES", "/from/environment", 1);
  auto demo = registerDemo(app_, invocation_, "agentvcr");
  parseRunnable({"demo", "--fixtures", "/given", "--db", "d.sqlite"});
  ::unsetenv("AGENTVCR_FIXTURES");
  EXPECT_EQ(demo.command->fixtures_dir, "/given");
  EXPECT_EQ(demo.command->db_path, "d.sqlite");
}

// --- ls, show, migrate ---

TEST_F(CommandLineTest, LsDefaultsToAllSessionsOfTheDefaultArchive) {
  auto ls = registerLs(app_, invocation_);
  parseRunnable({"ls"});
  EXPECT_EQ(ls.command->db_path, kDefaultArchive);
  EXPECT_FALSE(ls.command->session);
}

TEST_F(CommandLineTest, LsOfOneSession) {
  auto ls = registerLs(app_, invocation_);
  parseRunnable({"ls", "--db", "x.sqlite", "7"});
  EXPECT_EQ(ls.command->db_path, "x.sqlite");
  EXPECT_EQ(ls.command->session, 7);
}

TEST_F(CommandLineTest, ShowAConversationOrAnExchange) {
  auto show = registerShow(app_, invocation_);
  parseRunnable({"show", "--exchange", "4", "--bodies"});
  EXPECT_EQ(show.command->db_path, kDefaultArchive);
  EXPECT_FALSE(show.command->conversation);
  EXPECT_EQ(show.command->exchange, 4);
  EXPECT_TRUE(show.command->bodies);
}

TEST_F(CommandLineTest, ShowNeedsSomethingToShow) {
  registerShow(app_, invocation_);
  auto [status, err] = usageError({"show"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err, "agentvcr show: give a conversation id or --exchange ID\n");
}

TEST_F(CommandLineTest, ShowTakesAConversationOrAnExchangeNotBoth) {
  registerShow(app_, invocation_);
  EXPECT_EQ(parse({"show", "3", "--exchange", "4"}),
            static_cast<int>(CLI::ExitCodes::ExcludesError));
}

TEST_F(CommandLineTest, MigrateRunsOnTheGivenArchive) {
  auto migrate = registerMigrate(app_, invocation_);
  const auto missing = fs::temp_directory_path() / "agentvcr-unit-cli-missing.sqlite";
  fs::remove(missing);
  parseRunnable({"migrate", "--db", missing.string()});
  EXPECT_EQ(migrate.command->db_path, missing.string());
  // The parsed command really runs: a missing archive is an input error, reported on err.
  EXPECT_EQ(execute(invocation_, out_, err_), kExitUsage);
  EXPECT_EQ(err_.str().rfind("agentvcr: ", 0), 0u) << err_.str();
}

TEST_F(CommandLineTest, AnErrorQuotingAnArgumentLosesEveryPartOfItsPassword) {
  registerMigrate(app_, invocation_);
  // A keyword list given where a file was expected, its password's second word unquoted: libpq
  // would stop at that word, so all of it may be the password.
  const std::vector<std::string> args = {"migrate", "--db", "host=db password=Qz8 Wx4Lk2"};
  parseRunnable(args);
  invocation_.arguments = args;
  EXPECT_EQ(execute(invocation_, out_, err_), kExitUsage);
  EXPECT_NE(err_.str().find("host=db password=***"), std::string::npos) << err_.str();
  EXPECT_EQ(err_.str().find("Qz8"), std::string::npos) << err_.str();
  EXPECT_EQ(err_.str().find("Wx4Lk2"), std::string::npos) << err_.str();
}

TEST_F(CommandLineTest, MigrateDefaultsToTheDefaultArchive) {
  auto migrate = registerMigrate(app_, invocation_);
  parseRunnable({"migrate"});
  EXPECT_EQ(migrate.command->db_path, kDefaultArchive);
}

TEST_F(CommandLineTest, ReindexTakesTheArchiveAndRepeatedSessions) {
  auto reindex = registerReindex(app_, invocation_);
  parseRunnable({"reindex", "--db", "run.sqlite", "--session", "2", "--session", "5"});
  EXPECT_EQ(reindex.command->db_path, "run.sqlite");
  EXPECT_EQ(reindex.command->sessions, (std::vector<std::int64_t>{2, 5}));
}

TEST_F(CommandLineTest, ReindexDefaultsToEverySessionOfTheDefaultArchive) {
  auto reindex = registerReindex(app_, invocation_);
  parseRunnable({"reindex"});
  EXPECT_EQ(reindex.command->db_path, kDefaultArchive);
  EXPECT_TRUE(reindex.command->sessions.empty());
}

// --- export, import, merge ---

TEST_F(CommandLineTest, ExportDefaultsAndOptions) {
  auto exporter = registerExport(app_, invocation_);
  parseRunnable(
      {"export", "--format", "har", "--session", "1", "--conversation", "5", "--out", "o.har"});
  EXPECT_EQ(exporter.command->db_path, kDefaultArchive);
  EXPECT_EQ(exporter.command->format, "har");
  EXPECT_EQ(exporter.command->sessions, std::vector<std::int64_t>{1});
  EXPECT_EQ(exporter.command->conversations, std::vector<std::int64_t>{5});
  EXPECT_EQ(exporter.command->out_path, "o.har");
}

TEST_F(CommandLineTest, ExportRefusesAnUnknownFormat) {
  registerExport(app_, invocation_);
  EXPECT_EQ(parse({"export", "--format", "xml"}), kValidationError);
}

TEST_F(CommandLineTest, ImportNeedsAnExistingInput) {
  registerImport(app_, invocation_);
  EXPECT_EQ(parse({"import"}), kRequiredError);
}

TEST_F(CommandLineTest, ImportRefusesAMissingInputFile) {
  registerImport(app_, invocation_);
  EXPECT_EQ(parse({"import", "/nonexistent/agentvcr-export.jsonl"}), kValidationError);
}

TEST_F(CommandLineTest, ImportOfAnExistingFile) {
  auto importer = registerImport(app_, invocation_);
  parseRunnable({"import", "--session-name", "again", AGENTVCR_FIXTURES_DIR "/demo/episodes.json"});
  EXPECT_EQ(importer.command->db_path, kDefaultArchive);
  EXPECT_EQ(importer.command->format, "jsonl");
  EXPECT_EQ(importer.command->session_name, "again");
  EXPECT_EQ(importer.command->in_path, AGENTVCR_FIXTURES_DIR "/demo/episodes.json");
}

TEST_F(CommandLineTest, MergeTakesOutThenInputs) {
  auto merge = registerMerge(app_, invocation_);
  const std::string input = AGENTVCR_FIXTURES_DIR "/demo/episodes.json";
  parseRunnable({"merge", "out.sqlite", input, input});
  EXPECT_EQ(merge.command->out_path, "out.sqlite");
  EXPECT_EQ(merge.command->in_paths, (std::vector<std::string>{input, input}));
}

TEST_F(CommandLineTest, MergeNeedsInputs) {
  registerMerge(app_, invocation_);
  EXPECT_EQ(parse({"merge", "out.sqlite"}), kRequiredError);
}

// --- eval, lint, stats ---

TEST_F(CommandLineTest, EvalOptions) {
  auto eval = registerEval(app_, invocation_);
  parseRunnable({"eval", "--agent", "http://live.test:8001", "--jobs", "8", "--one-by-one",
                 "--fail-under", "0.9", "--report", "r.json", "--session", "2"});
  const auto& command = *eval.command;
  EXPECT_EQ(command.config.db_path, kDefaultArchive);
  ASSERT_EQ(command.agents.size(), 1u);
  EXPECT_EQ(command.agents[0].host, "live.test");
  EXPECT_EQ(command.agents[0].port, 8001);
  EXPECT_EQ(command.config.jobs, 8u);
  EXPECT_TRUE(command.config.one_by_one);
  EXPECT_EQ(command.fail_under, 0.9);
  EXPECT_EQ(command.report_path, "r.json");
  EXPECT_EQ(command.config.selection.sessions, std::vector<std::int64_t>{2});
}

TEST_F(CommandLineTest, EvalComparesEveryAgentGivenInOrder) {
  auto eval = registerEval(app_, invocation_);
  parseRunnable({"eval", "--agent", "http://a.test:1", "--agent", "http://b.test:2/v2", "--agent",
                 "http://c.test:3"});
  const auto& agents = eval.command->agents;
  ASSERT_EQ(agents.size(), 3u);
  EXPECT_EQ(agents[0].toString(), "http://a.test:1");
  EXPECT_EQ(agents[1].toString(), "http://b.test:2/v2");
  EXPECT_EQ(agents[2].toString(), "http://c.test:3");
}

TEST_F(CommandLineTest, EvalNeedsAnHttpAgent) {
  registerEval(app_, invocation_);
  auto [status, err] = usageError({"eval", "--agent", "https://live.test"});
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(err,
            "agentvcr eval: --agent must be http://host[:port][/path], got 'https://live.test'\n");
}

TEST_F(CommandLineTest, EvalRefusesOutOfRangeNumbers) {
  registerEval(app_, invocation_);
  EXPECT_EQ(parse({"eval", "--agent", "http://a.test", "--jobs", "0"}), kValidationError);
}

TEST_F(CommandLineTest, LintDefaultsAndFormats) {
  auto lint = registerLint(app_, invocation_);
  parseRunnable({"lint", "--format", "json", "--session", "1", "--session", "2"});
  EXPECT_EQ(lint.command->db_path, kDefaultArchive);
  EXPECT_EQ(lint.command->format, "json");
  EXPECT_EQ(lint.command->sessions, (std::vector<std::int64_t>{1, 2}));
}

TEST_F(CommandLineTest, LintRefusesAnUnknownFormat) {
  registerLint(app_, invocation_);
  EXPECT_EQ(parse({"lint", "--format", "yaml"}), kValidationError);
}

TEST_F(CommandLineTest, StatsDefaults) {
  auto stats = registerStats(app_, invocation_);
  parseRunnable({"stats"});
  EXPECT_EQ(stats.command->db_path, kDefaultArchive);
  EXPECT_EQ(stats.command->format, "text");
  EXPECT_TRUE(stats.command->sessions.empty());
}

TEST_F(CommandLineTest, StatsRefusesAnUnknownFormat) {
  registerStats(app_, invocation_);
  EXPECT_EQ(parse({"stats", "--format", "csv"}), kValidationError);
}

TEST_F(CommandLineTest, SearchFillsEveryFilterAndJoinsTheWords) {
  auto search = registerSearch(app_, invocation_);
  parseRunnable({"search",
                 "--db",
                 "s.sqlite",
                 "--tool",
                 "press_button",
                 "--robot",
                 "panda",
                 "--status",
                 "error",
                 "--error-code",
                 "invalid_output",
                 "--min-latency-ms",
                 "2.5",
                 "--session",
                 "3",
                 "--limit",
                 "7",
                 "--json",
                 "press",
                 "the*"});
  const SearchCommand& command = *search.command;
  EXPECT_EQ(invocation_.command, "search");
  EXPECT_EQ(command.db_path, "s.sqlite");
  EXPECT_EQ(command.words, (std::vector<std::string>{"press", "the*"}));
  EXPECT_EQ(command.tool, "press_button");
  EXPECT_EQ(command.robot, "panda");
  EXPECT_EQ(command.status, "error");
  EXPECT_EQ(command.error_code, "invalid_output");
  EXPECT_EQ(command.min_latency_ms, 2.5);
  EXPECT_EQ(command.session, 3);
  EXPECT_EQ(command.limit, 7u);
  EXPECT_TRUE(command.json);
}

TEST_F(CommandLineTest, SearchDefaults) {
  auto search = registerSearch(app_, invocation_);
  parseRunnable({"search", "grace"});
  EXPECT_EQ(search.command->db_path, kDefaultArchive);
  EXPECT_EQ(search.command->limit, 200u);
  EXPECT_FALSE(search.command->json);
}

TEST_F(CommandLineTest, SearchRefusesAZeroLimit) {
  registerSearch(app_, invocation_);
  EXPECT_EQ(usageError({"search", "--limit", "0", "grace"}),
            std::make_pair(kExitUsage, std::string("agentvcr search: --limit takes 1 or more\n")));
}

// --- the whole app ---

TEST_F(CommandLineTest, RegisterAllOffersEveryCommand) {
  registerAll(app_, invocation_, "agentvcr");
  for (const char* name : {"record", "replay", "mock", "demo", "ls", "show", "migrate", "reindex",
                           "export", "import", "merge", "eval", "lint", "stats", "search"}) {
    EXPECT_NO_THROW(app_.get_subcommand(name)) << name;
  }
  EXPECT_NO_THROW(app_.get_subcommand("mock")->get_subcommand("magma"));
  EXPECT_NO_THROW(app_.get_subcommand("mock")->get_subcommand("a2a"));
  parseRunnable({"stats", "--db", "s.sqlite"});
  EXPECT_EQ(invocation_.command, "stats");
}

// --- exit statuses: one table for every command (command.hpp) ---

/// `agentvcr args...` as main() runs it, on the whole app: the status and what went to stderr.
std::pair<int, std::string> runAgentvcr(const std::vector<std::string>& args,
                                        std::string* printed = nullptr) {
  CLI::App app{"agentvcr"};
  app.require_subcommand(1);
  Invocation invocation;
  invocation.arguments = args;
  registerAll(app, invocation, "agentvcr");
  std::vector<const char*> argv{"agentvcr"};
  for (const auto& arg : args) {
    argv.push_back(arg.c_str());
  }
  std::ostringstream out;
  std::ostringstream err;
  const int status =
      parseAndExecute(app, invocation, static_cast<int>(argv.size()), argv.data(), out, err);
  if (printed != nullptr) {
    *printed = out.str();
  }
  return {status, err.str()};
}

class EveryCommandTest : public ::testing::TestWithParam<std::vector<std::string>> {};

// CLI11 has a status of its own for each kind of mistake (105, 106, 109, ...): none leaks.
TEST_P(EveryCommandTest, AnUnknownOptionIsAUsageErrorOfStatus2) {
  auto args = GetParam();
  args.push_back("--no-such-option");
  const auto [status, err] = runAgentvcr(args);
  EXPECT_EQ(status, kExitUsage) << err;
  EXPECT_NE(err, "");
}

INSTANTIATE_TEST_SUITE_P(
    Commands, EveryCommandTest,
    ::testing::Values(std::vector<std::string>{"record"}, std::vector<std::string>{"replay"},
                      std::vector<std::string>{"mock", "magma"},
                      std::vector<std::string>{"mock", "a2a"}, std::vector<std::string>{"demo"},
                      std::vector<std::string>{"ls"}, std::vector<std::string>{"show"},
                      std::vector<std::string>{"migrate"}, std::vector<std::string>{"reindex"},
                      std::vector<std::string>{"export"}, std::vector<std::string>{"import"},
                      std::vector<std::string>{"merge"}, std::vector<std::string>{"eval"},
                      std::vector<std::string>{"noise"}, std::vector<std::string>{"lint"},
                      std::vector<std::string>{"stats"}, std::vector<std::string>{"ship"},
                      std::vector<std::string>{"pull"}, std::vector<std::string>{"pg", "migrate"},
                      std::vector<std::string>{"pg", "prune"},
                      std::vector<std::string>{"pg", "unprune"},
                      std::vector<std::string>{"search"}));

TEST(ExitStatusTest, EachKindOfUsageErrorIs2) {
  // The cases: a port without a host (CLI11: 105), a missing option (106), and the
  // errors CLI11 cannot see (ours), no command at all, a command group without its command.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"record", "--upstream", "http://agent.test", "--listen", "18080"}, "--listen"},
      {{"mock", "magma"}, "--script"},
      {{"mock"}, "subcommand"},
      {{}, "subcommand"},
      {{"show", "--db", "a.sqlite"}, "give a conversation id"},
      {{"ls", "one"}, "session"},
  };
  for (const auto& [args, names] : cases) {
    const auto [status, err] = runAgentvcr(args);
    EXPECT_EQ(status, kExitUsage) << err;
    EXPECT_NE(err.find(names), std::string::npos) << err;
  }
}

TEST(ExitStatusTest, AnArchiveThatIsNotThereIsAnInputErrorNotAFailedCheck) {
  const auto missing = fs::temp_directory_path() / "agentvcr-unit-cli-no-such.sqlite";
  fs::remove(missing);
  const auto [status, err] = runAgentvcr({"stats", "--db", missing.string()});
  EXPECT_EQ(status, kExitUsage) << err;
  EXPECT_EQ(err, "agentvcr: [store.open] no archive at " + missing.string() +
                     ": check --db (`agentvcr record` or `demo` makes one)\n");
}

TEST(ExitStatusTest, HelpEndsWithTheTableAndExits0) {
  std::string printed;
  const auto [status, err] = runAgentvcr({"--help"}, &printed);
  EXPECT_EQ(status, kExitOk) << err;
  const std::string table = exitStatusHelp();
  const std::size_t at = printed.find(table);
  ASSERT_NE(at, std::string::npos) << printed;
  EXPECT_EQ(printed.substr(at + table.size()).find_first_not_of('\n'), std::string::npos)
      << "the table ends the help\n"
      << printed;
  for (const ExitStatusRow& row : kExitStatuses) {
    EXPECT_NE(table.find("  " + std::to_string(row.status) + "  "), std::string::npos) << table;
    EXPECT_NE(table.find(row.meaning), std::string::npos) << table;
  }
  EXPECT_NE(table.find("  3  ship: "), std::string::npos) << table;
}

TEST(ExecuteTest, NothingParsedIsAUsageError) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(execute(Invocation{}, out, err), kExitUsage);
}

TEST_F(CommandLineTest, RecordAndReplayHaveNoChaosUnlessAsked) {
  auto record = registerRecord(app_, invocation_);
  parseRunnable({"record", "--upstream", "http://agent.test"});
  EXPECT_EQ(record.command->config.relay.chaos, nullptr);
}

TEST_F(CommandLineTest, RecordTakesAChaosSpec) {
  auto record = registerRecord(app_, invocation_);
  parseRunnable({"record", "--upstream", "http://agent.test", "--chaos",
                 "error=0.2,latency=0.1,seed=9,latency_ms=50"});
  const auto& chaos = record.command->config.relay.chaos;
  ASSERT_NE(chaos, nullptr);
  EXPECT_EQ(chaos->spec().seed, 9u);
  EXPECT_EQ(chaos->spec().latency, std::chrono::milliseconds(50));
  ASSERT_EQ(chaos->spec().rates.size(), 2u);
  EXPECT_EQ(chaos->spec().rates[0].kind, protocol::FaultKind::Error);
}

TEST_F(CommandLineTest, ReplayHonoursTheChaosHeaderAlone) {
  auto replay = registerReplay(app_, invocation_);
  parseRunnable({"replay", "--chaos-header"});
  const auto& chaos = replay.command->config.chaos;
  ASSERT_NE(chaos, nullptr);
  EXPECT_TRUE(chaos->spec().rates.empty());
  EXPECT_EQ(chaos->decide({"POST", "/v1/responses", "{}", "error"}).fault,
            protocol::FaultKind::Error);
}

TEST_F(CommandLineTest, TheDemoRunsUnderChaosWhenAsked) {
  auto demo = registerDemo(app_, invocation_, "agentvcr");
  parseRunnable({"demo", "--fixtures", "fx", "--chaos", "error=0.2,seed=1"});
  ASSERT_NE(demo.command->chaos, nullptr);
  EXPECT_EQ(demo.command->chaos->spec().seed, 1u);
  EXPECT_NE(parse({"demo", "--chaos-header"}), std::nullopt);  // its caller sends no header
}

TEST_F(CommandLineTest, VersionPrintsTheVersionSessionsRecord) {
  registerAll(app_, invocation_, "agentvcr");
  EXPECT_EQ(parse({"--version"}), 0);
  EXPECT_EQ(out_.str(), std::string("agentvcr ") + store::agentvcrVersion() + "\n");
  EXPECT_FALSE(invocation_.run);
}

TEST_F(CommandLineTest, ABadChaosSpecIsAUsageErrorNamingTheItem) {
  registerReplay(app_, invocation_);
  EXPECT_NE(parse({"replay", "--chaos", "error=2"}), std::nullopt);
  EXPECT_NE(err_.str().find("between 0 and 1"), std::string::npos) << err_.str();
}

}  // namespace
}  // namespace agentvcr::cli
