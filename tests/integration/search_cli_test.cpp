// `agentvcr search` as a person runs it, the real binary over the demo's archive: the printed
// hits (conversation, number in the viewer's timeline, field, excerpt), every filter checked
// against what the archive holds, --json parsed back, exit 1 when nothing matches and 2 for a
// search that cannot be run.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/store/store_test_support.hpp"
#include "agentvcr/cli/command.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr_process.hpp"
#include "demo_archive_fixture.hpp"

namespace agentvcr::testing {
namespace {

using protocol::Json;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

/// What one `agentvcr search` printed, and its exit status.
struct SearchRun {
  int status = -1;
  std::string out;
  std::string err;
};

SearchRun runSearch(const TempDir& temp, const std::string& db_path,
                    const std::vector<std::string>& args) {
  std::vector<std::string> full = {"search", "--db", db_path};
  full.insert(full.end(), args.begin(), args.end());
  const std::string out = temp.file("search.out");
  const std::string err = temp.file("search.err");
  AgentvcrProcess process(full, out, err);
  SearchRun run;
  run.status = process.wait();
  run.out = readWhole(out);
  run.err = readWhole(err);
  return run;
}

/// A step of the archive with what the filters look at, read without search.
struct ArchiveStep {
  std::int64_t id = 0;
  std::int64_t session_id = 0;
  std::int64_t conversation_id = 0;
  std::int64_t number = 0;  ///< its place in steps() of its conversation, from 1
  std::int64_t latency_ns = -1;
  std::vector<store::CandidateRow> candidates;
};

std::vector<ArchiveStep> archiveSteps(const std::string& db_path) {
  const store::ArchiveReader reader(db_path);
  std::vector<ArchiveStep> all;
  for (const store::SessionRow& session : reader.sessions()) {
    for (const store::ConversationRow& conversation : reader.conversations(session.id)) {
      std::int64_t number = 0;
      for (const store::StepRow& step : reader.steps(conversation.id)) {
        ArchiveStep s;
        s.id = step.id;
        s.session_id = session.id;
        s.conversation_id = conversation.id;
        s.number = ++number;
        const auto exchange = reader.exchange(step.exchange_id);
        if (exchange && exchange->ended_ns) {
          s.latency_ns = *exchange->ended_ns - exchange->started_ns;
        }
        s.candidates = reader.candidates(step.id);
        all.push_back(std::move(s));
      }
    }
  }
  std::sort(all.begin(), all.end(),
            [](const ArchiveStep& a, const ArchiveStep& b) { return a.id < b.id; });
  return all;
}

/// Whether some candidate of `step` called a tool with `key` equal to `value`.
bool callsWith(const ArchiveStep& step, const std::string& key, const std::string& value) {
  for (const store::CandidateRow& candidate : step.candidates) {
    const Json tool_calls = Json::parse(candidate.tool_calls.value_or("[]"));
    for (const Json& call : tool_calls) {
      if (call.value(key, "") == value) {
        return true;
      }
    }
  }
  return false;
}

class SearchCliTest : public DemoArchiveTest {
 protected:
  SearchRun search(const std::vector<std::string>& args) {
    return runSearch(temp_, db_path_, args);
  }

  /// The hits of `--json` with `args`, parsed back; each one's number checked against the
  /// archive's own order of its conversation.
  Json jsonHits(const std::vector<std::string>& args, int expected_status = cli::kExitOk) {
    std::vector<std::string> with_json = args;
    with_json.push_back("--json");
    const SearchRun run = search(with_json);
    EXPECT_EQ(run.status, expected_status) << run.out << run.err;
    const Json report = Json::parse(run.out);
    EXPECT_EQ(report["count"], report["hits"].size());
    for (const Json& hit : report["hits"]) {
      for (const ArchiveStep& step : steps_) {
        if (hit["step_id"] == step.id) {
          EXPECT_EQ(hit["number"], step.number) << hit.dump();
          EXPECT_EQ(hit["conversation_id"], step.conversation_id) << hit.dump();
          EXPECT_EQ(hit["session_id"], step.session_id) << hit.dump();
        }
      }
    }
    return report["hits"];
  }

