#pragma once

// Decoding the next chunk of captured exchanges while the index thread writes the current one.
// Decoding (parsing both bodies, validating them against the contract, writing canonical texts)
// is about two fifths of what indexing an exchange costs, and it needs neither the connection
// nor the indexer's caches: once traffic stops and the index catches up, a second core can do
// it. While traffic arrives the index thread decodes for itself, so that its share of a core
// bounds all of the indexing.

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "archive_indexer.hpp"

namespace agentvcr::store::detail {

class DecodeAhead {
 public:
  /// Starts the decoding thread, as nice as the index thread.
  explicit DecodeAhead(DecodeOptions options);
  /// Stops the thread; a chunk still being decoded is finished and dropped.
  ~DecodeAhead();
  DecodeAhead(const DecodeAhead&) = delete;
  DecodeAhead& operator=(const DecodeAhead&) = delete;

  /// Hands `rows` to the decoding thread. Only while nothing is pending().
  void start(std::vector<PendingExchange> rows);

  /// Whether a chunk was started and not taken yet.
  bool pending() const noexcept { return pending_; }

  /// Waits for the chunk started last and returns it decoded (decodeRows()), or rethrows what
  /// decoding it threw.
  std::vector<DecodedRow> take();

 private:
  void run() noexcept;

  const DecodeOptions options_;
  bool pending_ = false;  // the caller's side only
  std::mutex mutex_;
  std::condition_variable wake_;  // a chunk to decode, or stopping
  std::condition_variable done_;  // a chunk decoded
  std::optional<std::vector<PendingExchange>> input_;
  std::optional<std::vector<DecodedRow>> output_;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace agentvcr::store::detail
