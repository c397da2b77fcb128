// `agentvcr eval` as a CI gate: 0 when every step matches, 1 when one differs (unless
// --fail-under accepts the rate), 2 when nothing could be evaluated. The live agent is a replay
// on loopback of another recording of the same episode; --ignore-file on either side takes the
// recordings' clocks, ids and stamps out.

#include <fstream>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/eval_command.hpp"
#include "stamped_episodes.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::HasSubstr;

class EvalExitStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    recordStampedEpisode(db_, "monday", kMondayRun);
    recordStampedEpisode(db_, "tuesday", kTuesdayRun);
    ParsedCommandLine noise(
        {"noise", "--db", db_, "--session", "1", "--session", "2", "--out", ignore_file_});
    ASSERT_EQ(noise.run(), cli::kExitOk) << noise.out() << noise.err();
  }

  /// `agentvcr eval` of Monday's recording against `agent`, with `more` arguments.
  int eval(const std::string& agent, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"eval", "--db", db_, "--agent", agent, "--session", "1"};
    args.insert(args.end(), more.begin(), more.end());
    ParsedCommandLine command(args);
    const int status = command.run();
    output_ = command.out() + command.err();
    return status;
  }

  TempDir dir_;
  std::string db_ = dir_.file("runs.sqlite");
  std::string ignore_file_ = dir_.file("noise.txt");
  std::string output_;
};

TEST_F(EvalExitStatusTest, ADifferingStepFailsUnlessFailUnderAcceptsTheRate) {
  // Tuesday's replay misses Monday's inputs (other clocks): error candidates, 0 of 2 matched.
  ReplayAgent tuesday({"replay", "--db", db_, "--session", "2"});
  EXPECT_EQ(eval(tuesday.url()), cli::kExitFailure) << output_;
  EXPECT_THAT(output_, HasSubstr("FAILED: 2 of 2 steps differ"));
  EXPECT_EQ(eval(tuesday.url(), {"--fail-under", "0"}), cli::kExitOk) << output_;
  EXPECT_EQ(eval(tuesday.url(), {"--fail-under", "0.5"}), cli::kExitFailure) << output_;
}

TEST_F(EvalExitStatusTest, TheIgnoreFileTakesTheNoiseOutOfBothSides) {
  // Keyed without the clock and trace id, the replay hits, but its tool call was stamped on
  // Tuesday: the first step differs until eval leaves the stamp out too.
  ReplayAgent tuesday({"replay", "--db", db_, "--session", "2", "--ignore-file", ignore_file_});
  EXPECT_EQ(eval(tuesday.url()), cli::kExitFailure) << output_;
  EXPECT_THAT(output_, HasSubstr("FAILED: 1 of 2 steps differ"));
  EXPECT_EQ(eval(tuesday.url(), {"--ignore-file", ignore_file_}), cli::kExitOk) << output_;

  // The evaluations are recordings of the episode too: noise aligns them through their links.
  ParsedCommandLine noise({"noise", "--db", db_, "--session", "1"});
  ASSERT_EQ(noise.run(), cli::kExitOk) << noise.out() << noise.err();
  EXPECT_THAT(noise.out(), HasSubstr("its evaluation in session"));
  EXPECT_THAT(noise.out(),
              HasSubstr("[input]\n\n[output]\n/output/tool_calls/0/arguments/pressed_at  # "
                        "timestamp (ISO 8601), varies in 2 of 4 aligned steps\n"));
}

TEST_F(EvalExitStatusTest, NothingEvaluatedIsTwo) {
  ReplayAgent monday({"replay", "--db", db_, "--session", "1"});
  EXPECT_EQ(eval(monday.url()), cli::kExitOk) << output_;

  const std::string garbage = dir_.file("garbage.sqlite");
  std::ofstream(garbage) << "this is not an SQLite archive, only text long enough to be read";
  ParsedCommandLine unreadable({"eval", "--db", garbage, "--agent", monday.url()});
  EXPECT_EQ(unreadable.run(), 2) << unreadable.out() << unreadable.err();
  EXPECT_THAT(unreadable.out(), HasSubstr("agentvcr eval: cannot evaluate"));

  std::string down_url;
  {
    ReplayAgent gone({"replay", "--db", db_, "--session", "1"});
    down_url = gone.url();
  }
  EXPECT_EQ(eval(down_url), 2) << output_;
  EXPECT_THAT(output_, HasSubstr("refusing to evaluate"));

  const std::string bad_ignore = dir_.file("bad.txt");
  std::ofstream(bad_ignore) << "/output/say\n";
  EXPECT_EQ(eval(monday.url(), {"--ignore-file", bad_ignore}), 2) << output_;
  EXPECT_THAT(output_, HasSubstr("bad.txt:1:"));
}

TEST_F(EvalExitStatusTest, HelpNamesTheExitStatuses) {
  CLI::App app;
  cli::Invocation invocation;
  const auto eval = cli::registerEval(app, invocation);
  EXPECT_THAT(eval.subcommand->help(), HasSubstr("Exit status: 0 every step matched"));
}

}  // namespace
}  // namespace agentvcr::testing
