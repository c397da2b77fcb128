#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/rows.hpp"
#include "agentvcr/store/step_links.hpp"

namespace agentvcr::store {

/// Read-only access to an archive for the CLI, the viewer and replay. Opens its own read-only
/// connection, so it works while a Recorder writes the same file (WAL): every call sees the
/// batches committed before it started. Every query is an index lookup or range (search()
/// reads index ranges until it has found `limit` steps); lists that can grow without bound are
/// paged.
///
/// Thread-safety: one ArchiveReader per thread (it owns one SQLite connection); distinct
/// readers may run concurrently. Errors (I/O, a corrupt file) throw std::runtime_error.
class ArchiveReader {
 public:
  static constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();

  /// Throws std::runtime_error when the file is missing, not an archive, or its schema version
  /// is not ours (an older archive must first be migrated: store::migrateArchive()).
  explicit ArchiveReader(const std::string& path,
                         std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});
  ~ArchiveReader();
  ArchiveReader(ArchiveReader&&) noexcept;
  ArchiveReader& operator=(ArchiveReader&&) noexcept;
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  /// All sessions, oldest first (there are few).
  std::vector<SessionRow> sessions() const;
  std::optional<SessionRow> session(std::int64_t id) const;

  /// Conversations of a session with id > after_id, by id, at most `limit` (keyset paging).
  std::vector<ConversationRow> conversations(std::int64_t session_id, std::int64_t after_id = 0,
                                             std::size_t limit = kNoLimit) const;
  std::optional<ConversationRow> conversation(std::int64_t id) const;

  /// Steps of a conversation in tree order: depth-first, a parent before its children,
  /// siblings by id.
  std::vector<StepRow> steps(std::int64_t conversation_id) const;
  /// The steps of steps(), handed to `visit` one at a time in the same order, each one's env
  /// feedback decoded just before: a caller that keeps less of a step than its row (the
  /// viewer's timeline) never holds thousands of decoded feedbacks at once. The query is done
  /// before the first visit, so `visit` may call this reader.
  void forEachStep(std::int64_t conversation_id, const std::function<void(StepRow&&)>& visit) const;
  /// The steps of steps(), in the same order, as outlines: no texts, no blobs, one query.
  std::vector<StepOutline> stepOutlines(std::int64_t conversation_id) const;
  std::optional<StepRow> step(std::int64_t id) const;
  /// Steps of one exchange by position in the request.
  std::vector<StepRow> stepsOfExchange(std::int64_t exchange_id) const;
  /// The env steps of a session whose feedback reports a failure (env_failure), by id: what
  /// the viewer's charts count failures per tool from, without reading the session's other
  /// steps. One pass over the session's steps (steps_session).
  std::vector<StepRow> envFailureSteps(std::int64_t session_id) const;
  /// Every recorded step with this replay key, oldest first (for replay's FIFO per key).
  std::vector<StepRow> stepsWithReplayKey(std::uint64_t replay_key) const;

  /// Candidates of a step by candidate_index.
  std::vector<CandidateRow> candidates(std::int64_t step_id) const;
  std::optional<CandidateRow> candidate(std::int64_t id) const;
  /// Internal steps of a candidate by position.
  std::vector<InternalStepRow> internalSteps(std::int64_t candidate_id) const;

  /// Exchanges of a session with seq >= offset, by seq, at most `limit`, without headers and
  /// bodies (sizes only). seq is dense from 0 in a session, so this is offset paging done as an
  /// index range: the cost does not grow with the offset.
  std::vector<ExchangeRow> exchanges(std::int64_t session_id, std::int64_t offset,
                                     std::size_t limit) const;
  /// One exchange with headers and bodies.
  std::optional<ExchangeRow> exchange(std::int64_t id) const;

  /// Canonical JSON text of a blob (memories, tools, attributes, extra_keys).
  std::optional<std::string> blob(std::uint64_t hash) const;

  /// The recorded AgentInput object rebuilt from the step's columns and blobs:
  /// {id, instruction{type,content}, tools, attributes, memory, num_outputs, extra_keys}.
  /// Its canonical JSON equals that of the input as parsed (defaults filled in).
  std::optional<protocol::Json> inputJson(std::int64_t step_id) const;
  /// The recorded AgentOutput object rebuilt from the candidate (request_id, source_id,
  /// candidate_index, status, memory, internal_steps, output, error).
  std::optional<protocol::Json> outputJson(std::int64_t candidate_id) const;

