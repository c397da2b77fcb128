#include "threading.hpp"

namespace agentvcr::store::detail {

ThreadDecision ThreadingIndex::decide(std::uint64_t memory_hash, std::int64_t source_id,
                                      bool is_env) const {
  ThreadDecision decision;
  auto it = roots_.count(memory_hash) != 0 ? links_.end() : links_.find(memory_hash);
  if (it == links_.end() || it->second.empty()) {
    if (is_env) {
      if (auto newest = newest_by_source_.find(source_id); newest != newest_by_source_.end()) {
        decision.parent = newest->second;
      }
    }
    return decision;
  }
  const std::vector<Entry>& entries = it->second;
  decision.ambiguity = static_cast<std::int64_t>(entries.size());
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry) {
    if (entry->link.source_id == source_id) {
      decision.parent = entry->link;
      return decision;
    }
  }
  decision.parent = entries.back().link;
  return decision;
}

void ThreadingIndex::addRoot(std::uint64_t memory_hash) {
  if (!roots_.insert(memory_hash).second) {
    return;
  }
  root_order_.push_back(memory_hash);
  if (root_order_.size() > limit_) {
    roots_.erase(root_order_.front());
    root_order_.pop_front();
  }
}

void ThreadingIndex::addCandidate(std::uint64_t memory_hash, std::uint64_t input_memory_hash,
                                  const ThreadLink& link) {
  if (newest_by_source_.size() >= limit_ && !newest_by_source_.contains(link.source_id)) {
    newest_by_source_.clear();
  }
  newest_by_source_[link.source_id] = link;
  if (memory_hash == input_memory_hash) {
    return;
  }
  const std::uint64_t seq = next_seq_++;
  std::vector<Entry>& entries = links_[memory_hash];
  entries.push_back(Entry{seq, link});
  if (entries.size() > kMaxLinksPerMemory) {
    entries.erase(entries.begin());  // its Order entry goes stale and is skipped below
  }
  order_.push_back(Order{memory_hash, seq});
  while (order_.size() > limit_) {
    const Order oldest = order_.front();
    order_.pop_front();
    auto it = links_.find(oldest.memory_hash);
    if (it == links_.end()) {
      continue;
    }
    std::vector<Entry>& list = it->second;
    if (!list.empty() && list.front().seq == oldest.seq) {
      list.erase(list.begin());
    }
    if (list.empty()) {
      links_.erase(it);
    }
  }
}

void ThreadingIndex::clear() {
  links_.clear();
  order_.clear();
  roots_.clear();
  root_order_.clear();
  newest_by_source_.clear();
}

}  // namespace agentvcr::store::detail