  static std::vector<std::int64_t> stepIdsOf(const Json& hits) {
    std::vector<std::int64_t> ids;
    for (const Json& hit : hits) {
      ids.push_back(hit["step_id"].get<std::int64_t>());
    }
    return ids;
  }

  /// The ids of the archive's steps for which `keep` holds.
  template <class Keep>
  std::vector<std::int64_t> stepsWhere(Keep keep) const {
    std::vector<std::int64_t> ids;
    for (const ArchiveStep& step : steps_) {
      if (keep(step)) {
        ids.push_back(step.id);
      }
    }
    return ids;
  }

  void SetUp() override {
    DemoArchiveTest::SetUp();
    steps_ = archiveSteps(db_path_);
  }

  std::vector<ArchiveStep> steps_;
};

// Conversation 2 forks at its first step: the timeline lists step 8 third and step 9 fifth.
TEST_F(SearchCliTest, NamesEachHitByItsConversationAndTimelineNumber) {
  const SearchRun run = search({"successfully", "depose"});
  EXPECT_EQ(run.status, cli::kExitOk) << run.err;
  EXPECT_EQ(run.out,
            "conversation 2 #3 (step 8, session 1)  env_feedback: …[Successfully] [depose] "
            "banana_1 to mutual_zone\", \"previous_tool_call\": {\"arm2\": {\"name\": "
            "\"deplace\", \"arguments\": {\"object\": \"banana…\n"
            "conversation 2 #5 (step 9, session 1)  env_feedback: …[Successfully] [depose] "
            "banana_1 to mutual_zone\", \"previous_tool_call\": {\"arm2\": {\"name\": "
            "\"deplace\", \"arguments\": {\"object\": \"banana…\n"
            "2 steps and calls\n");
  EXPECT_EQ(run.err, "");
}

TEST_F(SearchCliTest, FiltersWithAndWithoutWords) {
  SearchRun run = search({"--error-code", "invalid_output", "model"});
  EXPECT_EQ(run.status, cli::kExitOk) << run.err;
  EXPECT_EQ(run.out,
            "conversation 7 #1 (step 21, session 1)  error: [Model] parser rejected its raw "
            "response\n"
            "1 step or call\n");

  run = search({"mutual_zone", "--tool", "deplace"});
  EXPECT_EQ(run.status, cli::kExitOk) << run.err;
  EXPECT_EQ(run.out,
            "conversation 2 #1 (step 2, session 1)  instruction: Please move every damaged fruit "
            "to the [mutual zone].\n"
            "conversation 2 #2 (step 5, session 1)  output_raw: {\"say\": \"\", \"action\": "
            "{\"arm2\": {\"name\": \"deplace\", \"arguments\": {\"object\": \"banana_1\", "
            "\"target_area\": \"[mutual_zone]\"}}}}\n"
            // Its own env feedback names the zone: a prompt, which renders the step's input and
            // history, is the hit's field only when nothing else of the step matched.
            "conversation 2 #4 (step 6, session 1)  env_feedback: …robot arm1.\", "
            "\"previous_tool_call\": {\"arm1\": {\"name\": \"deplace\", \"arguments\": "
            "{\"object\": \"banana_1\", \"target_area\": \"[mutual_zone]\"}}}}\n"
            "3 steps and calls\n");

  // Without words a hit has no field: one place a line. --limit cuts, and says so.
  run = search({"--robot", "panda", "--tool", "press_button", "--limit", "3"});
  EXPECT_EQ(run.status, cli::kExitOk) << run.err;
  EXPECT_EQ(run.out,
            "conversation 1 #1 (step 1, session 1)\n"
            "conversation 3 #1 (step 3, session 1)\n"
            "conversation 3 #2 (step 7, session 1)\n"
            "3 steps and calls (the first 3: --limit raises it)\n");
}

TEST_F(SearchCliTest, EachFilterFindsExactlyTheStepsThatPassIt) {
  const auto ids = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--limit", "1000"});
    return stepIdsOf(jsonHits(args));
  };
  const auto some = [](const ArchiveStep& step, auto test) {
    return std::any_of(step.candidates.begin(), step.candidates.end(), test);
  };
  for (const std::string tool : {"press_button", "deplace"}) {
    const std::vector<std::int64_t> want =
        stepsWhere([&](const ArchiveStep& step) { return callsWith(step, "name", tool); });
    EXPECT_FALSE(want.empty()) << tool;
    EXPECT_THAT(ids({"--tool", tool}), ElementsAreArray(want)) << tool;
  }
  for (const std::string robot : {"panda", "arm2"}) {
    const std::vector<std::int64_t> want = stepsWhere(
        [&](const ArchiveStep& step) { return callsWith(step, "target_robot_name", robot); });
    EXPECT_FALSE(want.empty()) << robot;
    EXPECT_THAT(ids({"--robot", robot}), ElementsAreArray(want)) << robot;
  }
  for (const std::string status : {"completed", "error"}) {
    const std::vector<std::int64_t> want = stepsWhere([&](const ArchiveStep& step) {
      return some(step, [&](const store::CandidateRow& c) { return c.status == status; });
    });
    EXPECT_FALSE(want.empty()) << status;
    EXPECT_THAT(ids({"--status", status}), ElementsAreArray(want)) << status;
  }
  const std::vector<std::int64_t> invalid = stepsWhere([&](const ArchiveStep& step) {
    return some(step, [](const store::CandidateRow& c) {
      return c.status == "error" && c.error_code == std::string("invalid_output");
    });
  });
  EXPECT_FALSE(invalid.empty());
  EXPECT_THAT(ids({"--error-code", "invalid_output"}), ElementsAreArray(invalid));
  EXPECT_THAT(
      ids({"--session", "1"}),
      ElementsAreArray(stepsWhere([](const ArchiveStep& step) { return step.session_id == 1; })));

