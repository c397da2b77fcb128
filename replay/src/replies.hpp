#pragma once

// Building replies: recorded ones as they were, and replay's own (422s, misses, forward
// failures) shaped like the reference FastAPI agents' bodies.

#include <string>
#include <string_view>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::replay::detail {

protocol::HttpReply jsonReply(int status, std::string body);

/// `{"detail":MESSAGE,"agentvcr_error":ID}`: replay speaking for itself (a miss under
/// --on-miss http, a forward that failed), with the stable id of docs/replay.md.
protocol::HttpReply agentvcrError(int status, std::string_view id, std::string_view message);

/// The recorded response as the caller received it: status, content type, the agent's other
/// headers and the body byte for byte.
protocol::HttpReply recordedReply(const store::RecordedResponse& response);

/// Reply headers worth repeating from a recording (e.g. `server`): all but those that describe
/// this transfer (Content-Length, Transfer-Encoding, Connection...), Date (it would be stale and
/// replies are deterministic) and Content-Type (HttpReply carries it). When `body_rewritten`,
/// Content-Encoding goes too, since replay writes plain JSON.
protocol::Headers replayableHeaders(const protocol::Headers& headers, bool body_rewritten);

/// The Content-Type of recorded headers, or "application/json" when there is none.
std::string contentTypeOf(const protocol::Headers& headers);

/// One line about a miss: what is missing and, when known, where the closest recorded input
/// (`closest`, e.g. "step 12") differs.
std::string missReason(std::string_view what, const std::optional<std::string>& closest,
                       const JsonDifferences& differences);

}  // namespace agentvcr::replay::detail
