// `agentvcr noise` on real archives, and `agentvcr replay --ignore-file` reading what it wrote.

#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "stamped_episodes.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class NoiseCommandTest : public ::testing::Test {
 protected:
  /// The `[input]` and `[output]` sections of noise's output, comments after paths kept.
  static std::string sections(const std::string& text) {
    const std::size_t start = text.find("[input]");
    return start == std::string::npos ? "<no [input] section in: " + text + ">"
                                      : text.substr(start);
  }

  TempDir dir_;
  std::string db_ = dir_.file("runs.sqlite");
};

TEST_F(NoiseCommandTest, ListsExactlyTheTimestampAndUuidThatVaryBetweenTwoRecordings) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  recordStampedEpisode(db_, "tuesday", kTuesdayRun);
  ParsedCommandLine noise({"noise", "--db", db_, "--session", "1", "--session", "2"});
  ASSERT_EQ(noise.run(), cli::kExitOk) << noise.out() << noise.err();
  EXPECT_EQ(sections(noise.out()),
            "[input]\n"
            "/attributes/clock  # timestamp (ISO 8601), varies in 2 of 2 aligned steps\n"
            "/attributes/trace_id  # UUID, varies in 2 of 2 aligned steps\n"
            "\n[output]\n"
            "/output/tool_calls/0/arguments/pressed_at  # timestamp (ISO 8601), varies in 1 of "
            "2 aligned steps\n");
  EXPECT_THAT(noise.out(), HasSubstr("# sessions 1 (base), 2; 2 aligned steps"));
}

TEST_F(NoiseCommandTest, TwoIdenticalRecordingsHaveNoNoise) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  recordStampedEpisode(db_, "monday-again", kMondayRun);
  ParsedCommandLine noise({"noise", "--db", db_, "--session", "1", "--session", "2"});
  ASSERT_EQ(noise.run(), cli::kExitOk) << noise.out() << noise.err();
  EXPECT_EQ(sections(noise.out()), "[input]\n\n[output]\n");
  EXPECT_THAT(noise.out(), HasSubstr("aligned 2 of 2 steps"));
}

TEST_F(NoiseCommandTest, SaysWhatIsMissingInsteadOfGuessing) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  ParsedCommandLine alone({"noise", "--db", db_});
  EXPECT_EQ(alone.run(), cli::kExitUsage);
  EXPECT_THAT(alone.out(), HasSubstr("session 1 has no evaluation to compare with"));
  ParsedCommandLine unknown({"noise", "--db", db_, "--session", "1", "--session", "9"});
  EXPECT_EQ(unknown.run(), cli::kExitUsage);
  EXPECT_THAT(unknown.out(), HasSubstr("no session 9"));
  ParsedCommandLine no_archive({"noise", "--db", dir_.file("missing.sqlite")});
  EXPECT_EQ(no_archive.run(), cli::kExitUsage);
  EXPECT_THAT(no_archive.err(), HasSubstr("missing.sqlite"));
}

TEST_F(NoiseCommandTest, ReplayWithTheIgnoreFileHitsWhereItMissedWithoutIt) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  recordStampedEpisode(db_, "tuesday", kTuesdayRun);
  const std::string ignore_file = dir_.file("noise.txt");
  ParsedCommandLine noise(
      {"noise", "--db", db_, "--session", "1", "--session", "2", "--out", ignore_file});
  ASSERT_EQ(noise.run(), cli::kExitOk) << noise.out() << noise.err();
  EXPECT_THAT(noise.out(), HasSubstr("2 input and 1 output paths from 2 aligned steps"));
  // A third run of the episode, asked of the replay of the first.
  const EpisodeStamps wednesday = {"2026-12-02T10:00:00Z", "16fd2706-8baf-433b-82eb-8c7fada847da",
                                   "2026-12-02T10:00:01Z"};
  const protocol::Json request = stampedRequest(wednesday, 0, "wednesday-1");

  const protocol::Json missed = ReplayAgent({"replay", "--db", db_, "--session", "1"}).ask(request);
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_EQ(missed[0]["status"], "error");
  const std::string reason = missed[0]["error"]["message"].get<std::string>();
  EXPECT_THAT(reason, HasSubstr("only volatile values differ"));
  EXPECT_THAT(reason, HasSubstr("--ignore /attributes/clock --ignore /attributes/trace_id"));

  const protocol::Json hit =
      ReplayAgent({"replay", "--db", db_, "--session", "1", "--ignore-file", ignore_file})
          .ask(request);
  ASSERT_EQ(hit.size(), 1u);
  EXPECT_EQ(hit[0]["status"], "completed") << hit.dump();
  EXPECT_EQ(hit[0]["output"]["tool_calls"][0]["arguments"]["pressed_at"], kMondayRun.pressed_at);
}

TEST_F(NoiseCommandTest, AMissOnContentGetsNoNoiseHint) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  protocol::Json request = stampedRequest(kMondayRun, 0, "other-1");
  request["inputs"][0]["instruction"]["content"] = "Please press sw2";
  const protocol::Json missed = ReplayAgent({"replay", "--db", db_}).ask(request);
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_THAT(missed[0]["error"]["message"].get<std::string>(),
              Not(HasSubstr("only volatile values differ")));
}

TEST_F(NoiseCommandTest, ReplayRefusesABadIgnoreFileNamingItsLine) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  const std::string ignore_file = dir_.file("bad.txt");
  std::ofstream(ignore_file) << "[input]\n/attributes/clock\n[inputs]\n";
  ParsedCommandLine replay({"replay", "--db", db_, "--ignore-file", ignore_file});
  EXPECT_EQ(replay.run(), cli::kExitUsage);
  EXPECT_THAT(replay.err(), HasSubstr(ignore_file + ":3: unknown section [inputs]"));
}

TEST_F(NoiseCommandTest, ReplayAppendsEachMissToTheMissLogAsOneJsonLine) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  protocol::Json request = stampedRequest(kMondayRun, 0, "other-1");
  request["inputs"][0]["instruction"]["content"] = "Please press sw2";
  const std::string miss_log = dir_.file("misses.jsonl");
  {
    ReplayAgent replay({"replay", "--db", db_, "--miss-log", miss_log});
    replay.ask(request);
    replay.ask(request);
  }
  std::ifstream file(miss_log);
  std::vector<protocol::Json> lines;
  for (std::string line; std::getline(file, line);) {
    lines.push_back(protocol::Json::parse(line));
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["event"], "replay_miss");
  EXPECT_EQ(lines[0]["request_id"], "other-1");
  EXPECT_THAT(lines[0]["reason"].get<std::string>(), Not(HasSubstr("\n")));
  EXPECT_THAT(lines[0]["differences"].dump(), HasSubstr("/instruction/content"));
}

TEST_F(NoiseCommandTest, ReplayRefusesAMissLogItCannotWrite) {
  recordStampedEpisode(db_, "monday", kMondayRun);
  ParsedCommandLine replay({"replay", "--db", db_, "--miss-log", dir_.file("no/such/dir.jsonl")});
  EXPECT_EQ(replay.run(), cli::kExitUsage);
  EXPECT_THAT(replay.err(), HasSubstr("--miss-log: cannot write"));
}

}  // namespace
}  // namespace agentvcr::testing