  // The latency filter, halfway between two latencies the archive holds.
  std::vector<std::int64_t> latencies;
  for (const ArchiveStep& step : steps_) {
    if (step.latency_ns >= 0) {
      latencies.push_back(step.latency_ns);
    }
  }
  std::sort(latencies.begin(), latencies.end());
  latencies.erase(std::unique(latencies.begin(), latencies.end()), latencies.end());
  ASSERT_GE(latencies.size(), 2u);
  const std::size_t middle = latencies.size() / 2;
  const std::int64_t threshold_ns = (latencies[middle - 1] + latencies[middle]) / 2;
  const std::vector<std::int64_t> slow =
      stepsWhere([&](const ArchiveStep& step) { return step.latency_ns >= threshold_ns; });
  EXPECT_FALSE(slow.empty());
  EXPECT_LT(slow.size(), steps_.size());
  EXPECT_THAT(ids({"--min-latency-ms", std::to_string(static_cast<double>(threshold_ns) / 1e6)}),
              ElementsAreArray(slow));
}

TEST_F(SearchCliTest, JsonCarriesWhatTheLinesSay) {
  const Json hits = jsonHits({"successfully", "depose"});
  ASSERT_EQ(hits.size(), 2u) << hits.dump(2);
  const store::ArchiveReader reader(db_path_);
  const std::int64_t want_steps[] = {8, 9};
  const std::int64_t want_numbers[] = {3, 5};
  for (std::size_t i = 0; i < 2; ++i) {
    const Json& hit = hits[i];
    EXPECT_EQ(hit["step_id"], want_steps[i]);
    EXPECT_EQ(hit["number"], want_numbers[i]);
    EXPECT_EQ(hit["conversation_id"], 2);
    EXPECT_EQ(hit["session_id"], 1);
    EXPECT_EQ(hit["exchange_id"], reader.step(want_steps[i])->exchange_id);
    EXPECT_TRUE(hit["a2a_call_id"].is_null());
    EXPECT_EQ(hit["field"], "env_feedback");
    EXPECT_THAT(hit["excerpt"].get<std::string>(), HasSubstr("[Successfully] [depose] banana_1"));
  }
  const SearchRun run = search({"successfully", "depose", "--json", "--limit", "1"});
  EXPECT_EQ(Json::parse(run.out)["limited"], true);
  EXPECT_EQ(Json::parse(run.out)["count"], 1);
}

TEST_F(SearchCliTest, NothingFoundExitsOne) {
  const SearchRun words = search({"lighthouse"});
  EXPECT_EQ(words.status, cli::kExitFailure);
  EXPECT_EQ(words.out, "no step or call matches\n");
  EXPECT_EQ(words.err, "");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--error-code", "crashed"},
                                             {"--session", "2"},
                                             {"press", "--robot", "arm2"},
                                             {"--min-latency-ms", "3600000"}}) {
    EXPECT_THAT(stepIdsOf(jsonHits(args, cli::kExitFailure)), ::testing::IsEmpty()) << args.front();
  }
}

