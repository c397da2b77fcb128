#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace agentvcr::store {

/// What re-threading one session changed.
struct ReindexedSession {
  std::int64_t session_id = 0;
  std::int64_t steps = 0;
  std::int64_t conversations_before = 0;
  std::int64_t conversations_after = 0;
};

/// Re-threads the MAGMA steps of the given sessions (every session when empty) with the
/// current threading rules (docs/schema.md, "Conversation threading"), one transaction per
/// session: their conversations are rebuilt and each step's conversation, parent, ambiguity
/// and depth rewritten. A session with step links (an evaluation) is threaded by its links
/// instead of its memories: each step as the recorded step it re-asked. Step and candidate ids stay
/// as they are, so replay links and search rows keep pointing at the same rows. Throws
/// std::runtime_error, before changing that session, when a recorder is still writing it or it does
/// not exist; sessions done before stay done.
std::vector<ReindexedSession> reindexSessions(
    const std::string& path, const std::vector<std::int64_t>& session_ids,
    std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});

}  // namespace agentvcr::store
