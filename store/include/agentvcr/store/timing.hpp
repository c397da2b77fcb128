#pragma once

// Who spent an exchange's time: the caller sending its request, the proxy passing it on, the
// agent thinking and writing its answer, and the proxy relaying it (docs/schema.md, "Timing
// points").

#include <cstdint>
#include <optional>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::store {

/// An exchange's duration in five parts, in nanoseconds. A part is empty when one of its two
/// points was never reached (the agent never answered, or broke off its answer) or never
/// measured (rows older than schema 11; for the last two parts, older than schema 14).
struct TimingSplit {
  std::optional<std::int64_t> caller_to_proxy;  ///< request_ended_ns - started_ns
  std::optional<std::int64_t> proxy_to_agent;   ///< upstream_sent_ns - request_ended_ns
  std::optional<std::int64_t> agent;            ///< upstream_first_byte_ns - upstream_sent_ns
  /// upstream_last_byte_ns - upstream_first_byte_ns: the agent writing the rest of its answer.
  std::optional<std::int64_t> agent_body;
  std::optional<std::int64_t> relay;  ///< ended_ns - upstream_last_byte_ns: agentvcr's
};

TimingSplit timingSplit(const ExchangeRow& exchange);

}  // namespace agentvcr::store
