#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/json_text.hpp"

/// Plain value rows read from an archive (docs/schema.md). No SQLite type appears here: the
/// CLI, the viewer and replay copy these freely between threads.
namespace agentvcr::store {

/// Whether a session's recorder still writes it (docs/schema.md, "sessions").
enum class SessionState {
  Ended,        ///< closed: `ended_ns` is set
  Running,      ///< not ended, and its recorder holds the session's lock
  Interrupted,  ///< not ended, and no process holds its lock: the recorder died before its end
  Unknown,      ///< not ended, and no lock can be seen from here (a fleet archive's session)
};

/// "ended", "running", "interrupted" or "open" (Unknown: not ended, nothing more known).
constexpr const char* sessionStateName(SessionState state) {
  switch (state) {
    case SessionState::Ended:
      return "ended";
    case SessionState::Running:
      return "running";
    case SessionState::Interrupted:
      return "interrupted";
    case SessionState::Unknown:
      break;
  }
  return "open";
}

/// One recording run (`sessions`), with counters the writer keeps up to date per batch.
struct SessionRow {
  std::int64_t id = 0;
  std::string uuid;  ///< RFC 4122, minted when the session was first recorded; kept by copies
  std::string node;  ///< where it was recorded: a host name, `--node`, or `unknown`
  std::optional<std::string> recorder_version;  ///< the agentvcr that recorded it; empty: older
  std::optional<std::string> derived_from;      ///< the uuid it was copied from with --as-new
  std::string name;
  std::string mode;
  std::string upstream;
  std::string listen;
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> ended_ns;  ///< empty while the recorder runs (or if it crashed)
  /// Told by the reader: ArchiveReader asks the session's lock, a fleet archive cannot.
  SessionState state = SessionState::Unknown;
  std::optional<std::string> agent_health;   ///< raw /health body
  std::optional<std::string> agent_info;     ///< raw /v1/info body
  std::optional<std::string> agent_id;       ///< from a valid /v1/info
  std::optional<std::string> agent_version;  ///< from a valid /v1/info

