#pragma once

// The coaching routes: PUT and DELETE /v1/coaching/sessions/{run_id}, POST /v1/coaching, each
// keyed on its content without ids and served in recorded order.

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/replay/recorded_outputs.hpp"
#include "agentvcr/replay/recorded_queue.hpp"
#include "agentvcr/replay/replayer.hpp"

namespace agentvcr::replay::detail {

class CoachingReplayer {
 public:
  CoachingReplayer(ReaderPool& readers, const ReplayOptions& options);

  /// Whether the selection holds any coaching exchange (the agent offered coaching).
  bool recorded() const { return !recorded_.empty(); }

  ReplayOutcome respond(protocol::magma::Route route, const protocol::HttpRequest& request,
                        const Forwarder* forward, std::string_view scope);

  /// Every coaching request serves its first recorded answer next: in `scope`, or everywhere.
  void rewind(std::optional<std::string_view> scope) {
    std::lock_guard lock(mutex_);
    scope ? queues_.rewind(*scope) : queues_.rewind();
  }

 private:
  struct Recorded {
    std::int64_t exchange_id = 0;
    protocol::magma::Route route = protocol::magma::Route::None;
    protocol::Json content;     ///< what is keyed
    std::int64_t think_ns = 0;  ///< recordedThinkTime, what --pace holds the answer by
  };

  MissReport reportMiss(protocol::magma::Route route, const protocol::Json& content,
                        std::uint64_t key, const std::string& request_id) const;

  ReaderPool& readers_;
  const ReplayOptions& options_;
  std::vector<Recorded> recorded_;
  std::mutex mutex_;
  RecordedQueues<std::size_t> queues_;  ///< key to indexes into recorded_
};

}  // namespace agentvcr::replay::detail
