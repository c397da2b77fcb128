#pragma once

// Conversation threading by memory (docs/schema.md, "Conversation threading"). In-memory and
// SQLite-free; owned by the writer thread.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace agentvcr::store::detail {

/// A recorded candidate a later step may continue.
struct ThreadLink {
  std::int64_t candidate_id = 0;
  std::int64_t step_id = 0;    ///< the step that candidate answered
  std::int64_t source_id = 0;  ///< the `id` of the input that candidate answered
  std::int64_t conversation_id = 0;
  std::int64_t depth = 0;  ///< depth of that candidate's step
  /// When the caller could first have had the answer (upstream first byte, else the end of the
  /// exchange); 0 when unknown.
  std::int64_t answered_ns = 0;
  std::uint64_t client = 0;  ///< clientIdentity() of the connection that asked
};

/// A step to thread: its input memory and where and when it was asked.
struct ThreadStep {
  std::uint64_t memory_hash = 0;
  std::int64_t source_id = 0;
  bool is_env = false;
  std::int64_t started_ns = 0;  ///< when its request began; 0 when unknown
  std::uint64_t client = 0;
};

/// The identity of a caller's connection ("ip:port"), as threading compares it.
std::uint64_t clientIdentity(std::string_view client_address);

/// Candidates remembered per memory; ambiguity counts saturate here.
inline constexpr std::size_t kMaxLinksPerMemory = 64;

struct ThreadDecision {
  std::optional<ThreadLink> parent;  ///< empty: the step starts a new conversation
  /// Candidates whose memory matched; 0 with a parent means the input-id fallback linked it.
  std::int64_t ambiguity = 0;
};

/// Memory hash -> candidates that returned it, oldest first, each continued by at most one
/// step until every match is continued; bounded, oldest forgotten first. Among the candidates
/// a step may continue it prefers, in this order: the same input id, the same connection, a
/// step none of whose candidates is continued yet (so that identical runs each get a tree of
/// their own), the answer given last before the step was asked, the oldest.
class ThreadingIndex {
 public:
  explicit ThreadingIndex(std::size_t limit) : limit_(limit == 0 ? 1 : limit) {}

  /// Where `step` belongs, and marks the candidate it continues as continued. The mark is
  /// tentative until commitDecisions(); rollbackDecisions() undoes the marks made since the
  /// last commit (the steps were not written). When the memory says nothing (it matches no
  /// candidate, or only an initial memory) an env step still continues something, since
  /// feedback always answers a tool call: it is linked to the newest candidate answered for
  /// the same input id (the caller's slot), if any.
  ThreadDecision decide(const ThreadStep& step);

  void commitDecisions() { journal_.clear(); }

  void rollbackDecisions();

  /// A step that started a conversation: its memory is an initial memory, which never links.
  void addRoot(std::uint64_t memory_hash);

  /// A candidate returned `memory_hash`; `input_memory_hash` is its step's input memory. A
  /// candidate that returns its input memory unchanged (an error candidate, a stateless agent)
  /// is not a link target: a step carrying that memory threads where the memory came from.
  void addCandidate(std::uint64_t memory_hash, std::uint64_t input_memory_hash,
                    const ThreadLink& link);

  void clear();

  std::size_t size() const { return order_.size(); }

 private:
  struct Entry {
    std::uint64_t seq;
    ThreadLink link;
    bool continued = false;
    /// The input id and connection of the step that continued it (when `continued`).
    std::int64_t continued_by_source = 0;
    std::uint64_t continued_by_client = 0;
  };

  struct Matches {
    std::vector<Entry> entries;  // oldest first
    std::size_t open = 0;        // every entry before this one is continued
  };

  struct Order {
    std::uint64_t memory_hash;
    std::uint64_t seq;
  };

  void markContinued(std::uint64_t memory_hash, Matches& matches, std::size_t index,
                     const ThreadStep& by);

  /// True when none of the candidates of `link`'s step is continued yet.
  bool untouched(const ThreadLink& link) const { return !continued_steps_.contains(link.step_id); }

  std::size_t limit_;
  std::uint64_t next_seq_ = 0;
  std::unordered_map<std::uint64_t, Matches> links_;
  std::deque<Order> order_;  // every link ever added and not yet evicted, oldest first
  std::unordered_set<std::uint64_t> roots_;
  std::deque<std::uint64_t> root_order_;
  // Newest candidate per input id, for the fallback; forgotten all at once past the limit.
  std::unordered_map<std::int64_t, ThreadLink> newest_by_source_;
  std::vector<Order> journal_;  // candidates marked continued since the last commit
  // Steps with a continued candidate: how many of their candidates are. Forgotten all at once
  // past the limit, which only weakens the tie-break.
  std::unordered_map<std::int64_t, std::uint32_t> continued_steps_;
};

/// Undoes the continuation marks of the steps being written unless they were committed.
class ThreadDecisions {
 public:
  explicit ThreadDecisions(ThreadingIndex& index) : index_(index) {}

  ThreadDecisions(const ThreadDecisions&) = delete;
  ThreadDecisions& operator=(const ThreadDecisions&) = delete;

  ~ThreadDecisions() {
    if (!committed_) {
      index_.rollbackDecisions();
    }
  }

  void commit() {
    index_.commitDecisions();
    committed_ = true;
  }

 private:
  ThreadingIndex& index_;
  bool committed_ = false;
};

}  // namespace agentvcr::store::detail
