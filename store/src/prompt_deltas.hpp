#pragma once

// The part of a prompt that is new (docs/schema.md, "Internal steps"). An agent that renders its
// history into every prompt repeats, at each step, the prompt its previous step sent, plus a
// turn: searching every prompt whole indexed each turn once per later step. The indexer indexes
// only what a prompt adds to the prompt of the same internal step of the step it continues, and
// keeps that step's id, so a hit names the step where the text first appeared.

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentvcr::store::detail {

/// What a prompt adds to the one it continues: the bytes [begin, end) of the prompt, cut at word
/// boundaries; the whole prompt when it continues none.
struct PromptDelta {
  std::optional<std::int64_t> parent_internal_step_id;
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// `prompt` against `parent`: what lies between their longest common prefix and suffix.
PromptDelta promptDelta(std::string_view parent, std::string_view prompt);

/// The text the search indexes for a prompt (`internal_steps.prompt_new`): what it adds, without
/// its step's own instruction, which a prompt renders and the search finds in the step itself.
/// The instruction is cut only where it stands as whole words.
std::string newPromptText(std::string_view prompt, const PromptDelta& delta,
                          std::string_view instruction);

/// The prompts of the candidates indexed last, so that the next step's prompts are compared
/// with their parent's without reading the archive. A parent it no longer holds (the index
/// restarted, or many conversations run at once) makes the whole prompt new: the search finds
/// it all the same, the index is only larger. Not thread-safe: one per indexer.
class PromptMemory {
 public:
  /// Prompt bytes kept, at most.
  static constexpr std::size_t kKeptBytes = 64u << 20;

  /// The internal step at `position` of candidate `candidate_id` and its prompt, if kept.
  struct Kept {
    std::int64_t internal_step_id;
    const std::string* prompt;
  };

  std::optional<Kept> find(std::int64_t candidate_id, std::size_t position);

  /// Keeps candidate `candidate_id`'s prompts (internal step id, prompt; nullopt without one).
  void keep(std::int64_t candidate_id,
            std::vector<std::pair<std::int64_t, std::optional<std::string>>> prompts);

  void clear();

 private:
  struct Entry {
    std::vector<std::pair<std::int64_t, std::optional<std::string>>> prompts;
    std::size_t bytes = 0;
    std::list<std::int64_t>::iterator recency;
  };

  std::unordered_map<std::int64_t, Entry> kept_;
  std::list<std::int64_t> recency_;  // most recently kept first
  std::size_t kept_bytes_ = 0;
};

}  // namespace agentvcr::store::detail
