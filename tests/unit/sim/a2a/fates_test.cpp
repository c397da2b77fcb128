// Scripted task fates (docs/a2a-mock.md, "Scripted task fates"): fates.json read and refused,
// the messageId and text conventions, and each outcome through the engine in v0.3 and v1.0,
// sent and streamed.

#include "agentvcr/sim/a2a/fates.hpp"

#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using testing::Dialect;
using testing::Harness;
using testing::kV03;
using testing::kV10;
using testing::parse;
using testing::request;

TEST(FateTable, RefusesWhatIsNotAScript) {
  const std::pair<const char*, const char*> bad[] = {
      {R"([])", "expected {\"fates\""},
      {R"({"fates":[{"turns":[{}]}]})", "non-empty name"},
      {R"({"fates":[{"name":"x","turns":[]}]})", "turns must be a non-empty array"},
      {R"({"fates":[{"name":"x","turns":[{"state":"done"}]}]})", "unknown state 'done'"},
      {R"({"fates":[{"name":"x","turns":[{"message":true,"state":"failed"}]}]})",
       "a message reply has no state"},
      {R"({"fates":[{"name":"x","turns":[{"artifact":[{"text":"no kind"}]}]}]})", "v0.3 part"},
      {R"({"fates":[{"name":"x","turns":[{"updates":101}]}]})", "updates must be 0 to 100"},
      {R"({"fates":[{"name":"x","prefixes":[""],"turns":[{}]}]})", "non-empty strings"},
  };
  for (const auto& [text, error] : bad) {
    const FateTableLoad load = FateTable::fromJson(parse(text));
    EXPECT_FALSE(load.table) << text;
    EXPECT_NE(load.error.find(error), std::string::npos) << text << ": " << load.error;
  }
}

TEST(FateTable, ABadFatesFileStopsTheFixturesWithItsName) {
  std::ifstream skills_file(std::string(AGENTVCR_FIXTURES_DIR) + "/a2a/standard/skills.json");
  const std::string skills((std::istreambuf_iterator<char>(skills_file)),
                           std::istreambuf_iterator<char>());
  const FixturesLoad load =
      fixturesFromText(R"({"name":"x"})", skills, std::nullopt, R"({"fates":{}})");
  EXPECT_FALSE(load.fixtures);
  EXPECT_NE(load.error.find("fates.json: expected"), std::string::npos) << load.error;
}

TEST(FateTable, AMessageNamesItsFateByIdPrefixOrByText) {
  const FateTableLoad load = FateTable::fromJson(
      parse(R"({"fates":[{"name":"file","prefixes":["tck-artifact-file"],"turns":[{}]},)"
            R"({"name":"url","prefixes":["tck-artifact-file-url"],"turns":[{}]}]})"));
  ASSERT_TRUE(load.table) << load.error;
  const auto fateOf = [&](const std::string& message_id, const std::string& text = "hi") {
    const Json message = {{"messageId", message_id},
                          {"parts", Json::array({{{"kind", "text"}, {"text", text}}})}};
    const auto fate = load.table->forMessage(message);
    return fate ? fate->name : std::string("none");
  };
  EXPECT_EQ(fateOf("tck-artifact-file-url-9f3a"), "url") << "the longest prefix wins";
  EXPECT_EQ(fateOf("tck-artifact-file-9f3a"), "file");
  EXPECT_EQ(fateOf("tck-artifact-fil"), "none");
  EXPECT_EQ(fateOf("fate-url-1"), "url");
  EXPECT_EQ(fateOf("m-1", "[fate:file] please"), "file");
  EXPECT_EQ(fateOf("fate-stream-4"), "stream-4");
  EXPECT_EQ(fateOf("fate-stream-0"), "none");
  EXPECT_EQ(fateOf("fate-stream-101"), "none");
  EXPECT_EQ(fateOf("m-1", "[fate:nothing] please"), "none");
  EXPECT_EQ(fateOf("a-message"), "none");
  EXPECT_EQ(fateOf(""), "none");
}

class Fates : public ::testing::TestWithParam<Dialect> {
 protected:
  Harness mock_{testing::standardConfig()};
  const Dialect& wire_ = GetParam();

  protocol::HttpReply post(const std::string& body) { return mock_.postAs(wire_, body); }

  /// The result of a send of `message`.
  Json send(const Json& message) {
    const Json response = parse(post(request(1, wire_.send, {{"message", message}})).body);
    EXPECT_TRUE(response.contains("result")) << response.dump();
    return response["result"];
  }

  Json task(const Json& message) {
    const Json result = send(message);
    return wire_.v10() ? result["task"] : result;
  }

  /// The results of a stream of `message`, one per event.
  std::vector<Json> stream(const Json& message) {
    const protocol::HttpReply reply = post(request(1, wire_.stream, {{"message", message}}));
    std::vector<Json> events;
    for (const auto& piece : reply.stream) {
      events.push_back(parse(piece.bytes.substr(6))["result"]);
    }
    return events;
  }
};