  std::int64_t exchange_count = 0;
  std::int64_t step_count = 0;
  std::int64_t candidate_count = 0;
  std::int64_t internal_step_count = 0;
  std::int64_t conversation_count = 0;
  std::int64_t error_candidate_count = 0;   ///< candidates with status "error"
  std::int64_t failed_exchange_count = 0;   ///< outcome not "complete", or status >= 400
  std::int64_t invalid_exchange_count = 0;  ///< request or response failed validation
};

/// One conversation: a root step and every step threaded below it (`conversations`).
struct ConversationRow {
  std::int64_t id = 0;
  std::int64_t session_id = 0;
  std::optional<std::int64_t> root_step_id;
  std::optional<std::string> title;  ///< first user instruction, whitespace folded, truncated
  std::int64_t step_count = 0;
  std::int64_t candidate_count = 0;
  std::int64_t error_candidates = 0;
  std::int64_t env_failures = 0;  ///< env steps whose feedback reports a failure
  std::int64_t max_depth = 0;     ///< root is depth 0
  std::optional<std::int64_t> first_ns;
  std::optional<std::int64_t> last_ns;
  /// Kind of the most recently recorded candidate: "say", "tool_calls", "mixed", "empty" or
  /// "error"; empty while no candidate was recorded.
  std::optional<std::string> ended_in;
  std::string protocol = "magma";         ///< "magma" or "a2a"
  std::optional<std::string> context_id;  ///< A2A: the contextId the calls share
};

/// One MAGMA input of a valid POST /v1/responses request (`steps`).
struct StepRow {
  std::int64_t id = 0;
  std::int64_t exchange_id = 0;
  std::int64_t session_id = 0;
  std::int64_t position = 0;   ///< index in the request's `inputs`
  std::int64_t source_id = 0;  ///< the input's `id`
  std::uint64_t replay_key = 0;
  std::string instruction_type;  ///< "user" or "env"
  std::string instruction_content;
  /// protocol::toJson(decodeEnvFeedback(content)) for env steps, null otherwise.
  protocol::Json env_feedback;
  std::optional<bool> env_failure;  ///< EnvFeedback::anyFailure() for env steps
  std::uint64_t memory_hash = 0;    ///< keys into blobs (ArchiveReader::blob)
  std::uint64_t tools_hash = 0;
  std::uint64_t attributes_hash = 0;
  std::uint64_t extra_keys_hash = 0;
  std::int64_t num_outputs = 1;
  std::int64_t conversation_id = 0;
  std::optional<std::int64_t> parent_candidate_id;  ///< empty for a root
  std::optional<std::int64_t> parent_step_id;       ///< the parent candidate's step
  std::int64_t parent_ambiguity = 0;  ///< candidates whose memory matched (0 root, 1 exact)
  std::int64_t depth = 0;             ///< 0 for a root
  std::int64_t candidate_count = 0;
};

/// A live conversation of a fork: the recorded step its first live step asked again, at the
/// fork depth, and the recorded prefix it continues (ArchiveReader::forkOrigin).
struct ForkOrigin {
  StepRow reasked;
  std::vector<StepRow> prefix;  ///< depth 0 to the fork depth - 1, the path down to `reasked`
};

/// What a timeline lists of a step without reading its texts (ArchiveReader::stepOutlines): its
/// place in the tree, the kind of its instruction and how its candidates ended, in counts. A
/// conversation of 50,000 steps keeps one per step; a row's texts are read when it is in sight.
struct StepOutline {
  std::int64_t id = 0;
  std::int64_t exchange_id = 0;
  std::optional<std::int64_t> parent_candidate_id;  ///< empty for a root
  std::optional<std::int64_t> parent_step_id;       ///< the parent candidate's step
  std::int64_t depth = 0;                           ///< 0 for a root
  bool env = false;                                 ///< instruction_type is "env"
  bool env_failure = false;                         ///< StepRow::env_failure, false when empty
  std::int32_t error_candidates = 0;                ///< candidates with status "error"
  std::int32_t forking_candidates = 0;              ///< candidates with steps threaded below
};

/// One output of a valid response (`candidates`).
struct CandidateRow {
  std::int64_t id = 0;
  std::int64_t step_id = 0;
  std::int64_t candidate_index = 0;
  std::string status;  ///< "completed" or "error"
  std::optional<std::string> say;
  std::optional<std::string> tool_calls;  ///< JSON array text
  std::optional<std::string>
      decision_kind;  ///< "say", "tool_calls", "mixed", "empty"; empty on error
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
  std::optional<std::string> error_component;
  std::uint64_t memory_hash = 0;  ///< the memory this candidate returned
  std::int64_t internal_step_count = 0;
  std::int64_t child_count = 0;  ///< steps threaded below this candidate
};

/// One entry of a candidate's `internal_steps` (`internal_steps`). Entries are opaque JSON:
/// each typed field is set only when the entry holds it as a string.
struct InternalStepRow {
  std::int64_t id = 0;
  std::int64_t candidate_id = 0;
  std::int64_t position = 0;
  std::optional<std::string> step_key;  ///< the entry's "id"
  std::optional<std::string> component;
  std::optional<std::string> origin;
  std::optional<std::string> full_prompt;
  std::optional<std::string> output_raw;
  std::string body;  ///< the whole entry, canonical JSON text
};

/// An internal step whose entry says how long it took: a number `duration_ms` or
/// `duration_seconds` member (agents that time their model calls write one; the contract does
/// not require it). The entry does not say when it started: entries are in execution order, so
/// a reader lays them end to end from the moment the agent received the request.
struct TimedInternalStep {
  std::int64_t step_id = 0;  ///< its candidate's step
  std::int64_t candidate_id = 0;
  std::int64_t candidate_index = 0;
  std::string candidate_status;  ///< its candidate's: "completed" or "error"
  std::int64_t position = 0;
  std::optional<std::string> step_key;  ///< the entry's "id"
  std::optional<std::string> component;
  std::int64_t duration_ns = 0;
};

/// One HTTP exchange (`exchanges`). Lists (ArchiveReader::exchanges) leave headers and bodies
/// empty and set only their sizes; ArchiveReader::exchange fills everything.
struct ExchangeRow {
  std::int64_t id = 0;
  std::int64_t session_id = 0;
  std::int64_t seq = 0;  ///< 0, 1, 2... in capture order within the session (docs/schema.md)
  std::string client_address;
  std::string method;
  std::string target;
  unsigned http_version = 11;
  int status = 0;
  bool has_payload = false;           ///< true when headers and bodies below were loaded
  protocol::Headers request_headers;  ///< secrets already redacted
  std::string request_body;
  bool request_body_redacted = false;  ///< a coaching session body had backend headers redacted
  protocol::Headers response_headers;
  std::string response_body;
  std::int64_t request_body_size = 0;
  std::int64_t response_body_size = 0;
  bool response_from_upstream = false;
  /// The timing points (protocol::Exchange); empty when the moment never came or, for rows
  /// older than schema 11 (upstream_last_byte_ns: 14), was never measured.
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> request_ended_ns;
  std::optional<std::int64_t> upstream_sent_ns;
  std::optional<std::int64_t> upstream_first_byte_ns;
  std::optional<std::int64_t> upstream_last_byte_ns;
  std::optional<std::int64_t> ended_ns;
  std::string outcome;  ///< protocol::outcomeName
  std::optional<std::string> error;
  std::optional<std::string> fault;  ///< the fault the proxy injected, if it did
  /// How the client's answer differs from the agent's (protocol::Exchange::card_rewrite).
  std::optional<std::string> card_rewrite;
  std::string protocol;  ///< "magma" or "http"
  std::string route;     ///< protocol::magma::routeName
  std::optional<std::string> magma_request_id;
  std::optional<bool> request_valid;    ///< empty when no validation applies
  std::optional<bool> response_valid;   ///< empty when no validation applies
  std::optional<std::string> findings;  ///< JSON array of {"side","type","loc","msg"}
};

/// Row counts of a whole archive.
struct ArchiveCounts {
  std::int64_t sessions = 0;
  std::int64_t exchanges = 0;
  std::int64_t steps = 0;
  std::int64_t candidates = 0;
  std::int64_t internal_steps = 0;
  std::int64_t conversations = 0;
  std::int64_t blobs = 0;
};

/// What replay's index needs of one recorded step (ArchiveReader::forEachReplayStep): the key,
/// the parts whose hashes score near misses, and whether the recorded exchange answered it.
struct ReplayStepRef {
  std::int64_t step_id = 0;
  std::int64_t exchange_id = 0;
  std::int64_t session_id = 0;
  std::int64_t conversation_id = 0;
  std::int64_t position = 0;
  std::int64_t depth = 0;  ///< in its conversation, 0 for a root: what --fork-at compares
  std::int64_t source_id = 0;
  std::uint64_t replay_key = 0;
  std::string instruction_type;
  std::string instruction_content;
  std::uint64_t memory_hash = 0;
  std::uint64_t tools_hash = 0;
  std::uint64_t attributes_hash = 0;
  std::uint64_t extra_keys_hash = 0;
  std::int64_t num_outputs = 1;
  std::int64_t candidate_count = 0;    ///< recorded candidates (0 unless response_valid)
  int exchange_status = 0;             ///< status the caller received
  std::optional<bool> response_valid;  ///< exchanges.response_valid
  /// The exchange's timing points that tell how long the agent thought (ExchangeRow).
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> upstream_sent_ns;
  std::optional<std::int64_t> upstream_first_byte_ns;
  /// The replay scope the step was recorded in (the request's X-Agentvcr-Scope), empty for none.
  std::string scope;
};

/// One A2A JSON-RPC call (a batch has several per exchange) with what the caller got.
struct A2aCallRow {
  std::int64_t id = 0;
  std::int64_t exchange_id = 0;
  std::int64_t session_id = 0;
  std::int64_t position = 0;  ///< index in a batch; 0 for a single call
  std::string wire_version;   ///< "0.3" or "1.0"
  std::optional<std::string> method;
  std::optional<std::string> rpc_id;  ///< JSON text of the request id
  std::optional<std::string> task_id;
  std::optional<std::string> context_id;
  std::optional<std::string> skill_id;
  std::optional<std::string> message_id;
  std::optional<std::string> task_state;       ///< as on the wire: `completed`, `TASK_STATE_FAILED`
  std::optional<std::string> task_state_norm;  ///< protocol::a2a::normalTaskState of it
  std::optional<std::string> result_kind;
  std::optional<std::string> artifacts;  ///< JSON array text
  std::optional<std::string> history;    ///< JSON array text
  std::optional<std::string> request_text;
  std::optional<std::string> response_text;
  std::optional<std::int64_t> error_code;
  std::optional<std::string> error_message;
  std::optional<std::string> error_data;  ///< JSON text
  std::optional<double> retry_after;
  std::uint64_t replay_key = 0;
  std::optional<std::int64_t> conversation_id;
  int status = 0;                    ///< HTTP status of the exchange
  std::optional<std::string> fault;  ///< the fault chaos injected into the exchange, if any
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> ended_ns;
  std::int64_t stream_event_count = 0;  ///< events of the exchange's event-stream response
};

/// A live A2A context of a fork: the recorded call its first live call asked again (the
/// --fork-at N-th of its context) and the recorded calls of that context before it
/// (ArchiveReader::a2aForkOrigin).
struct A2aForkOrigin {
  A2aCallRow reasked;
  std::vector<A2aCallRow> prefix;  ///< in recording order
};

/// One event of an event-stream response, as it reached the proxy.
struct StreamEventRow {
  std::int64_t id = 0;
  std::int64_t exchange_id = 0;
  std::int64_t position = 0;
  std::int64_t at_ns = 0;  ///< when its last byte arrived
  std::optional<std::string> event;
  std::optional<std::string> event_id;
  std::string data;
};

/// Which recorded data replay serves. Empty lists select everything; otherwise the union of
/// the listed sessions and the listed conversations.
struct ReplaySelection {
  std::vector<std::int64_t> sessions;
  std::vector<std::int64_t> conversations;

