#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/replay/recorded_queue.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::replay {

/// One recorded input replay can serve.
struct RecordedStep {
  std::int64_t step_id = 0;
  std::int64_t exchange_id = 0;
  std::int64_t session_id = 0;  ///< the session it was recorded in: a fork's origin
  std::int64_t source_id = 0;   ///< the input's id in the recorded request
  std::int64_t candidate_count = 0;
  std::int64_t depth = 0;  ///< in its recorded conversation: --fork-at forwards from there on
  /// The recorded exchange answered with a valid 2xx response holding this step's candidates.
  /// When false, replay answers with that exchange's recorded response as it was.
  bool answered = false;
  /// The recorded exchange's think time (recordedThinkTime), what --pace holds its answer by.
  std::int64_t think_ns = 0;
};

/// Hashes of an input's parts, compared to find the recorded input closest to a missed one.
struct InputFeatures {
  std::uint64_t instruction = 0;  ///< stableHash of type and content
  std::uint64_t memory = 0;       ///< canonicalHash, as the archive's blobs are keyed
  std::uint64_t tools = 0;
  std::uint64_t attributes = 0;
  std::uint64_t extra_keys = 0;
  std::int64_t num_outputs = 1;
};

InputFeatures featuresOf(const protocol::magma::AgentInput& input);
InputFeatures featuresOf(const store::ReplayStepRef& step);
RecordedStep recordedStepOf(const store::ReplayStepRef& step);

/// Replay key to recorded steps, loaded once at start (no table scan per request). Repeated
/// identical inputs are served in recorded order, then the last again (RecordedQueues).
///
/// Not thread-safe: the caller serialises access.
class ReplayIndex {
 public:
  /// Adds a step after those already added under `key` (call in recording order);
  /// `recorded_scope` is the scope it was recorded in, empty for none.
  void add(std::uint64_t key, const RecordedStep& step, const InputFeatures& features,
           std::string_view recorded_scope = {});

  /// The next step recorded under `key` for `scope` (empty: shared), or empty on a miss.
  std::optional<RecordedStep> take(std::uint64_t key, std::string_view scope = {}) {
    return steps_.take(key, scope);
  }

  /// Every key serves its first recorded step next, in every scope.
  void rewind() { steps_.rewind(); }

  /// Every key serves its first recorded step next in `scope`.
  void rewind(std::string_view scope) { steps_.rewind(scope); }

  /// The recorded step sharing the most with an input that missed (memory and instruction
  /// weigh most, then tools and attributes, then extra_keys and num_outputs), the earliest on
  /// ties; empty when no recorded step shares more than extra_keys or num_outputs, which say
  /// little about what was asked. A linear pass: misses are rare and
  /// 100k steps take well under a millisecond.
  std::optional<std::int64_t> closest(const InputFeatures& features) const;

  std::size_t stepCount() const { return features_.size(); }

  std::size_t keyCount() const { return steps_.keyCount(); }

 private:
  RecordedQueues<RecordedStep> steps_;
  std::vector<InputFeatures> features_;
  std::vector<std::int64_t> step_ids_;  ///< parallel to features_
};

}  // namespace agentvcr::replay
