#include "agentvcr/replay/input_key.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;
namespace magma = protocol::magma;
using ::testing::HasSubstr;

// Node 41 of magma-protocol.md §19 B1, trimmed.
constexpr const char* kNode41 = R"({"id": 41,
  "instruction": {"type": "user", "content": "Please move every damaged fruit to the mutual zone."},
  "tools": [{"name": "get_objects_state", "arguments": {}},
            {"name": "move_object", "arguments": {"object": "string"}}],
  "attributes": {"zones": ["left_zone", "mutual_zone", "right_zone"],
                 "known_robots": ["arm1", "arm2"],
                 "robot_statuses": {"arm1": "FREE", "arm2": "FREE"}},
  "memory": {"memory_list": ["Only arm1 can inspect objects."],
             "history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]},
  "num_outputs": 2, "extra_keys": {"inference_mode": false}})";

Json node41Json() {
  return Json::parse(kNode41);
}

magma::AgentInput parsed(const Json& json) {
  auto input = magma::parseAgentInput(json);
  EXPECT_TRUE(input.ok()) << json.dump();
  return input.value.value_or(magma::AgentInput{});
}

magma::AgentInput node41() {
  return parsed(node41Json());
}

const std::string kStatuses = "/attributes/robot_statuses";

TEST(KeyRules, DefaultRulesIgnoreNothing) {
  const KeyRules rules;
  EXPECT_TRUE(rules.ignoresNothing());
  EXPECT_TRUE(rules.ignoredPointers().empty());
  EXPECT_TRUE(KeyRules::ignoring({}).ignoresNothing());
}

TEST(KeyRules, WithoutIgnoresTheKeyIsTheRecordersKey) {
  const KeyRules rules;
  const magma::AgentInput input = node41();
  EXPECT_EQ(rules.keyOf(input), magma::replayKey(input));
  EXPECT_EQ(rules.keyOf(node41Json()), magma::replayKey(input));
  EXPECT_EQ(rules.keyOf(magma::toJson(input)), magma::replayKey(input));

  magma::AgentInput by_hand;
  by_hand.id = 3;
  by_hand.instruction = {magma::InstructionType::Env, "{\"ok\": true}"};
  by_hand.memory = Json{{"history", Json::array()}};
  EXPECT_EQ(rules.keyOf(by_hand), magma::replayKey(by_hand));
  EXPECT_EQ(rules.keyOf(magma::toJson(by_hand)), magma::replayKey(by_hand));
}

TEST(KeyRules, WithoutIgnoresOmittedDefaultsKeyLikeSpelledOutOnes) {
  const KeyRules rules;
  const Json bare = Json::parse(R"({"id": 1, "instruction": {"type": "user", "content": "x"}})");
  EXPECT_EQ(rules.keyOf(bare), rules.keyOf(parsed(bare)));
}

TEST(KeyRules, TheIdNeverCountsInTheKey) {
  for (const KeyRules& rules : {KeyRules(), KeyRules::ignoring({kStatuses})}) {
    magma::AgentInput a = node41();
    magma::AgentInput b = a;
    b.id = 88;
    EXPECT_EQ(rules.keyOf(a), rules.keyOf(b));
    Json a_json = node41Json();
    Json b_json = a_json;
    b_json["id"] = 88;
    EXPECT_EQ(rules.keyOf(a_json), rules.keyOf(b_json));
    EXPECT_EQ(rules.keyOf(a_json), rules.keyOf(a));
  }
}

TEST(KeyRules, TypedAndJsonKeysAgreeWhenPartsAreIgnored) {
  const KeyRules rules = KeyRules::ignoring({kStatuses, "/memory/history/0", "/nothing/here"});
  const magma::AgentInput input = node41();
  // The recorded input JSON as ArchiveReader::inputJson rebuilds it: every field spelled out.
  EXPECT_EQ(rules.keyOf(magma::toJson(input)), rules.keyOf(input));
  EXPECT_EQ(rules.keyOf(node41Json()), rules.keyOf(input));
}

TEST(KeyRules, AnIgnoredPartNoLongerTellsInputsApart) {
  const KeyRules rules = KeyRules::ignoring({kStatuses});
  EXPECT_FALSE(rules.ignoresNothing());
  EXPECT_EQ(rules.ignoredPointers(), std::vector<std::string>{kStatuses});

  magma::AgentInput busy = node41();
  busy.attributes["robot_statuses"]["arm1"] = "BUSY";
  magma::AgentInput free = node41();
  ASSERT_NE(magma::replayKey(busy), magma::replayKey(free));
  EXPECT_EQ(rules.keyOf(busy), rules.keyOf(free));
  EXPECT_EQ(rules.keyOf(magma::toJson(busy)), rules.keyOf(magma::toJson(free)));

  // Without the member at all: still the same key.
  magma::AgentInput none = node41();
  none.attributes.erase("robot_statuses");
  EXPECT_EQ(rules.keyOf(none), rules.keyOf(free));

  // And the key is not the unignored one.
  EXPECT_NE(rules.keyOf(free), magma::replayKey(free));
}

