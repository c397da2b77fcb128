#pragma once

// Who spent an exchange's time: the caller sending its request, the proxy passing it on, the
// agent thinking, and the answer's way back (docs/schema.md, "Timing points").

#include <cstdint>
#include <optional>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::store {

/// An exchange's duration in four parts, in nanoseconds. A part is empty when one of its two
/// points was never reached (the agent never answered) or never measured (rows older than
/// schema 11).
struct TimingSplit {
  std::optional<std::int64_t> caller_to_proxy;  ///< request_ended_ns - started_ns
  std::optional<std::int64_t> proxy_to_agent;   ///< upstream_sent_ns - request_ended_ns
  std::optional<std::int64_t> agent;            ///< upstream_first_byte_ns - upstream_sent_ns
  /// ended_ns - upstream_first_byte_ns: the agent writing the rest of its answer and the
  /// relay to the caller, together (no point marks the agent's last byte).
  std::optional<std::int64_t> rest;
};

TimingSplit timingSplit(const ExchangeRow& exchange);

}  // namespace agentvcr::store
