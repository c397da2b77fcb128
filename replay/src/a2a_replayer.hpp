#pragma once

// Replay of recorded A2A JSON-RPC exchanges (docs/replay.md, "A2A"): keyed on the HTTP method,
// path, JSON-RPC method and params without the id; answered with the live id re-stamped; event
// streams served event by event; every agent card `record` points at itself (the card GETs, the
// extended card's answers) pointed at the replay itself.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/exchange_cache.hpp"
#include "agentvcr/replay/recorded_outputs.hpp"
#include "agentvcr/replay/recorded_queue.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/replay/request_memo.hpp"
#include "agentvcr/replay/stamped_a2a_answer.hpp"

namespace agentvcr::replay::detail {

class A2aReplayer {
 public:
  /// Loads the A2A calls and agent cards of the selection.
  A2aReplayer(ReaderPool& readers, const ReplayOptions& options);

  /// True when `request` is A2A: an agent card GET, a JSON-RPC body, a call of the HTTP+JSON
  /// binding, or a request to a path where A2A calls were recorded (a body that does not parse
  /// still gets the recorded parse error).
  bool serves(const protocol::HttpRequest& request) const;

  /// Whether `request` is a call of the HTTP+JSON binding (restRouteIn, with A2A's own signs
  /// for the generic GETs).
  static bool isRestCall(const protocol::HttpRequest& request);

  ReplayOutcome respond(const protocol::HttpRequest& request, const Forwarder* forward,
                        std::string_view scope);

  /// Every call serves its first recorded answer next: in `scope`, or everywhere.
  void rewind(std::optional<std::string_view> scope) {
    std::lock_guard lock(mutex_);
    scope ? queues_.rewind(*scope) : queues_.rewind();
  }

  std::size_t exchangeCount() const { return recorded_.size(); }

  /// Recorded calls replay can answer (a batch holds several), and the contexts they belong to.
  std::size_t callCount() const { return call_count_; }

  std::size_t contextCount() const { return context_count_; }

  /// Empty when the memo is off (ReplayOptions::memo_bytes 0).
  std::optional<MemoStats> memoStats() const;

 private:
  /// What the memo keeps of a call it has seen: its key, and the size of its batch.
  struct MemoEntry {
    std::uint64_t key = 0;
    std::optional<std::size_t> batch_size;
  };

  using Memo = RequestMemo<MemoEntry>;

  /// The key of a call that differed from `request` in its ids only (a call of the HTTP+JSON
  /// binding: in nothing), and `request`'s ids as restamping reads them; empty when there is
  /// none. Sets `masked` to the memo's key for `request` when its ids could be found.
  std::optional<std::pair<std::uint64_t, protocol::Json>> remembered(
      const protocol::HttpRequest& request, std::string& masked);

  /// What replay needs of one recorded A2A exchange to answer again.
  struct Recorded {
    std::int64_t exchange_id = 0;
    std::int64_t session_id = 0;   ///< the session it was recorded in: a fork's origin
    std::int64_t think_ns = 0;     ///< recordedThinkTime, what --pace holds the answer by
    std::int64_t answered_ns = 0;  ///< the answer's first byte, where event gaps count from
    protocol::Json request;        ///< the request body parsed (null when it did not parse)
    /// A call of the HTTP+JSON binding: its answer carries no JSON-RPC id to re-stamp.
    bool rest = false;
    /// How many calls of its context (its conversation) were recorded before it: --fork-at
    /// counts these. Empty for a call in none.
    std::optional<std::int64_t> in_context;
  };

  /// A task a recorded answer returned, served to a tasks/get that was not recorded as such.
  struct KnownTask {
    std::int64_t exchange_id = 0;
    std::size_t position = 0;
  };

  /// The HTTP+JSON route of a request this replayer serves whose body is no JSON-RPC: the route
  /// its path names, the generic GETs included, as serves() found the request to be A2A. Keys
  /// and misses both ask it, so that a call keyed as the binding's misses in the binding's shape.
  static std::optional<protocol::a2a::RestRoute> restRouteOf(const protocol::HttpRequest& request,
                                                             const protocol::Json& body);

  std::uint64_t keyOf(const protocol::HttpRequest& request, const protocol::Json& body) const;
  /// Every request but a card GET: a recorded call, a known task, or a miss.
  ReplayOutcome answerCall(const protocol::HttpRequest& request, const Forwarder* forward,
                           std::string_view scope);
  ReplayOutcome answerCard(const protocol::HttpRequest& request);
  /// Points the agent cards `reply` carries at this replay, as `record` points them at itself
  /// (the same a2a::cardCarrierOf()): at the address the caller used (its Host), path kept,
  /// with an entity tag of the bytes served.
  static void pointCardsHere(const protocol::HttpRequest& request, protocol::HttpReply& reply);
  protocol::HttpReply recordedAnswer(const Recorded& recorded, const protocol::Json& live_request);
  /// recordedAnswer()'s reply, made ready once: read and parsed the first time only.
  std::shared_ptr<const StampedA2aAnswer> stampedAnswer(const Recorded& recorded);
  protocol::HttpReply streamedAnswer(const Recorded& recorded,
                                     const store::RecordedResponse& response,
                                     const protocol::Json& live_request);
  std::optional<protocol::HttpReply> knownTaskAnswer(const protocol::Json& live_request);
  ReplayOutcome miss(const protocol::HttpRequest& request, const protocol::Json& body,
                     std::uint64_t key, const Forwarder* forward);
  /// The live agent's answer to `request`, or a JSON-RPC error naming why there is none.
  /// `reasked`: the recorded exchange a call forked past --fork-at asks again; empty for a miss.
  static protocol::HttpReply forwarded(const protocol::HttpRequest& request,
                                       const protocol::Json& body, const Forwarder& forward,
                                       const Reasked& reasked = {});

  ReaderPool& readers_;
  const ReplayOptions& options_;
  std::vector<Recorded> recorded_;
  std::size_t call_count_ = 0;
  std::size_t context_count_ = 0;
  std::set<std::string> paths_;                       ///< where A2A calls were recorded
  std::map<std::string, std::int64_t> cards_;         ///< card path -> latest 2xx exchange
  std::unordered_map<std::string, KnownTask> tasks_;  ///< task id -> latest answer holding it
  std::mutex mutex_;                                  ///< guards queues_
  RecordedQueues<std::size_t> queues_;                ///< key -> indexes into recorded_
  std::unique_ptr<Memo> memo_;
  /// With the memo: recorded answers made ready to stamp, so that a hit reads no archive.
  std::unique_ptr<ExchangeCache<StampedA2aAnswer>> stamped_;
};

}  // namespace agentvcr::replay::detail
