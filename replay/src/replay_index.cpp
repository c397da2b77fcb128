#include "agentvcr/replay/replay_index.hpp"

#include <string>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/replay/replayer.hpp"

namespace agentvcr::replay {
namespace {

std::uint64_t instructionHash(std::string_view type, std::string_view content) {
  std::string text;
  text.reserve(type.size() + 1 + content.size());
  text.append(type).append(1, '\n').append(content);
  return protocol::stableHash(text);
}

int similarity(const InputFeatures& a, const InputFeatures& b) {
  int score = 0;
  score += a.memory == b.memory ? 5 : 0;
  score += a.instruction == b.instruction ? 4 : 0;
  score += a.tools == b.tools ? 2 : 0;
  score += a.attributes == b.attributes ? 2 : 0;
  score += a.extra_keys == b.extra_keys ? 1 : 0;
  score += a.num_outputs == b.num_outputs ? 1 : 0;
  return score;
}

}  // namespace

InputFeatures featuresOf(const protocol::magma::AgentInput& input) {
  const bool env = input.instruction.type == protocol::magma::InstructionType::Env;
  return InputFeatures{
      .instruction = instructionHash(env ? "env" : "user", input.instruction.content),
      .memory = protocol::canonicalHash(input.memory),
      .tools = protocol::canonicalHash(input.tools),
      .attributes = protocol::canonicalHash(input.attributes),
      .extra_keys = protocol::canonicalHash(input.extra_keys),
      .num_outputs = input.num_outputs,
  };
}

InputFeatures featuresOf(const store::ReplayStepRef& step) {
  return InputFeatures{
      .instruction = instructionHash(step.instruction_type, step.instruction_content),
      .memory = step.memory_hash,
      .tools = step.tools_hash,
      .attributes = step.attributes_hash,
      .extra_keys = step.extra_keys_hash,
      .num_outputs = step.num_outputs,
  };
}

RecordedStep recordedStepOf(const store::ReplayStepRef& step) {
  const bool success = step.exchange_status >= 200 && step.exchange_status < 300;
  return RecordedStep{
      .step_id = step.step_id,
      .exchange_id = step.exchange_id,
      .session_id = step.session_id,
      .source_id = step.source_id,
      .candidate_count = step.candidate_count,
      .depth = step.depth,
      .answered = success && step.response_valid.value_or(false) && step.candidate_count > 0,
      .think_ns =
          recordedThinkTime(step.started_ns, step.upstream_sent_ns, step.upstream_first_byte_ns)
              .count(),
  };
}

void ReplayIndex::add(std::uint64_t key, const RecordedStep& step, const InputFeatures& features,
                      std::string_view recorded_scope) {
  steps_.add(key, step, recorded_scope);
  features_.push_back(features);
  step_ids_.push_back(step.step_id);
}

std::optional<std::int64_t> ReplayIndex::closest(const InputFeatures& features) const {
  int best_score = 1;  // extra_keys or num_outputs alone is no likeness
  std::optional<std::int64_t> best;
  for (std::size_t i = 0; i < features_.size(); ++i) {
    const int score = similarity(features, features_[i]);
    if (score > best_score) {
      best_score = score;
      best = step_ids_[i];
    }
  }
  return best;
}

}  // namespace agentvcr::replay
