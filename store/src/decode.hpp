#pragma once

// What the writer makes of one exchange, without SQLite. Redaction first, when the exchange is
// captured; decoding later, when it is indexed: route, validation, MAGMA steps and candidates,
// env feedback, A2A calls, stream events, content-addressed blobs.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::store::detail {

/// Bumped whenever decoding changes what it writes (exchanges.decoder_version).
inline constexpr int kDecoderVersion = 2;

/// Findings kept per side of an exchange; more are summarised in one "too_many_findings".
inline constexpr std::size_t kMaxFindingsPerSide = 50;

/// Where one of its exchange's bodies holds a value: the bytes [begin, end) of the request's or
/// the response's body.
struct BodyReference {
  bool response = false;
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct BlobText {
  std::uint64_t hash = 0;
  std::string text;  ///< canonical JSON
  /// A memory: distinct on nearly every step of an episode, so not worth a copy. Tools,
  /// attributes and extra keys repeat and are stored once, verbatim, for plain SQL.
  bool is_memory = false;
  /// Where the exchange's body holds a value whose canonical text is `text`: the archive keeps
  /// this reference instead of the text (schema 16; referenceMemories()).
  std::optional<BodyReference> in_body;
  /// `text` as a zstd frame, when the indexer chose to store it so (schema v9).
  std::optional<std::string> packed;
};

struct DecodedStep {
  std::int64_t position = 0;
  std::int64_t source_id = 0;
  std::uint64_t replay_key = 0;
  bool is_env = false;
  std::string content;
  std::optional<bool> env_failure;
  std::uint64_t memory_hash = 0;
  std::uint64_t tools_hash = 0;
  std::uint64_t attributes_hash = 0;
  std::uint64_t extra_keys_hash = 0;
  std::int64_t num_outputs = 1;
};

struct DecodedInternalStep {
  std::optional<std::string> step_key;
  std::optional<std::string> component;
  std::optional<std::string> origin;
  std::optional<std::string> full_prompt;
  /// Where the response body holds `full_prompt`: the offset of its string literal, which holds
  /// exactly that text. The archive keeps this reference instead of a copy (schema 16).
  std::optional<std::size_t> full_prompt_at;
  std::optional<std::string> output_raw;
  std::string rest;  ///< the entry without full_prompt/output_raw when they are strings
};

struct DecodedCandidate {
  std::size_t step_index = 0;         ///< into DecodedExchange::steps
  std::size_t response_position = 0;  ///< its index in the response's array
  std::int64_t candidate_index = 0;
  bool is_error = false;
  std::optional<std::string> say;
  std::optional<std::string> tool_calls;
  std::optional<std::string> decision_kind;
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
  std::optional<std::string> error_component;
  std::uint64_t memory_hash = 0;
  std::vector<DecodedInternalStep> internal_steps;

  /// "error" or the decision kind: what conversations.ended_in records.
  const std::string& endedIn() const;
};

/// One event of a text/event-stream response, with the time its last byte arrived.
struct DecodedStreamEvent {
  std::int64_t at_ns = 0;
  std::optional<std::string> event;
  std::optional<std::string> event_id;
  std::string data;
};

struct DecodedExchange {
  protocol::Exchange exchange;  ///< as captured: redacted
  bool request_body_redacted = false;
  std::string protocol;  ///< "magma" or "http"
  std::string route;
  std::optional<std::string> magma_request_id;
  std::optional<bool> request_valid;
  std::optional<bool> response_valid;
  std::optional<std::string> findings;  ///< JSON array text
  std::vector<BlobText> blobs;          ///< distinct within the exchange
  std::vector<DecodedStep> steps;
  std::vector<DecodedCandidate> candidates;
  std::vector<protocol::a2a::Call> a2a_calls;
  std::vector<DecodedStreamEvent> stream_events;

  bool failed() const;   ///< outcome not complete, or status >= 400
  bool invalid() const;  ///< request or response failed validation
};

/// An exchange as it is captured, before anything is decoded: every header redacted, and a
/// coaching session's body (which carries backend credentials).
struct RedactedExchange {
  protocol::Exchange exchange;
  bool request_body_redacted = false;
  std::string protocol;  ///< "magma" or "http" by the route; A2A is recognised when decoded
  std::string route;
  std::optional<std::string> findings;  ///< what redaction ran into (JSON array text)
};

/// What an exchange weighs against the recorder's memory bounds (RecorderOptions'
/// queue_byte_limit and index_memory_byte_limit, an index chunk's bytes): its bodies.
inline std::size_t bodyBytes(const protocol::Exchange& exchange) {
  return exchange.request_body.size() + exchange.response_body.size();
}

/// Redacts `exchange` (moved in). Never throws for anything the network controls: a header it
/// cannot vet is replaced, a coaching body it cannot read is dropped, each with a finding.
RedactedExchange redactExchange(protocol::Exchange&& exchange);

struct DecodeOptions {
  std::size_t max_decode_bytes = 64u << 20;
  /// Called after each exchange decodeRows() decodes (RecorderOptions::between_exchanges).
  std::function<void()> between_exchanges;
};

/// True when decodeExchange() would derive nothing from `r` (plain HTTP that is neither A2A nor
/// an event stream): the capture then marks it indexed itself, with the findings it has.
bool derivesNothing(const RedactedExchange& r);

/// Decodes a captured exchange (moved in), keeping the findings redaction raised. Never throws
/// for anything the network controls: a decoding surprise becomes a "decode_error" finding and
/// the raw exchange is still returned.
DecodedExchange decodeExchange(RedactedExchange&& redacted, const DecodeOptions& options);

/// Finds where the exchange's bodies hold the memories `wanted` accepts (a step's input memory
/// in the request, a candidate's in the response) and sets their BlobText::in_body, where the
/// value there reads back to exactly the memory's canonical text. Memories shorter than
/// kCompressFrom stay copies, readable with plain SQL.
void referenceMemories(DecodedExchange& d, const std::function<bool(std::uint64_t)>& wanted);

/// Splits an event-stream response into events timed by the exchange's body arrivals (an
/// event that arrived with no recorded time gets the time the exchange ended).
void decodeStreamEvents(DecodedExchange& d);

/// Recognises A2A (an agent card GET, or JSON-RPC in the request or response body, on any
/// path) and fills protocol, route and the calls. Leaves a non-A2A exchange as it is.
void decodeA2a(DecodedExchange& d, const DecodeOptions& options);

/// The conversation title for a user instruction: whitespace runs folded to one space, trimmed,
/// at most kTitleCodePoints code points (an ellipsis marks a cut).
inline constexpr std::size_t kTitleCodePoints = 80;

/// `text`, or nullopt when it is empty: how an optional text column is stored.
inline std::optional<std::string> nonEmpty(std::string text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(std::move(text));
}

std::string conversationTitle(const std::string& content);

/// Headers as a JSON array of [name, value] pairs, and back (lenient: bad input gives {}).
std::string headersToJson(const protocol::Headers& headers);
protocol::Headers headersFromJson(const std::string& text);

/// An event stream's piece times as a JSON array of [end, at_ns] pairs (nullopt when there are
/// none), and back (lenient: bad input gives none).
std::optional<std::string> arrivalsToJson(const std::vector<protocol::BodyArrival>& arrivals);
std::vector<protocol::BodyArrival> arrivalsFromJson(const std::optional<std::string>& text);

}  // namespace agentvcr::store::detail
