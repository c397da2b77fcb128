#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "protocol_test_util.hpp"

namespace agentvcr::protocol::magma {
namespace {

using test::json;

// Node 41 of magma-protocol.md §19 B1, trimmed.
constexpr const char* kNode41 =
    R"({"id":41,"instruction":{"type":"user","content":"Please move every damaged fruit to the mutual zone."},
  "tools":[{"name":"get_objects_state","description":"Return all known objects grouped by area and indicate which objects are damaged.","arguments":{}}],
  "attributes":{"zones":["left_zone","mutual_zone","right_zone"],"known_robots":["arm1","arm2"],"robot_statuses":{"arm1":"FREE","arm2":"FREE"}},
  "memory":{"memory_list":["Only arm1 can inspect objects."],"history":[]},"num_outputs":2,"extra_keys":{"inference_mode":false}})";

TEST(ReplayKey, IgnoresTheId) {
  Json a = json(kNode41);
  Json b = a;
  b["id"] = 88;
  EXPECT_EQ(replayKey(a), replayKey(b));
}

TEST(ReplayKey, IsTheCanonicalHashWithoutId) {
  Json input = json(kNode41);
  Json without = input;
  without.erase("id");
  EXPECT_EQ(replayKey(input), canonicalHash(without));
}

TEST(ReplayKey, IgnoresSpacingKeyOrderAndEscapes) {
  // BENCH sends ", " separators and ASCII escapes; the agent echoes raw UTF-8 memory.
  Json bench = json(R"({"id": 0, "instruction": {"type": "user", "content": "caf\u00e9"},
      "memory": {"history": [], "note": "\u00e9"}, "num_outputs": 1})");
  Json compact = json(
      "{\"num_outputs\":1,\"memory\":{\"note\":\"\xc3\xa9\",\"history\":[]},"
      "\"instruction\":{\"content\":\"caf\xc3\xa9\",\"type\":\"user\"},\"id\":5}");
  EXPECT_EQ(replayKey(bench), replayKey(compact));
}

TEST(ReplayKey, DefaultsSpelledOrOmittedHashEqually) {
  Json full = json(R"({"id": 1, "instruction": {"type": "user", "content": "x"},
      "tools": [], "attributes": {}, "memory": {}, "num_outputs": 1, "extra_keys": {}})");
  Json bare = json(R"({"id": 1, "instruction": {"type": "user", "content": "x"}})");
  EXPECT_EQ(replayKey(full), replayKey(bare));
}

TEST(ReplayKey, TypedAndRawInputsAgree) {
  Json raw = json(kNode41);
  auto parsed = parseAgentInput(raw);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(replayKey(raw), replayKey(*parsed.value));
}

TEST(ReplayKey, MalformedIdStillNormalises) {
  Json good = json(R"({"id": 1, "instruction": {"type": "user", "content": "x"}})");
  Json bad_id = json(R"({"id": "1", "instruction": {"type": "user", "content": "x"}})");
  EXPECT_EQ(replayKey(good), replayKey(bad_id));
  Json no_id = json(R"({"instruction": {"type": "user", "content": "x"}, "tools": []})");
  EXPECT_EQ(replayKey(good), replayKey(no_id));
}

TEST(ReplayKey, InvalidInputsFallBackToRawCanonicalWithoutId) {
  Json invalid =
      json(R"({"id": 1, "instruction": {"type": "robot", "content": "x"}, "tools": []})");
  Json without = invalid;
  without.erase("id");
  EXPECT_EQ(replayKey(invalid), canonicalHash(without));
  EXPECT_EQ(replayKey(json("[1, 2]")), canonicalHash(json("[1, 2]")));
}

TEST(ReplayKey, CoachedInputDiffersFromUncoached) {
  // §19 B3: input 88 differs from node 41 only by extra_keys.coaching.
  Json node41 = json(kNode41);
  Json input88 = node41;
  input88["id"] = 88;
  input88["num_outputs"] = 1;
  Json uncoached88 = input88;
  input88["extra_keys"]["coaching"] = json(R"({"kind":"replace_decision","decision":{"say":"",
      "tool_calls":[{"name":"get_objects_state","arguments":{},"target_robot_name":"arm1"}]}})");
  EXPECT_NE(replayKey(input88), replayKey(uncoached88));
}

TEST(ReplayKey, EveryContentFieldMatters) {
  Json base = json(kNode41);
  std::uint64_t key = replayKey(base);
  for (const char* field : {"instruction", "tools", "attributes", "memory", "extra_keys"}) {
    Json changed = base;
    changed[field] = field == std::string("tools") ? Json::array() : Json::object();
    if (std::string(field) == "instruction") {
      changed[field] = {{"type", "env"}, {"content", "x"}};
    }
    EXPECT_NE(replayKey(changed), key) << field;
  }
  Json fewer = base;
  fewer["num_outputs"] = 1;
  EXPECT_NE(replayKey(fewer), key);
}

TEST(ReplayKey, IntegerAndFloatMemoryValuesDiffer) {
  Json a =
      json(R"({"id": 1, "instruction": {"type": "user", "content": "x"}, "memory": {"n": 1}})");
  Json b =
      json(R"({"id": 1, "instruction": {"type": "user", "content": "x"}, "memory": {"n": 1.0}})");
  EXPECT_NE(replayKey(a), replayKey(b));
}

}  // namespace
}  // namespace agentvcr::protocol::magma
