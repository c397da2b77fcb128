#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

/// Aggregates of recorded traffic for `agentvcr stats` (docs/lint-and-stats.md): SQL over the
/// archive, one pass per table and session.
namespace agentvcr::store {

/// Exchange durations (ended_ns - started_ns) in milliseconds, nearest-rank percentiles over
/// the exchanges that ended; all zero when none did.
struct LatencyStats {
  std::int64_t count = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

/// One recording session. A session records one agent (its /v1/info identity, when seen), so
/// "per session and agent" is per session labelled with the agent.
struct SessionStats {
  std::int64_t session_id = 0;  ///< 0 in the fleet archive, where the uuid names sessions
  std::string uuid;
  std::string node;
  std::string name;
  std::optional<std::string> agent_id;
  std::optional<std::string> agent_version;
  std::int64_t exchanges = 0;
  /// Request and response bodies as they crossed the wire, and as the archive keeps them
  /// (compressed, redacted): what recording them cost in bodies.
  std::int64_t body_bytes_on_wire = 0;
  std::int64_t body_bytes_stored = 0;
  LatencyStats latency;
  std::map<int, std::int64_t> http_statuses;  ///< status -> exchanges (0: no response)
  std::int64_t steps = 0;
  std::int64_t candidates = 0;
  std::map<std::string, std::int64_t> error_codes;  ///< error candidates by error.code
  /// robot (target_robot_name) -> tool name -> calls, over every candidate's tool_calls.
  std::map<std::string, std::map<std::string, std::int64_t>> tools_by_robot;
  std::int64_t env_steps = 0;
  std::int64_t env_failures = 0;                    ///< env steps whose feedback reports a failure
  std::map<std::string, std::int64_t> a2a_methods;  ///< calls by JSON-RPC method
  std::map<std::int64_t, std::int64_t> a2a_errors;  ///< calls by JSON-RPC error code
  std::map<std::string, std::int64_t> a2a_task_states;  ///< calls by the task state answered
};

struct ArchiveStats {
  std::vector<SessionStats> sessions;  ///< by session id
  /// Every session's bodies as they crossed the wire, whichever sessions were asked for.
  std::int64_t body_bytes_on_wire = 0;
  /// What the whole archive takes: a SQLite file's pages in use (free pages left out), a fleet
  /// database's size as PostgreSQL counts it.
  std::int64_t archive_bytes = 0;
};

/// Stats of the listed sessions (all when empty; unknown ids are skipped) of the archive at
/// `db_path`, read on a connection of its own. Throws std::runtime_error when the file is not
/// an archive of our schema version or cannot be read.
ArchiveStats collectStats(const std::string& db_path, const std::vector<std::int64_t>& sessions);

/// Nearest-rank percentile (`percent` in 0..100] of ascending `sorted` values; 0 when empty.
double nearestRank(const std::vector<std::int64_t>& sorted, double percent);

}  // namespace agentvcr::store
