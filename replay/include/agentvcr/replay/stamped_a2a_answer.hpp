#pragma once

// A recorded A2A answer made ready once to be replayed again and again: its reply with holes
// where each replay writes the live call's JSON-RPC ids, so that a repeated call is answered
// without reading the archive or parsing JSON (docs/replay.md, "The memo").

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/holed_text.hpp"

namespace agentvcr::replay {

/// A JSON-RPC response, or a batch of them, as the agent wrote it with a hole at each `id`
/// a2a::restampIds() replaces: filled with the live ids, the bytes restampIds() gives.
class StampedRpcResponse {
 public:
  /// `response` as recorded, answering `recorded_request` (parsed; null when it did not parse);
  /// nullopt when `response` is not JSON. `continuation` follows each line break of the text:
  /// `data: ` in an event stream, where each line of an event's data needs one.
  static std::optional<StampedRpcResponse> of(std::string_view response,
                                              const protocol::Json& recorded_request,
                                              std::string_view continuation = {});

  /// Appends the response with the ids of `live_request`: the request, or only its ids as
  /// protocol::jsonRpcIdsOnly() reads them (all that restamping reads).
  void appendTo(std::string& out, const protocol::Json& live_request) const;

  std::size_t bytes() const;

 private:
  /// What fills one hole: the live id at a position of the batch (none: the live request's
  /// own id), or the recorded id when the live request has none there.
  struct Id {
    std::optional<std::size_t> position;
    std::string recorded;  ///< as the recorded answer wrote it
  };

  StampedRpcResponse() = default;

  /// Writes `text`, `continuation` after each of its line breaks.
  void writeText(std::string_view text, std::string_view continuation);

  HoledText text_;
  std::vector<Id> ids_;  ///< by slot
};

/// The whole reply to a recorded A2A call: status, content type and headers as replay gives
/// them, the hold, and the body or the event stream with holes for the live ids.
struct StampedA2aAnswer {
  /// One event of a recorded stream, written out; `data` is the restamped part (a JSON object
  /// with its `id`), between `before` and `after`.
  struct Event {
    std::chrono::nanoseconds delay{0};
    std::string before;
    std::optional<StampedRpcResponse> data;
    std::string after;
  };

  protocol::HttpReply reply;               ///< with the body left empty when `body` is set
  std::optional<StampedRpcResponse> body;  ///< the body, when replay restamps it
  std::vector<Event> events;               ///< the stream, when one was recorded whole

  /// The reply to `live_request` (as StampedRpcResponse::appendTo() takes it).
  protocol::HttpReply replyTo(const protocol::Json& live_request) const;

  /// Bytes held, for the cache's budget.
  std::size_t bytes() const;
};

}  // namespace agentvcr::replay
