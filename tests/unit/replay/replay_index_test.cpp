#include "agentvcr/replay/replay_index.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;
namespace magma = protocol::magma;

RecordedStep step(std::int64_t id) {
  return RecordedStep{.step_id = id,
                      .exchange_id = id * 10,
                      .source_id = id * 100,
                      .candidate_count = 1,
                      .answered = true};
}

/// Features that share nothing with those of another `seed`.
InputFeatures distinct(std::uint64_t seed) {
  return InputFeatures{.instruction = 1000 + seed,
                       .memory = 2000 + seed,
                       .tools = 3000 + seed,
                       .attributes = 4000 + seed,
                       .extra_keys = 5000 + seed,
                       .num_outputs = static_cast<std::int64_t>(6000 + seed)};
}

void expectSameFeatures(const InputFeatures& a, const InputFeatures& b) {
  EXPECT_EQ(a.instruction, b.instruction);
  EXPECT_EQ(a.memory, b.memory);
  EXPECT_EQ(a.tools, b.tools);
  EXPECT_EQ(a.attributes, b.attributes);
  EXPECT_EQ(a.extra_keys, b.extra_keys);
  EXPECT_EQ(a.num_outputs, b.num_outputs);
}

TEST(ReplayIndex, TakesStepsInRecordedOrderPerKey) {
  ReplayIndex index;
  index.add(1, step(11), distinct(1));
  index.add(2, step(21), distinct(2));
  index.add(1, step(12), distinct(3));
  EXPECT_EQ(index.stepCount(), 3u);
  EXPECT_EQ(index.keyCount(), 2u);

  EXPECT_EQ(index.take(1)->step_id, 11);
  EXPECT_EQ(index.take(1)->step_id, 12);
  EXPECT_EQ(index.take(1)->step_id, 12);  // used up: the last again
  const auto other = index.take(2);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->step_id, 21);
  EXPECT_EQ(other->exchange_id, 210);
  EXPECT_EQ(other->source_id, 2100);
  EXPECT_EQ(index.take(3), std::nullopt);
}

TEST(ReplayIndex, ClosestPrefersTheSameMemoryOverTheSameInstruction) {
  ReplayIndex index;
  InputFeatures same_instruction = distinct(1);
  InputFeatures same_memory = distinct(2);
  const InputFeatures missed = distinct(3);
  same_instruction.instruction = missed.instruction;
  same_memory.memory = missed.memory;
  // Whichever was recorded first.
  index.add(1, step(1), same_instruction);
  index.add(2, step(2), same_memory);
  EXPECT_EQ(index.closest(missed), 2);

  ReplayIndex reversed;
  reversed.add(2, step(2), same_memory);
  reversed.add(1, step(1), same_instruction);
  EXPECT_EQ(reversed.closest(missed), 2);
}

TEST(ReplayIndex, ClosestCountsEverySharedPart) {
  ReplayIndex index;
  const InputFeatures missed = distinct(9);
  InputFeatures memory_only = distinct(1);
  memory_only.memory = missed.memory;
  InputFeatures memory_and_tools = distinct(2);
  memory_and_tools.memory = missed.memory;
  memory_and_tools.tools = missed.tools;
  InputFeatures instruction_and_attributes = distinct(3);
  instruction_and_attributes.instruction = missed.instruction;
  instruction_and_attributes.attributes = missed.attributes;
  index.add(1, step(1), memory_only);
  index.add(2, step(2), memory_and_tools);
  index.add(3, step(3), instruction_and_attributes);
  // memory + tools (5 + 2) beats instruction + attributes (4 + 2) and memory alone (5).
  EXPECT_EQ(index.closest(missed), 2);

  ReplayIndex more;
  InputFeatures everything_but_memory = missed;
  everything_but_memory.memory = 1;
  more.add(1, step(1), memory_only);
  more.add(2, step(2), everything_but_memory);
  EXPECT_EQ(more.closest(missed), 2);
}

TEST(ReplayIndex, ClosestTakesTheEarliestOnTies) {
  ReplayIndex index;
  InputFeatures a = distinct(1);
  InputFeatures b = distinct(2);
  const InputFeatures missed = distinct(3);
  a.memory = missed.memory;
  b.memory = missed.memory;
  index.add(7, step(30), a);
  index.add(8, step(20), b);
  index.add(7, step(10), a);
  EXPECT_EQ(index.closest(missed), 30);

  ReplayIndex identical;
  identical.add(1, step(5), missed);
  identical.add(1, step(6), missed);
  EXPECT_EQ(identical.closest(missed), 5);
}

TEST(ReplayIndex, ClosestIsEmptyWhenNothingIsShared) {
  ReplayIndex empty;
  EXPECT_EQ(empty.closest(distinct(1)), std::nullopt);

  ReplayIndex index;
  index.add(1, step(1), distinct(1));
  index.add(2, step(2), distinct(2));
  EXPECT_EQ(index.closest(distinct(3)), std::nullopt);
}

TEST(ReplayIndex, TheSameNumOutputsAloneIsNoLikeness) {
  ReplayIndex index;
  InputFeatures recorded = distinct(1);
  const InputFeatures missed = distinct(2);
  recorded.num_outputs = missed.num_outputs;
  index.add(1, step(1), recorded);
  EXPECT_EQ(index.closest(missed), std::nullopt);

  // One more shared part and it counts.
  recorded.tools = missed.tools;
  index.add(2, step(2), recorded);
  EXPECT_EQ(index.closest(missed), 2);
}

// --- featuresOf, recordedStepOf ---

