#pragma once

// POST /v1/responses: each live input matched on its own by its replay key.

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "agentvcr/replay/recorded_outputs.hpp"
#include "agentvcr/replay/replay_index.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/replay/request_memo.hpp"

namespace agentvcr::replay::detail {

class ResponsesReplayer {
 public:
  /// Loads the index of the selected steps (one streaming query; with ignored parts, each
  /// recorded input is rebuilt to be keyed again).
  ResponsesReplayer(ReaderPool& readers, const ReplayOptions& options);

  /// Answers `request` from the recording as seen by `scope` (empty: the shared cursors).
  ReplayOutcome respond(const protocol::HttpRequest& request, const Forwarder* forward,
                        std::string_view scope);

  /// Every input serves its first recorded answer next: in `scope`, or everywhere.
  void rewind(std::optional<std::string_view> scope) {
    std::lock_guard lock(index_mutex_);
    scope ? index_.rewind(*scope) : index_.rewind();
  }

  std::size_t stepCount() const { return index_.stepCount(); }

  std::size_t keyCount() const { return index_.keyCount(); }

  /// Empty when the memo is off (ReplayOptions::memo_bytes 0).
  std::optional<MemoStats> memoStats() const;

 private:
  struct Slot;
  struct KeyedRequest;

  /// What the memo keeps of a request it has seen: each input's key and candidate count.
  struct MemoInput {
    std::uint64_t key = 0;
    std::int64_t num_outputs = 0;
  };

  using Memo = RequestMemo<std::shared_ptr<const std::vector<MemoInput>>>;

  /// `request`'s ids spliced into the work remembered for a request that differed from it in
  /// its ids only; empty when there is none or the live ids would not pass validation.
  std::optional<KeyedRequest> remembered(std::string_view body, std::string& masked);

  MissReport reportMiss(const protocol::magma::AgentInput& input, std::size_t position,
                        const std::string& request_id, std::string_view what);
  /// Applies the miss policy: fills the missed slots (error candidates, forwarded answers), or
  /// returns the reply that answers the whole request instead (HTTP 503, a forward failure).
  std::optional<protocol::HttpReply> answerMisses(const protocol::HttpRequest& request,
                                                  const protocol::magma::AgentRequest& parsed,
                                                  std::vector<Slot>& slots, ReplayOutcome& outcome,
                                                  const Forwarder* forward);

  /// The reply body: every slot's outputs, stamped with `request_id` and their input's id.
  static std::string writeOutputs(const std::vector<Slot>& slots, const KeyedRequest& keyed,
                                  protocol::PythonJsonStyle style);

  ReaderPool& readers_;
  const ReplayOptions& options_;
  RecordedAnswers answers_;
  std::mutex index_mutex_;
  ReplayIndex index_;
  std::unique_ptr<Memo> memo_;
};

}  // namespace agentvcr::replay::detail
