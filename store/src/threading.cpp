#include "threading.hpp"

#include <algorithm>
#include <functional>

namespace agentvcr::store::detail {
namespace {

/// How well a candidate fits a step beyond its memory: the same input id first (BENCH numbers
/// each caller's inputs), then the same connection, then a candidate of a step that no other
/// step continues yet (`untouched`): identical runs then each continue their own step, where the
/// oldest candidate would be a not-yet-continued sibling of one already continued.
int affinity(const ThreadLink& link, const ThreadStep& step, bool untouched) {
  const bool same_client = link.client != 0 && link.client == step.client;
  return (link.source_id == step.source_id ? 4 : 0) + (same_client ? 2 : 0) + (untouched ? 1 : 0);
}

/// How well a continued candidate fits a step as the place it comes from again: by input id
/// and connection, each counting only when the step that continued the candidate shares it too.
/// A retry after an error, or a re-ask, comes from the caller's own slot and connection; a step
/// of another slot that took the candidate earlier was a guess among identical ones, and
/// proves nothing about where this step comes from.
int againAffinity(const ThreadLink& link, std::int64_t continued_by_source,
                  std::uint64_t continued_by_client, const ThreadStep& step) {
  const bool same_source =
      link.source_id == step.source_id && continued_by_source == step.source_id;
  const bool same_client =
      link.client != 0 && link.client == step.client && continued_by_client == step.client;
  return (same_source ? 4 : 0) + (same_client ? 2 : 0);
}

/// False when the step's request began before the candidate's answer existed: that step
/// cannot carry its memory. Unknown times never exclude.
bool answeredBefore(const ThreadLink& link, const ThreadStep& step) {
  return link.answered_ns == 0 || step.started_ns == 0 || link.answered_ns <= step.started_ns;
}

}  // namespace

std::uint64_t clientIdentity(std::string_view client_address) {
  if (client_address.empty()) {
    return 0;
  }
  const std::uint64_t h = std::hash<std::string_view>{}(client_address);
  return h != 0 ? h : 1;
}

ThreadDecision ThreadingIndex::decide(const ThreadStep& step) {
  ThreadDecision decision;
  auto it = roots_.count(step.memory_hash) != 0 ? links_.end() : links_.find(step.memory_hash);
  if (it == links_.end() || it->second.entries.empty()) {
    if (step.is_env) {
      if (auto newest = newest_by_source_.find(step.source_id); newest != newest_by_source_.end()) {
        decision.parent = newest->second;
      }
    }
    return decision;
  }
  Matches& matches = it->second;
  const std::vector<Entry>& entries = matches.entries;
  decision.ambiguity = static_cast<std::int64_t>(entries.size());
  // One-to-one: a candidate not yet continued, answered before the step was asked, with the
  // best affinity; of those, the one answered last before the step was asked, since a caller
  // sends its next step right after its answer; the oldest when times are equal or unknown.
  // The scan starts past the continued prefix.
  std::size_t chosen = entries.size();
  int chosen_affinity = -1;
  for (std::size_t k = matches.open; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (e.continued || !answeredBefore(e.link, step)) {
      continue;
    }
    const int a = affinity(e.link, step, untouched(e.link));
    if (a > chosen_affinity ||
        (a == chosen_affinity && e.link.answered_ns > entries[chosen].link.answered_ns)) {
      chosen = k;
      chosen_affinity = a;
    }
  }
  // A candidate already continued from the step's own slot or connection, fitting better by
  // them than any open one, is where the step comes from: a retry after an error, or a re-ask,
  // from the caller's own state. The newest such.
  std::size_t again = entries.size();
  int again_affinity = -1;
  for (std::size_t k = entries.size(); k-- > 0;) {
    const Entry& e = entries[k];
    if (!e.continued || !answeredBefore(e.link, step)) {
      continue;
    }
    const int a = againAffinity(e.link, e.continued_by_source, e.continued_by_client, step);
    if (a > again_affinity) {
      again = k;
      again_affinity = a;
    }
  }
  const bool open_fits_as_well =
      chosen != entries.size() && chosen_affinity / 2 >= again_affinity / 2;
  if (chosen != entries.size() && (again == entries.size() || open_fits_as_well)) {
    decision.parent = entries[chosen].link;
    markContinued(step.memory_hash, matches, chosen, step);
    return decision;
  }
  if (again != entries.size()) {
    decision.parent = entries[again].link;
    return decision;
  }
  // Nothing was answered before the step was asked, by the times recorded: the step is a
  // second child of the newest match with the best affinity.
  chosen_affinity = -1;
  for (std::size_t k = entries.size(); k-- > 0;) {
    const int a = affinity(entries[k].link, step, false);
    if (a > chosen_affinity) {
      chosen = k;
      chosen_affinity = a;
    }
  }
  decision.parent = entries[chosen].link;
  return decision;
}

void ThreadingIndex::markContinued(std::uint64_t memory_hash, Matches& matches, std::size_t index,
                                   const ThreadStep& by) {
  matches.entries[index].continued = true;
  matches.entries[index].continued_by_source = by.source_id;
  matches.entries[index].continued_by_client = by.client;
  journal_.push_back(Order{memory_hash, matches.entries[index].seq});
  if (continued_steps_.size() >= limit_ &&
      !continued_steps_.contains(matches.entries[index].link.step_id)) {
    continued_steps_.clear();
  }
  ++continued_steps_[matches.entries[index].link.step_id];
  while (matches.open < matches.entries.size() && matches.entries[matches.open].continued) {
    ++matches.open;
  }
}

void ThreadingIndex::rollbackDecisions() {
  for (const Order& mark : journal_) {
    auto it = links_.find(mark.memory_hash);
    if (it == links_.end()) {
      continue;
    }
    std::vector<Entry>& entries = it->second.entries;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (entries[k].seq == mark.seq) {
        entries[k].continued = false;
        if (auto step = continued_steps_.find(entries[k].link.step_id);
            step != continued_steps_.end() && --step->second == 0) {
          continued_steps_.erase(step);
        }
        it->second.open = std::min(it->second.open, k);
        break;
      }
    }
  }
  journal_.clear();
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
  Matches& matches = links_[memory_hash];
  matches.entries.push_back(Entry{seq, link});
  if (matches.entries.size() > kMaxLinksPerMemory) {
    // Its Order entry goes stale and is skipped below.
    matches.entries.erase(matches.entries.begin());
    matches.open = matches.open > 0 ? matches.open - 1 : 0;
  }
  order_.push_back(Order{memory_hash, seq});
  while (order_.size() > limit_) {
    const Order oldest = order_.front();
    order_.pop_front();
    auto it = links_.find(oldest.memory_hash);
    if (it == links_.end()) {
      continue;
    }
    Matches& list = it->second;
    if (!list.entries.empty() && list.entries.front().seq == oldest.seq) {
      list.entries.erase(list.entries.begin());
      list.open = list.open > 0 ? list.open - 1 : 0;
    }
    if (list.entries.empty()) {
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
  journal_.clear();
  continued_steps_.clear();
}

}  // namespace agentvcr::store::detail