TEST(KeyRules, OtherDifferencesStillChangeTheKey) {
  const KeyRules rules = KeyRules::ignoring({kStatuses});
  const magma::AgentInput base = node41();

  magma::AgentInput zones = base;
  zones.attributes["zones"].push_back("far_zone");
  EXPECT_NE(rules.keyOf(zones), rules.keyOf(base));

  magma::AgentInput instruction = base;
  instruction.instruction.content += "!";
  EXPECT_NE(rules.keyOf(instruction), rules.keyOf(base));

  magma::AgentInput env = base;
  env.instruction.type = magma::InstructionType::Env;
  EXPECT_NE(rules.keyOf(env), rules.keyOf(base));

  magma::AgentInput memory = base;
  memory.memory["history"][1]["content"] = "not ok";
  EXPECT_NE(rules.keyOf(memory), rules.keyOf(base));

  magma::AgentInput outputs = base;
  outputs.num_outputs = 1;
  EXPECT_NE(rules.keyOf(outputs), rules.keyOf(base));

  magma::AgentInput extra = base;
  extra.extra_keys["coaching"] = Json{{"hint", "x"}};
  EXPECT_NE(rules.keyOf(extra), rules.keyOf(base));
}

TEST(KeyRules, APointerThatAddressesNothingIsSkipped) {
  const KeyRules rules =
      KeyRules::ignoring({"/attributes/no_such_member", "/memory/history/9",
                          "/instruction/content/deeper", "/tools/name", "/tools/-", "/nothing"});
  const magma::AgentInput input = node41();
  Json expected = node41Json();
  expected.erase("id");
  EXPECT_EQ(rules.keyedContent(node41Json()), expected);
  EXPECT_EQ(rules.keyOf(input), protocol::canonicalHash(expected));
  EXPECT_EQ(rules.keyOf(input), magma::replayKey(input));
}

TEST(KeyRules, AnIgnoredArrayElementKeepsTheOthersInPlace) {
  const KeyRules rules = KeyRules::ignoring({"/memory/history/0"});
  const Json content = rules.keyedContent(node41Json());
  ASSERT_EQ(content["memory"]["history"].size(), 2u);
  EXPECT_TRUE(content["memory"]["history"][0].is_null());
  EXPECT_EQ(content["memory"]["history"][1],
            Json::parse(R"({"role": "assistant", "content": "ok"})"));

  // Differing only in the ignored element: the same key.
  magma::AgentInput a = node41();
  magma::AgentInput b = node41();
  b.memory["history"][0]["content"] = "hello";
  EXPECT_EQ(rules.keyOf(a), rules.keyOf(b));
  // The first element dropped: the second one moved up and the key tells it.
  magma::AgentInput shifted = node41();
  shifted.memory["history"].erase(0);
  EXPECT_NE(rules.keyOf(shifted), rules.keyOf(a));
  // A later element changed: a different key.
  magma::AgentInput later = node41();
  later.memory["history"][1]["content"] = "changed";
  EXPECT_NE(rules.keyOf(later), rules.keyOf(a));
}

TEST(KeyRules, KeyedContentDropsTheIdAndTheIgnoredParts) {
  const KeyRules rules = KeyRules::ignoring({kStatuses, "/extra_keys"});
  const Json content = rules.keyedContent(node41Json());
  EXPECT_FALSE(content.contains("id"));
  EXPECT_FALSE(content.contains("extra_keys"));
  EXPECT_FALSE(content["attributes"].contains("robot_statuses"));
  EXPECT_TRUE(content["attributes"].contains("zones"));
  EXPECT_EQ(content["instruction"], node41Json()["instruction"]);
  EXPECT_EQ(content["memory"], node41Json()["memory"]);
  EXPECT_EQ(content["num_outputs"], 2);

  Json expected = node41Json();
  expected.erase("id");
  EXPECT_EQ(KeyRules().keyedContent(node41Json()), expected);
  // Not an object: kept as it is.
  EXPECT_EQ(rules.keyedContent(Json::parse("[1, 2]")), Json::parse("[1, 2]"));
}

TEST(KeyRules, AnEscapedPointerAddressesTheEscapedKey) {
  const KeyRules rules = KeyRules::ignoring({"/extra_keys/a~1b", "/extra_keys/m~0n"});
  Json input = node41Json();
  input["extra_keys"] = Json{{"a/b", 1}, {"m~n", 2}, {"keep", 3}};
  EXPECT_EQ(rules.keyedContent(input)["extra_keys"], Json::parse(R"({"keep": 3})"));
}

void expectRejected(const std::string& pointer) {
  try {
    KeyRules::ignoring({kStatuses, pointer});
    ADD_FAILURE() << "'" << pointer << "' was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("'" + pointer + "'"));
  }
}

TEST(KeyRules, RejectsWhatIsNoJsonPointer) {
  expectRejected("attributes");
  expectRejected("attributes/robot_statuses");
  expectRejected("/a~2");
  expectRejected("/a~");
  EXPECT_THROW(KeyRules::ignoring({"attributes"}), std::invalid_argument);
}

TEST(KeyRules, RejectsIgnoringTheWholeInput) {
  expectRejected("");
  try {
    KeyRules::ignoring({""});
    ADD_FAILURE() << "'' was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("whole input"));
  }
}

TEST(KeyRules, TheEmptyKeyPointerIsAValidPointer) {
  // "/" addresses the member named "" (RFC 6901), not the whole input.
  const KeyRules rules = KeyRules::ignoring({"/"});
  Json input = node41Json();
  input[""] = 1;
  Json expected = node41Json();
  expected.erase("id");
  EXPECT_EQ(rules.keyedContent(input), expected);
}

}  // namespace
}  // namespace agentvcr::replay
