#include "prompt_deltas.hpp"

#include <algorithm>
#include <utility>

namespace agentvcr::store::detail {
namespace {

/// Whether `c` is part of a word to the search's tokenizer: a cut inside a word would index a
/// piece of it ("12" of "sw12"), so cuts move to the word's edge. Bytes of multibyte UTF-8
/// characters count as word bytes, which also keeps a cut off the middle of a character.
bool wordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
         u == '_';
}

}  // namespace

PromptDelta promptDelta(std::string_view parent, std::string_view prompt) {
  const std::size_t limit = std::min(parent.size(), prompt.size());
  std::size_t prefix = static_cast<std::size_t>(
      std::mismatch(prompt.begin(), prompt.begin() + static_cast<long>(limit), parent.begin())
          .first -
      prompt.begin());
  while (prefix > 0 && prefix < prompt.size() && wordByte(prompt[prefix]) &&
         wordByte(prompt[prefix - 1])) {
    --prefix;
  }
  const std::size_t room = limit - prefix;  // a suffix never overlaps the prefix in either
  std::size_t suffix = 0;
  while (suffix < room &&
         prompt[prompt.size() - 1 - suffix] == parent[parent.size() - 1 - suffix]) {
    ++suffix;
  }
  std::size_t end = prompt.size() - suffix;
  while (end > prefix && end < prompt.size() && wordByte(prompt[end]) &&
         wordByte(prompt[end - 1])) {
    ++end;
  }
  return PromptDelta{std::nullopt, prefix, std::max(prefix, end)};
}

std::string newPromptText(std::string_view prompt, const PromptDelta& delta,
                          std::string_view instruction) {
  const std::string_view added = prompt.substr(delta.begin, delta.end - delta.begin);
  for (std::size_t at = instruction.empty() ? std::string_view::npos : added.find(instruction);
       at != std::string_view::npos; at = added.find(instruction, at + 1)) {
    const std::size_t end = at + instruction.size();
    const bool whole =
        (at == 0 || !wordByte(added[at - 1]) || !wordByte(instruction.front())) &&
        (end == added.size() || !wordByte(added[end]) || !wordByte(instruction.back()));
    if (whole) {
      return std::string(added.substr(0, at)) + " " + std::string(added.substr(end));
    }
  }
  return std::string(added);
}

std::optional<PromptMemory::Kept> PromptMemory::find(std::int64_t candidate_id,
                                                     std::size_t position) {
  auto found = kept_.find(candidate_id);
  if (found == kept_.end() || position >= found->second.prompts.size() ||
      !found->second.prompts[position].second) {
    return std::nullopt;
  }
  const auto& [id, prompt] = found->second.prompts[position];
  return Kept{id, &*prompt};
}

void PromptMemory::keep(std::int64_t candidate_id,
                        std::vector<std::pair<std::int64_t, std::optional<std::string>>> prompts) {
  std::size_t bytes = 0;
  for (const auto& [id, prompt] : prompts) {
    bytes += prompt ? prompt->size() : 0;
  }
  if (bytes == 0 || kept_.count(candidate_id) != 0) {
    return;
  }
  recency_.push_front(candidate_id);
  kept_.emplace(candidate_id, Entry{std::move(prompts), bytes, recency_.begin()});
  kept_bytes_ += bytes;
  while (kept_bytes_ > kKeptBytes && recency_.size() > 1) {
    const auto oldest = kept_.find(recency_.back());
    kept_bytes_ -= oldest->second.bytes;
    kept_.erase(oldest);
    recency_.pop_back();
  }
}

void PromptMemory::clear() {
  kept_.clear();
  recency_.clear();
  kept_bytes_ = 0;
}

}  // namespace agentvcr::store::detail
