#pragma once

// What the archive decoded from one exchange, as JSON for the JSONL and HAR exports: MAGMA
// steps with their candidates, env feedback, A2A calls and event-stream events.

#include <cstdint>

#include "agentvcr/store/archive_reader.hpp"
#include "body_codec.hpp"

namespace agentvcr::store::detail {

/// [{position, at_ns, event, id, data}] of an event-stream response; [] for any other.
Ordered streamEventsJson(const ArchiveReader& reader, std::int64_t exchange_id);

/// [{position, source_id, instruction_type, instruction_content, conversation_id, depth,
/// candidates: [{index, status, decision_kind, say, tool_calls, error_code, error_message}]}]
Ordered magmaStepsJson(const ArchiveReader& reader, std::int64_t exchange_id);

/// [{position, source_id, feedback, failure}] of the env steps only.
Ordered envFeedbackJson(const ArchiveReader& reader, std::int64_t exchange_id);

/// [{position, method, rpc_id, task_id, context_id, skill_id, task_state, task_state_norm,
/// result_kind,
/// error_code, error_message, conversation_id}]
Ordered a2aCallsJson(const ArchiveReader& reader, std::int64_t exchange_id);

}  // namespace agentvcr::store::detail
