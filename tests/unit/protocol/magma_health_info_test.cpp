#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "magma_bodies.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol::magma {
namespace {

using test::json;
using test::kFullHistoryInfo;
using test::kGptAgentInfo;
using test::summary;

// --- AgentHealth ---

TEST(AgentHealth, ReadyParses) {
  auto parsed = parseAgentHealth(json(R"({"status":"ready"})"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value->status, "ready");
}

TEST(AgentHealth, StatusDefaultsToReady) {
  auto parsed = parseAgentHealth(json("{}"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value->status, "ready");
}

TEST(AgentHealth, StatusIsTheLiteralReady) {
  for (const char* bad : {"\"starting\"", "\"Ready\"", "null", "true"}) {
    auto parsed = parseAgentHealth(json(std::string(R"({"status":)") + bad + "}"));
    EXPECT_EQ(summary(parsed.findings), R"(literal_error ["status"])") << bad;
  }
  auto parsed = parseAgentHealth(json(R"({"status":"busy"})"));
  ASSERT_EQ(parsed.findings.size(), 1U);
  EXPECT_EQ(parsed.findings[0].msg, "Input should be 'ready'");
}

TEST(AgentHealth, NotReadyBodyIsNotAHealth) {
  // The reference servers' 503 body.
  auto parsed = parseAgentHealth(json(R"({"detail":"Models are not ready"})"));
  EXPECT_EQ(summary(parsed.findings), R"(extra_forbidden ["detail"])");
}

TEST(AgentHealth, MustBeAnObject) {
  EXPECT_EQ(summary(parseAgentHealth(json(R"("ready")")).findings), "model_type []");
}

// --- AgentInfo ---

TEST(AgentInfo, FullHistoryInfoParses) {
  auto parsed = parseAgentInfo(json(kFullHistoryInfo));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  const AgentInfo& info = *parsed.value;
  EXPECT_EQ(info.protocol_version, "2.0");
  EXPECT_EQ(info.agent_id, "full-history-agent");
  EXPECT_EQ(info.agent_version, "2.0.0");
  EXPECT_EQ(info.specialized_coaching,
            (std::vector<std::string>{"failure", "suboptimal", "format"}));
  EXPECT_TRUE(info.coaching_resume);
  EXPECT_EQ(info.coaching_session_version, "1");
  EXPECT_FALSE(info.coaching_unavailable_reason);
  EXPECT_EQ(info.capabilities,
            (std::map<std::string, bool>{{"inference", true}, {"coaching", true}}));
}

TEST(AgentInfo, GptAgentInfoParses) {
  auto parsed = parseAgentInfo(json(kGptAgentInfo));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ(parsed.value->coaching_unavailable_reason, "Coaching is not available in gpt-agent");
  EXPECT_FALSE(parsed.value->coaching_session_version);
}

TEST(AgentInfo, DefaultsApply) {
  auto parsed = parseAgentInfo(
      json(R"({"agent_id":"a","agent_version":"1","capabilities":{"inference":true}})"));
  ASSERT_TRUE(parsed.ok()) << summary(parsed.findings);
  EXPECT_EQ(parsed.value->protocol_version, "2.0");
  EXPECT_TRUE(parsed.value->specialized_coaching.empty());
  EXPECT_FALSE(parsed.value->coaching_resume);
  EXPECT_FALSE(parsed.value->coaching_session_version);
  EXPECT_FALSE(parsed.value->coaching_unavailable_reason);
}

template <class Edit>
std::string infoFindingsAfter(Edit edit) {
  Json body = json(kFullHistoryInfo);
  edit(body);
  auto parsed = parseAgentInfo(body);
  EXPECT_EQ(parsed.ok(), parsed.findings.empty());
  return summary(parsed.findings);
}

TEST(AgentInfo, RequiredFields) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b.erase("agent_id"); }), R"(missing ["agent_id"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b.erase("agent_version"); }),
            R"(missing ["agent_version"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b.erase("capabilities"); }),
            R"(missing ["capabilities"])");
}

TEST(AgentInfo, StrictStrings) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["protocol_version"] = 2.0; }),
            R"(string_type ["protocol_version"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["agent_id"] = nullptr; }),
            R"(string_type ["agent_id"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["agent_version"] = 2; }),
            R"(string_type ["agent_version"])");
}

TEST(AgentInfo, ProtocolVersionIsNotCheckedHere) {
  // BENCH compares it to "2.0" itself; the model only wants a string.
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["protocol_version"] = "1.0"; }), "");
}

TEST(AgentInfo, SpecializedCoachingKinds) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) {
              b["specialized_coaching"] = {"failure", "style"};
            }),
            R"(literal_error ["specialized_coaching",1])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["specialized_coaching"] = "failure"; }),
            R"(list_type ["specialized_coaching"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["specialized_coaching"] = {"format"}; }), "");
}

TEST(AgentInfo, CoachingResumeStrictBool) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_resume"] = 1; }),
            R"(bool_type ["coaching_resume"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_resume"] = "true"; }),
            R"(bool_type ["coaching_resume"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_resume"] = nullptr; }),
            R"(bool_type ["coaching_resume"])");
}

TEST(AgentInfo, NullableStrings) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_session_version"] = nullptr; }), "");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_session_version"] = 1; }),
            R"(string_type ["coaching_session_version"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_unavailable_reason"] = "off"; }), "");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["coaching_unavailable_reason"] = false; }),
            R"(string_type ["coaching_unavailable_reason"])");
}

TEST(AgentInfo, CapabilitiesMapOfStrictBools) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["capabilities"] = Json::array(); }),
            R"(dict_type ["capabilities"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["capabilities"]["inference"] = 1; }),
            R"(bool_type ["capabilities","inference"])");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["capabilities"]["export"] = "yes"; }),
            R"(bool_type ["capabilities","export"])");
  // An open map: unknown capability names are fine, even an empty map.
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["capabilities"]["streaming"] = false; }), "");
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["capabilities"] = Json::object(); }), "");
}

TEST(AgentInfo, UnknownKeysRejected) {
  EXPECT_EQ(infoFindingsAfter([](Json& b) { b["model"] = "qwen"; }),
            R"(extra_forbidden ["model"])");
}

}  // namespace
}  // namespace agentvcr::protocol::magma