TEST_P(Fates, EachOutcomeOnAskingForIt) {
  const Json completed = task(wire_.message("hi", "fate-complete-1"));
  EXPECT_EQ(completed["status"]["state"], wire_.state("completed"));
  EXPECT_EQ(completed["status"]["message"]["parts"][0]["text"], "Done, as asked");
  EXPECT_EQ(task(wire_.message("[fate:fail] now", "m-2"))["status"]["state"],
            wire_.state("failed"));
  EXPECT_EQ(task(wire_.message("hi", "fate-reject-3"))["status"]["state"], wire_.state("rejected"));
  const Json data = task(wire_.message("hi", "tck-artifact-data-77"));
  EXPECT_EQ(data["artifacts"][0]["parts"][0]["data"], parse(R"({"key":"value","count":42})"));
  const Json url = task(wire_.message("hi", "tck-artifact-file-url-77"));
  const Json& part = url["artifacts"][0]["parts"][0];
  EXPECT_EQ(wire_.v10() ? part["url"] : part["file"]["uri"], "https://example.com/output.txt");
}

TEST_P(Fates, InputRequiredThenCompleteTakesTwoTurns) {
  const Json first = task(wire_.message("hi", "fate-input-then-complete"));
  EXPECT_EQ(first["status"]["state"], wire_.state("input-required"));
  EXPECT_EQ(first["status"]["message"]["parts"][0]["text"], "Tell me more");
  Json more = wire_.message("here is more", "m-2");
  more["taskId"] = first["id"];
  const Json second = task(more);
  EXPECT_EQ(second["id"], first["id"]);
  EXPECT_EQ(second["status"]["state"], wire_.state("completed"));
  EXPECT_EQ(second["artifacts"][0]["parts"][0]["text"], "Done after two turns");
}

TEST_P(Fates, AMessageReplyIsAMessageAndNoTask) {
  const Json result = send(wire_.message("hi", "tck-message-response-5"));
  const Json& message = wire_.v10() ? result["message"] : result;
  ASSERT_TRUE(message.is_object()) << result.dump();
  if (!wire_.v10()) {
    EXPECT_EQ(result["kind"], "message");
  }
  EXPECT_EQ(message["role"], wire_.v10() ? "ROLE_AGENT" : "agent");
  EXPECT_EQ(message["parts"][0]["text"], "Direct message response");
  EXPECT_FALSE(message.contains("taskId"));
  const std::vector<Json> events = stream(wire_.message("hi", "fate-message"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ((wire_.v10() ? events[0]["message"] : events[0])["parts"][0]["text"],
            "A direct reply, as asked");
}

TEST_P(Fates, AStreamOfNUpdatesThenTheOutcome) {
  const std::vector<Json> events = stream(wire_.message("hi", "fate-stream-3"));
  // The task, working, three working updates, the artifact, the final status.
  ASSERT_EQ(events.size(), 7u);
  const auto status = [&](const Json& event) {
    return (wire_.v10() ? event["statusUpdate"] : event)["status"];
  };
  for (std::size_t i = 1; i <= 4; ++i) {
    EXPECT_EQ(status(events[i])["state"], wire_.state("working")) << i;
  }
  EXPECT_EQ(status(events[4])["message"]["parts"][0]["text"], "Update 3 of 3");
  const Json& artifact = wire_.v10() ? events[5]["artifactUpdate"] : events[5];
  EXPECT_EQ(artifact["artifact"]["parts"][0]["text"], "Streamed 3 updates");
  EXPECT_EQ(status(events[6])["state"], wire_.state("completed"));
}

TEST_P(Fates, AChunkedArtifactStreamsPartByPart) {
  const std::vector<Json> events = stream(wire_.message("hi", "tck-stream-artifact-chunked-1"));
  ASSERT_EQ(events.size(), 5u);
  for (const auto& [index, text, append, last] :
       {std::tuple{2, "chunk-1 ", false, false}, std::tuple{3, "chunk-2", true, true}}) {
    const Json& update = wire_.v10() ? events[index]["artifactUpdate"] : events[index];
    EXPECT_EQ(update["artifact"]["parts"][0]["text"], text);
    EXPECT_EQ(update["append"], append);
    EXPECT_EQ(update["lastChunk"], last);
  }
}

TEST_P(Fates, AMessageWithoutAFateGetsTheSkillsAnswer) {
  EXPECT_EQ(task(wire_.message("hi", "m-1"))["status"]["state"], wire_.state("input-required"));
}

INSTANTIATE_TEST_SUITE_P(BothVersions, Fates, ::testing::Values(kV03, kV10),
                         [](const ::testing::TestParamInfo<Dialect>& wire) {
                           return wire.param.v10() ? std::string("v10") : std::string("v03");
                         });

TEST(FatesMagisterium, AreNotPlayedByMagisteriumsProfile) {
  Harness mock(testing::magisteriumConfig());
  Json message = parse(R"({"kind":"message","messageId":"fate-stream-3","role":"user",)"
                       R"("parts":[{"kind":"text","text":"[fate:fail] What is grace?"}]})");
  const Json answer = mock.call(request(1, "message/send", {{"message", message}}));
  EXPECT_EQ(answer["result"]["status"]["state"], "completed") << answer.dump();
}

}  // namespace
}  // namespace agentvcr::sim::a2a
