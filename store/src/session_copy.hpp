#pragma once

// Import and merge write recorded exchanges again through a Recorder, so the archive decodes,
// threads and indexes them as if they had just been relayed.

#include <cstdint>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::store::detail {

/// The exchange `row` recorded (with headers and bodies). `event_at_ns` holds the times of its
/// stream events in order: they become response_arrivals at the end of each event of the body,
/// so the events keep their times once written again.
protocol::Exchange exchangeFromRow(const ExchangeRow& row,
                                   const std::vector<std::int64_t>& event_at_ns);

/// Submits `exchange`, waiting while the recorder's queue is full (a copy loses nothing).
/// Throws std::runtime_error when the recorder is closed.
void submitWaiting(Recorder& recorder, protocol::Exchange& exchange);

/// The SessionInfo that recreates `row`: name, mode, upstream, listen, start and end.
SessionInfo sessionInfoOf(const SessionRow& row);

}  // namespace agentvcr::store::detail