  /// Calls `visit` for every recorded step in `selection` (the steps of the listed sessions
  /// and of the listed conversations; all when both lists are empty), in recording order (step
  /// id), each once, from one streaming query: what replay loads its index from at start. One
  /// pass over `steps` (docs/schema.md, Indexes). Steps of exchanges chaos faulted are left
  /// out, but for an injected latency: they hold no answer of the agent's to serve. `visit`
  /// may call this reader; an exception it throws stops the pass and propagates.
  void forEachReplayStep(const ReplaySelection& selection,
                         const std::function<void(const ReplayStepRef&)>& visit) const;
  /// Exchanges whose `route` column is `route` (protocol::magma::routeName) in the sessions of
  /// `selection` (the listed sessions and those of the listed conversations; all when both are
  /// empty), by id (oldest first), with headers and bodies: the health, info and coaching
  /// exchanges replay answers from, without those chaos faulted (as forEachReplayStep). An
  /// index lookup (exchanges(route, session_id)).
  std::vector<ExchangeRow> exchangesOfRoute(const ReplaySelection& selection,
                                            const std::string& route) const;
  /// Status, headers and body the caller received in exchange `exchange_id`; empty when there is
  /// no such exchange.
  std::optional<RecordedResponse> recordedResponse(std::int64_t exchange_id) const;
  /// Misses a replay session recorded (Recorder::tryRecordReplayMiss), in id (commit) order.
  std::vector<ReplayMissRow> replayMisses(std::int64_t session_id) const;

  /// Steps matching every condition of `query`, one hit per step (its best-ranked field: lowest
  /// FTS5 bm25), in step id order, at most `query.limit`. The text goes through the full-text
  /// indexes and is never passed raw to FTS5: hostile input cannot raise a syntax error. Stops
  /// reading as soon as `limit` steps are found (docs/schema.md, Search).
  std::vector<SearchHit> search(const SearchQuery& query) const;
  /// Each hit's number in its conversation as the viewer's timeline shows it ("#3"), from 1:
  /// a step's place in stepOutlines() of its conversation, a call's in a2aCalls(); 0 for a call
  /// no conversation holds. One read per conversation the hits touch.
  std::vector<std::int64_t> timelineNumbers(const std::vector<SearchHit>& hits) const;
  /// Distinct exchanges that carry the steps of a conversation, in exchange (commit) order.
  std::vector<std::int64_t> exchangeIdsOfConversation(std::int64_t conversation_id) const;
  /// The exchanges that carry the steps or the A2A calls of a conversation, in commit order,
  /// as rows without headers and bodies (as exchanges()): their timing points, status, outcome
  /// and fault, in one query however many steps the conversation has.
  std::vector<ExchangeRow> exchangesOfConversation(std::int64_t conversation_id) const;
  /// The rows of exchangesOfConversation(), handed to `visit` one at a time: a caller that
  /// keeps only their timings (the viewer's timeline) never holds thousands of rows at once.
  /// `visit` must not call this reader.
  void forEachExchangeOfConversation(std::int64_t conversation_id,
                                     const std::function<void(ExchangeRow&&)>& visit) const;
  /// The internal steps of a conversation's candidates that say how long they took
  /// (TimedInternalStep), by step, candidate index and position.
  std::vector<TimedInternalStep> timedInternalSteps(std::int64_t conversation_id) const;

  /// A2A calls of a conversation, in recording order.
  std::vector<A2aCallRow> a2aCalls(std::int64_t conversation_id) const;
  /// One A2A call by id; empty when there is none.
  std::optional<A2aCallRow> a2aCall(std::int64_t call_id) const;
  /// A2A calls of one exchange, by position in a batch.
  std::vector<A2aCallRow> a2aCallsOfExchange(std::int64_t exchange_id) const;
  /// Calls `visit` for every A2A call in `selection` (the listed sessions and conversations;
  /// all when both are empty), in recording order, from one streaming query; without the calls
  /// of exchanges chaos faulted (as forEachReplayStep).
  void forEachA2aCall(const ReplaySelection& selection,
                      const std::function<void(const A2aCallRow&)>& visit) const;
  /// Events of an exchange's event-stream response, in order.
  std::vector<StreamEventRow> streamEvents(std::int64_t exchange_id) const;

  /// Links from the steps of evaluation session `session_id` to the recorded steps they
  /// re-asked (store/step_links.hpp), by step id.
  std::vector<StepLink> stepLinksOfSession(std::int64_t session_id) const;
  /// Links from the A2A calls of a fork or evaluation session to the recorded calls they asked
  /// again, by call id.
  std::vector<CallLink> callLinksOfSession(std::int64_t session_id) const;
  /// The recorded/evaluated conversation pairs `conversation_id` is part of (either side),
  /// oldest evaluation first: what the viewer's "diff with evaluation" opens.
  std::vector<EvaluationPair> evaluationPairs(std::int64_t conversation_id) const;

  /// Where a conversation of a `fork` session (`replay --fork-at`) leaves the recording: the
  /// recorded step its root asked again, and the recorded steps above that one, root first.
  /// Empty for any other conversation, and for a fork's conversation that began with a miss.
  std::optional<ForkOrigin> forkOrigin(std::int64_t conversation_id) const;
  /// The same for an A2A context of a fork: the recorded call its first call asked again, and
  /// the recorded calls of that context before it. Empty for any other conversation.
  std::optional<A2aForkOrigin> a2aForkOrigin(std::int64_t conversation_id) const;

  ArchiveCounts counts() const;
  int schemaVersion() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::store
