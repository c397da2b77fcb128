#pragma once

// How an A2A call reads in the timeline and the details panes: its state, its error, whether
// it went wrong, the wire version warning, and the text blocks of the details tabs. Plain
// std::string in and out (UTF-8), so it is tested without Qt.

#include <string>
#include <vector>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::viewer {

/// True when the call went wrong: a JSON-RPC error, an HTTP status of 400 or more, or a task
/// that ended `failed` or `rejected` (the normal state, so either wire spelling).
bool callFailed(const store::A2aCallRow& call);

/// True for a call on the v1.0 binding (`SendMessage`, `A2A-Version: 1.0`).
bool isV10Call(const store::A2aCallRow& call);

/// The state column: the task state in the one vocabulary of both wire versions
/// (`task_state_norm`: "input-required", "canceled"), or as sent when it is none of the known
/// states; "message" for a direct answer, "error" for a JSON-RPC error without a task; empty
/// when the answer said nothing of it.
std::string callStateText(const store::A2aCallRow& call);

/// The error in one line, "-32003 Rate limit exceeded (retry after 42 s)", "HTTP 401" when
/// only the status tells; empty when the call succeeded.
std::string callErrorText(const store::A2aCallRow& call);

/// Why the call's wire version deserves a look: a v1.0 call answered -32601 (method not found:
/// the agent speaks v0.3, as Magisterium does) or -32009 (version not supported). Empty for
/// every other call, v1.0 calls that were answered included.
std::string wireWarning(const store::A2aCallRow& call);

/// The details' Call tab: ids, method, skill, state, status and latency, the user text and the
/// answer text, then the error with its code, message, retryAfter and pretty-printed data.
std::string callText(const store::A2aCallRow& call);

/// The details' Artifacts tab: the answer's artifacts and the task history, pretty-printed.
std::string artifactsText(const store::A2aCallRow& call);

/// The details' Stream tab: one block per event with when it arrived after the first event and
/// after the request started, its `event:` and `id:` fields and its pretty-printed data.
std::string streamEventsText(const store::A2aCallRow& call,
                             const std::vector<store::StreamEventRow>& events);

}  // namespace agentvcr::viewer