  bool all() const { return sessions.empty() && conversations.empty(); }
};

/// The response half of an exchange, as the caller received it (ArchiveReader::recordedResponse).
struct RecordedResponse {
  int status = 0;
  protocol::Headers headers;  ///< secrets already redacted
  std::string body;
};

/// What the viewer's search box and filters ask for (ArchiveReader::search). Every set condition
/// must hold. Each candidate condition holds when some candidate of the step satisfies it (not
/// necessarily the same candidate for two conditions). A2A calls are found by their text,
/// session and latency; a query with a candidate condition (tool, robot, status, error code)
/// finds MAGMA steps only.
struct SearchQuery {
  /// Words to find (all of them, any order, in one field; a trailing * matches a prefix).
  /// Words are split on whitespace and each is searched as a quoted FTS5 string, so nothing in
  /// them is FTS5 syntax. Empty (or only whitespace): no text condition.
  std::string text;
  std::optional<std::int64_t> session_id;
  std::optional<std::string> tool;             ///< a candidate of the step called this tool
  std::optional<std::string> robot;            ///< ... targeted this robot (target_robot_name)
  std::optional<std::string> status;           ///< ... has this status ("completed", "error")
  std::optional<std::string> error_code;       ///< ... failed with this error code
  std::optional<std::int64_t> min_latency_ns;  ///< the step's exchange took at least this long
  std::size_t limit = 200;                     ///< steps and calls together
};

/// One step (or A2A call) that matches, with where and how the text matched.
struct SearchHit {
  std::int64_t step_id = 0;          ///< 0 for an A2A call
  std::int64_t a2a_call_id = 0;      ///< the call's id (a2a_calls); 0 for a step
  std::int64_t exchange_id = 0;      ///< the exchange the step or call is part of
  std::int64_t conversation_id = 0;  ///< 0 for an A2A call no conversation holds
  std::int64_t session_id = 0;
  /// "instruction", "env_feedback", "say", "error", "full_prompt", "output_raw"; for an A2A
  /// call "a2a_request", "a2a_response", "a2a_error". Empty when only filters were given.
  std::string field;
  /// A short excerpt of that field with the matched words between [ and ] (FTS5 snippet(), "…"
  /// where the text was cut); empty without text.
  std::string snippet;
  /// A "full_prompt" hit: how many later steps' prompts repeat what this step's prompt added.
  /// A prompt is searched by what it adds to the prompt it continues, so the hit is the first
  /// step of its conversation whose prompt carried the text.
  std::int64_t repeated_by = 0;
};

/// One input (or coaching request) a replay could not answer from the archive, with the
/// closest recorded input and where they differ (`replay_misses`).
struct ReplayMissRow {
  std::int64_t id = 0;                    ///< set by the archive
  std::int64_t session_id = 0;            ///< set by the archive: the replay's own session
  std::int64_t at_ns = 0;                 ///< when replay looked it up, ns since the Unix epoch
  std::string route;                      ///< protocol::magma::routeName of the request
  std::string request_id;                 ///< the live request_id; empty when the request has none
  std::int64_t position = 0;              ///< index in the live request's inputs (0 otherwise)
  std::optional<std::int64_t> source_id;  ///< the live input's id
  std::uint64_t replay_key = 0;
  std::string input;  ///< canonical JSON of the live input (or coaching body), secrets redacted
  std::optional<std::int64_t> closest_step_id;  ///< the closest recorded step, if any
  std::string differences;  ///< JSON array of JSON pointers where input and closest differ
  std::string policy;       ///< "error", "http" or "forward"
};

}  // namespace agentvcr::store