magma::AgentInput sampleInput(magma::InstructionType type) {
  magma::AgentInput input;
  input.id = 4;
  input.instruction = {type, "Move the apple to the mutual zone."};
  input.tools = Json::parse(R"([{"name": "move", "arguments": {"object": "string"}}])");
  input.attributes = Json::parse(R"({"zones": ["left", "right"]})");
  input.memory = Json::parse(R"({"history": [{"role": "user", "content": "caf\u00e9"}]})");
  input.num_outputs = 3;
  input.extra_keys = Json::parse(R"({"inference_mode": true})");
  return input;
}

store::ReplayStepRef refOf(const magma::AgentInput& input, const std::string& type) {
  store::ReplayStepRef ref;
  ref.step_id = 1;
  ref.instruction_type = type;
  ref.instruction_content = input.instruction.content;
  ref.memory_hash = protocol::canonicalHash(input.memory);
  ref.tools_hash = protocol::canonicalHash(input.tools);
  ref.attributes_hash = protocol::canonicalHash(input.attributes);
  ref.extra_keys_hash = protocol::canonicalHash(input.extra_keys);
  ref.num_outputs = input.num_outputs;
  return ref;
}

TEST(FeaturesOf, ALiveInputAndItsRecordingHaveTheSameFeatures) {
  const magma::AgentInput user = sampleInput(magma::InstructionType::User);
  expectSameFeatures(featuresOf(user), featuresOf(refOf(user, "user")));
  const magma::AgentInput env = sampleInput(magma::InstructionType::Env);
  expectSameFeatures(featuresOf(env), featuresOf(refOf(env, "env")));
}

TEST(FeaturesOf, ParsedInputsMatchTheirRecordingToo) {
  auto parsed = magma::parseAgentInput(Json::parse(
      R"({"id": 0, "instruction": {"type": "env", "content": "{\"ok\": true}"},
          "memory": {"b": 1, "a": [1.5, "x"]}})"));
  ASSERT_TRUE(parsed.ok());
  const store::ReplayStepRef ref = refOf(*parsed.value, "env");
  expectSameFeatures(featuresOf(*parsed.value), featuresOf(ref));
  EXPECT_EQ(ref.tools_hash, protocol::canonicalHash(Json::array()));
  EXPECT_EQ(ref.num_outputs, 1);
}

TEST(FeaturesOf, TheInstructionTypeCounts) {
  const magma::AgentInput user = sampleInput(magma::InstructionType::User);
  const magma::AgentInput env = sampleInput(magma::InstructionType::Env);
  EXPECT_NE(featuresOf(user).instruction, featuresOf(env).instruction);
  EXPECT_NE(featuresOf(user).instruction, featuresOf(refOf(user, "env")).instruction);
  EXPECT_EQ(featuresOf(user).memory, featuresOf(env).memory);
}

TEST(FeaturesOf, EachPartHasItsOwnFeature) {
  const magma::AgentInput base = sampleInput(magma::InstructionType::User);
  const InputFeatures features = featuresOf(base);

  magma::AgentInput changed = base;
  changed.instruction.content = "Something else.";
  EXPECT_NE(featuresOf(changed).instruction, features.instruction);
  EXPECT_EQ(featuresOf(changed).memory, features.memory);

  changed = base;
  changed.memory["history"].push_back("more");
  EXPECT_NE(featuresOf(changed).memory, features.memory);
  EXPECT_EQ(featuresOf(changed).instruction, features.instruction);

  changed = base;
  changed.tools.push_back(Json::object());
  EXPECT_NE(featuresOf(changed).tools, features.tools);

  changed = base;
  changed.attributes["zones"] = Json::array();
  EXPECT_NE(featuresOf(changed).attributes, features.attributes);

  changed = base;
  changed.extra_keys.erase("inference_mode");
  EXPECT_NE(featuresOf(changed).extra_keys, features.extra_keys);

  changed = base;
  changed.id = 99;
  expectSameFeatures(featuresOf(changed), features);
}

store::ReplayStepRef answeredRef(int status, std::optional<bool> valid, std::int64_t candidates) {
  store::ReplayStepRef ref;
  ref.step_id = 3;
  ref.exchange_id = 5;
  ref.source_id = 41;
  ref.candidate_count = candidates;
  ref.exchange_status = status;
  ref.response_valid = valid;
  return ref;
}

TEST(RecordedStepOf, CopiesTheStep) {
  const RecordedStep recorded = recordedStepOf(answeredRef(200, true, 2));
  EXPECT_EQ(recorded.step_id, 3);
  EXPECT_EQ(recorded.exchange_id, 5);
  EXPECT_EQ(recorded.source_id, 41);
  EXPECT_EQ(recorded.candidate_count, 2);
  EXPECT_TRUE(recorded.answered);
}

TEST(RecordedStepOf, AnsweredOnlyByAValid2xxResponseWithCandidates) {
  EXPECT_TRUE(recordedStepOf(answeredRef(200, true, 1)).answered);
  EXPECT_TRUE(recordedStepOf(answeredRef(201, true, 1)).answered);
  EXPECT_TRUE(recordedStepOf(answeredRef(299, true, 1)).answered);

  EXPECT_FALSE(recordedStepOf(answeredRef(199, true, 1)).answered);
  EXPECT_FALSE(recordedStepOf(answeredRef(300, true, 1)).answered);
  EXPECT_FALSE(recordedStepOf(answeredRef(422, true, 1)).answered);
  EXPECT_FALSE(recordedStepOf(answeredRef(500, true, 1)).answered);
  EXPECT_FALSE(recordedStepOf(answeredRef(0, true, 1)).answered);  // no answer at all
  EXPECT_FALSE(recordedStepOf(answeredRef(200, false, 1)).answered);
  EXPECT_FALSE(recordedStepOf(answeredRef(200, std::nullopt, 1)).answered);
  EXPECT_FALSE(recordedStepOf(answeredRef(200, true, 0)).answered);
}

}  // namespace
}  // namespace agentvcr::replay
