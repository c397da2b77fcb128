#pragma once

// Where a caller's own ids sit in the bytes of a request, found by a structural JSON scan: the
// ids a caller mints afresh on every run (MAGMA's request_id and input ids, a JSON-RPC id),
// which replay answers with but never matches on. Two requests whose bytes agree outside these
// places ask the same thing, which lets replay remember the work a request took (docs/replay.md,
// "The memo").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {

/// The request shapes whose ids can be found.
enum class IdLayout {
  MagmaRequest,        ///< `request_id`, and `id` of each element of `inputs`
  JsonRpc,             ///< `id` of the request object, or of each element of a batch
  JsonRpcAndMessageId  ///< also `params.message.messageId` of each request object
};

/// Which id a span holds.
enum class IdField { RequestId, InputId, JsonRpcId, MessageId };

/// The bytes [begin, end) of one id's value (a string with its quotes, or a number, or a
/// literal) in the text.
struct IdSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  IdField field = IdField::RequestId;
  /// Which element of `inputs` (InputId) or of the batch (JsonRpcId, MessageId) it belongs to;
  /// 0 for a request that is not a batch.
  std::size_t element = 0;

  friend bool operator==(const IdSpan&, const IdSpan&) = default;
};

/// The id spans of `text`, in text order. Returns nullopt, for the caller to take the ordinary
/// path, when the scan cannot vouch for the spans:
/// - the text is not one JSON object (or, for JSON-RPC, an array of values) with only
///   whitespace around it;
/// - a byte outside a string is not part of JSON's structure, or a string holds a raw control
///   byte (so no JSON text holds the NUL byte maskIds() writes);
/// - a member name on the way to an id holds an escape or comes twice in its object (a parser
///   keeps the last one, and the scan would have to decode names to agree with it);
/// - an id is an object or an array.
/// The scan checks structure only: numbers, literals and escapes inside strings are left to
/// the parser, which the caller runs on whatever it has not seen before.
std::optional<std::vector<IdSpan>> findCallerIds(std::string_view text, IdLayout layout);

/// `text` with each span (in text order, as findCallerIds() gives them) replaced by one NUL
/// byte. Two texts with the same masked form differ in nothing but their ids' values.
std::string maskIds(std::string_view text, const std::vector<IdSpan>& spans);

/// The ids of a MAGMA request, as validation reads them.
struct MagmaCallerIds {
  std::string request_id;
  std::vector<std::int64_t> input_ids;  ///< in the order of `inputs`
};

/// Reads the ids at `spans` (findCallerIds() of `text` with IdLayout::MagmaRequest) and checks
/// them as magma::parseAgentRequest() does: a non-empty string request_id, input ids that are
/// unique integers within int64. Empty when one fails, which the caller answers by validating
/// the whole request.
std::optional<MagmaCallerIds> readMagmaCallerIds(std::string_view text,
                                                 const std::vector<IdSpan>& spans);

/// The JSON-RPC ids at `spans` (findCallerIds() of `text` with a JSON-RPC layout) as a request
/// that holds nothing else: `{"id": …}` (or `{}` without an id), or for a batch of
/// `batch_size` elements, an array of those, by position. That is all re-stamping a recorded
/// answer reads of the live request. Empty when a value, a messageId's included, does not parse.
std::optional<Json> jsonRpcIdsOnly(std::string_view text, const std::vector<IdSpan>& spans,
                                   std::optional<std::size_t> batch_size);

}  // namespace agentvcr::protocol
