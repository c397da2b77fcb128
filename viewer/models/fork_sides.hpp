#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "agentvcr/replay/conversation_diff.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// A fork's conversation (`replay --fork-at`) and the recorded one it continues, as the two
/// sides of the conversation diff: the same recorded prefix on both, then the recorded
/// continuation on the left and the live one on the right, so that the diff's first divergence
/// is at or after the fork point.
struct ForkSides {
  std::int64_t recorded_conversation_id = 0;
  /// The recorded prefix, then the recorded step the fork asked again and every step below it
  /// (the recorded branch the fork replaces; a GEN tree's other branches are left out).
  std::vector<replay::DiffStep> recorded;
  /// The same prefix, then the fork's live steps at their depth in the whole episode.
  std::vector<replay::DiffStep> forked;
  std::size_t prefix_steps = 0;  ///< the steps both sides share, at their start
};

/// Empty when `conversation_id` is not a fork's conversation (store::ArchiveReader::forkOrigin).
/// Archive errors throw std::runtime_error.
std::optional<ForkSides> forkSides(const store::ArchiveReader& reader,
                                   std::int64_t conversation_id);

}  // namespace agentvcr::viewer
