#pragma once

// The fleet archive's session rows, read the same way by pull, ls and stats.

#include <string>

#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::fleet::detail {

/// The columns sessionOf() reads, in its order, for a SELECT list.
inline constexpr const char* kSessionColumns = R"sql(
  uuid::text, node, recorder_version, derived_from, name, mode, upstream, listen, started_ns,
  ended_ns, agent_health, agent_info, agent_id, agent_version, exchange_count, step_count,
  candidate_count, internal_step_count, conversation_count, error_candidate_count,
  failed_exchange_count, invalid_exchange_count, escaped::text, interrupted)sql";

/// Row `i` of a result that selected kSessionColumns first, each value exact (what the shipper
/// escaped, unescaped). `id` stays 0: the fleet archive names sessions by uuid.
store::SessionRow sessionOf(const PgResult& r, int i);

}  // namespace agentvcr::fleet::detail