TEST_F(SearchCliTest, ASearchThatCannotRunExitsTwoAndSaysWhy) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{},
       "nothing to search for: give words, or a filter (--tool, --robot, --status, "
       "--error-code, --min-latency-ms, --session)"},
      {{"  "}, "nothing to search for"},
      {{"--status", "failed"}, "--status takes completed or error"},
      {{"press", "--limit", "0"}, "--limit takes 1 or more"},
      {{"--min-latency-ms", "-5"}, "--min-latency-ms takes milliseconds from 0"},
  };
  for (const auto& [args, message] : cases) {
    const SearchRun run = search(args);
    EXPECT_EQ(run.status, cli::kExitUsage) << message;
    EXPECT_EQ(run.out, "") << message;
    EXPECT_THAT(run.err, HasSubstr("agentvcr search: " + message));
  }
  // What the command line itself refuses is a usage error too, never CLI11's own status.
  const SearchRun not_a_number = search({"--min-latency-ms", "abc"});
  EXPECT_EQ(not_a_number.status, cli::kExitUsage);
  EXPECT_THAT(not_a_number.err, HasSubstr("--min-latency-ms"));
  // An archive that is not there is an input error, not "nothing matched".
  TempDir elsewhere;
  const SearchRun missing = runSearch(elsewhere, elsewhere.file("none.sqlite"), {"press"});
  EXPECT_EQ(missing.status, cli::kExitUsage);
  EXPECT_THAT(missing.err, HasSubstr("none.sqlite"));
}

// An A2A call is numbered in its conversation (a context) as the viewer's call timeline does.
TEST(SearchCli, NumbersAnA2aCallInItsConversation) {
  namespace build = store::testing;
  TempDir temp;
  const std::string path = temp.file("a2a.sqlite");
  {
    store::Recorder recorder(path, build::testSession(), build::testOptions());
    build::submit(recorder,
                  build::httpExchange("POST", "/api/v1/a2a",
                                      build::a2aSend(1, "m-0", "Who wrote it?", "ctx-0"), 200,
                                      build::a2aTask(1, "t-0", "ctx-0", "completed", "A monk")));
    build::submit(recorder,
                  build::httpExchange(
                      "POST", "/api/v1/a2a", build::a2aSend(1, "m-1", "What is grace?", "ctx-1"),
                      200, build::a2aTask(1, "t-1", "ctx-1", "input-required", "More?")));
    build::submit(recorder,
                  build::httpExchange(
                      "POST", "/api/v1/a2a", build::a2aSend(2, "m-2", "Sanctifying grace", "ctx-1"),
                      200, build::a2aTask(2, "t-1", "ctx-1", "completed", "It is a gift")));
    recorder.flush();
  }
  const SearchRun run = runSearch(temp, path, {"gift"});
  EXPECT_EQ(run.status, cli::kExitOk) << run.err;
  // Call 3 is the second call of its context.
  EXPECT_EQ(run.out,
            "conversation 2 #2 (A2A call 3, session 1)  a2a_response: It is a [gift]\n"
            "1 step or call\n");
}

}  // namespace
}  // namespace agentvcr::testing
