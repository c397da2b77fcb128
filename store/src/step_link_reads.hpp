#pragma once

// Reads of `step_links` (schema version 6) and `call_links` (15) for ArchiveReader. Private to the
// store; each throws SQLite::Exception.

#include <cstdint>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "agentvcr/store/step_links.hpp"

namespace agentvcr::store::detail {

/// Links whose evaluation step belongs to session `session_id`, by step id.
std::vector<StepLink> stepLinksOfSession(SQLite::Database& db, std::int64_t session_id);

/// Links whose call belongs to session `session_id`, by call id.
std::vector<CallLink> callLinksOfSession(SQLite::Database& db, std::int64_t session_id);

/// Every (recorded, evaluated) conversation pair with `conversation_id` on either side, oldest
/// evaluation first.
std::vector<EvaluationPair> evaluationPairsOf(SQLite::Database& db, std::int64_t conversation_id);

}  // namespace agentvcr::store::detail
