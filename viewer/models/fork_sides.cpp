#include "models/fork_sides.hpp"

#include <algorithm>
#include <utility>

namespace agentvcr::viewer {

std::optional<ForkSides> forkSides(const store::ArchiveReader& reader,
                                   std::int64_t conversation_id) {
  const std::optional<store::ForkOrigin> origin = reader.forkOrigin(conversation_id);
  if (!origin) {
    return std::nullopt;
  }
  ForkSides sides;
  sides.recorded_conversation_id = origin->reasked.conversation_id;
  const std::vector<replay::DiffStep> recorded =
      replay::diffStepsOf(reader, sides.recorded_conversation_id);
  const auto stepOf = [&](std::int64_t step_id) {
    return std::find_if(recorded.begin(), recorded.end(),
                        [&](const replay::DiffStep& step) { return step.step_id == step_id; });
  };
  for (const store::StepRow& above : origin->prefix) {
    if (const auto step = stepOf(above.id); step != recorded.end()) {
      sides.recorded.push_back(*step);
      sides.forked.push_back(*step);
    }
  }
  sides.prefix_steps = sides.forked.size();
  // Depth first, a parent before its children: the step asked again and the steps below it
  // follow one another, each deeper than it.
  auto step = stepOf(origin->reasked.id);
  if (step != recorded.end()) {
    sides.recorded.push_back(*step);
    for (++step; step != recorded.end() && step->depth > origin->reasked.depth; ++step) {
      sides.recorded.push_back(*step);
    }
  }
  for (replay::DiffStep& live : replay::diffStepsOf(reader, conversation_id)) {
    live.depth += origin->reasked.depth;
    sides.forked.push_back(std::move(live));
  }
  return sides;
}

}  // namespace agentvcr::viewer
