#include "agentvcr/fleet/fleet_reads.hpp"

#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "session_rows.hpp"

namespace agentvcr::fleet {
namespace {

constexpr double kNsPerMs = 1e6;

std::vector<store::SessionRow> readSessions(PgConnection& conn) {
  const PgResult r = conn.exec(std::string("SELECT ") + detail::kSessionColumns +
                               " FROM sessions ORDER BY started_ns, uuid");
  std::vector<store::SessionRow> sessions;
  for (int i = 0; i < r.rows(); ++i) {
    sessions.push_back(detail::sessionOf(r, i));
  }
  return sessions;
}

/// Runs `sql` with $1 bound to the session's uuid and calls `row` with the result and each row.
template <class Row>
void eachRow(PgConnection& conn, const char* sql, const std::string& uuid, Row row) {
  const PgResult r = conn.exec(sql, {uuid});
  for (int i = 0; i < r.rows(); ++i) {
    row(r, i);
  }
}

store::SessionStats statsOf(PgConnection& conn, const store::SessionRow& session) {
  store::SessionStats s;
  s.uuid = session.uuid;
  s.node = session.node;
  s.name = session.name;
  s.agent_id = session.agent_id;
  s.agent_version = session.agent_version;
  s.exchanges = session.exchange_count;
  eachRow(conn,
          "SELECT coalesce(sum(coalesce(request_body_size, length(request_body)) + "
          "coalesce(response_body_size, length(response_body))), 0), "
          "coalesce(sum(length(request_body) + length(response_body)), 0) "
          "FROM exchanges WHERE session_uuid = $1",
          s.uuid, [&](const PgResult& r, int i) {
            s.body_bytes_on_wire = r.integer(i, 0);
            s.body_bytes_stored = r.integer(i, 1);
          });
  std::vector<std::int64_t> durations;
  eachRow(conn,
          "SELECT ended_ns - started_ns FROM exchanges WHERE session_uuid = $1 "
          "AND ended_ns IS NOT NULL ORDER BY 1",
          s.uuid, [&](const PgResult& r, int i) { durations.push_back(r.integer(i, 0)); });
  s.latency.count = static_cast<std::int64_t>(durations.size());
  s.latency.p50_ms = store::nearestRank(durations, 50) / kNsPerMs;
  s.latency.p90_ms = store::nearestRank(durations, 90) / kNsPerMs;
  s.latency.p95_ms = store::nearestRank(durations, 95) / kNsPerMs;
  s.latency.p99_ms = store::nearestRank(durations, 99) / kNsPerMs;
  s.latency.max_ms = store::nearestRank(durations, 100) / kNsPerMs;
  eachRow(conn, "SELECT status, count(*) FROM exchanges WHERE session_uuid = $1 GROUP BY status",
          s.uuid, [&](const PgResult& r, int i) {
            s.http_statuses[static_cast<int>(r.integer(i, 0))] = r.integer(i, 1);
          });
  eachRow(conn,
          "SELECT count(*), count(*) FILTER (WHERE instruction_type = 'env'), "
          "count(*) FILTER (WHERE env_failure) FROM steps WHERE session_uuid = $1",
          s.uuid, [&](const PgResult& r, int i) {
            s.steps = r.integer(i, 0);
            s.env_steps = r.integer(i, 1);
            s.env_failures = r.integer(i, 2);
          });
  eachRow(conn, "SELECT count(*) FROM candidates WHERE session_uuid = $1", s.uuid,
          [&](const PgResult& r, int i) { s.candidates = r.integer(i, 0); });
  eachRow(conn,
          "SELECT coalesce(error_code, ''), count(*) FROM candidates WHERE session_uuid = $1 "
          "AND status = 'error' GROUP BY 1",
          s.uuid, [&](const PgResult& r, int i) {
            s.error_codes[std::string(r.text(i, 0))] = r.integer(i, 1);
          });
  // A call without a robot or name still counts, under "", as in the SQLite archive's stats.
  eachRow(conn,
          "SELECT coalesce(t->>'target_robot_name', ''), coalesce(t->>'name', ''), count(*) "
          "FROM candidates c, jsonb_array_elements(c.tool_calls) t WHERE c.session_uuid = $1 "
          "AND jsonb_typeof(c.tool_calls) = 'array' GROUP BY 1, 2",
          s.uuid, [&](const PgResult& r, int i) {
            s.tools_by_robot[std::string(r.text(i, 0))][std::string(r.text(i, 1))] =
                r.integer(i, 2);
          });
  eachRow(conn,
          "SELECT coalesce(method, ''), count(*) FROM a2a_calls WHERE session_uuid = $1 "
          "GROUP BY 1",
          s.uuid, [&](const PgResult& r, int i) {
            s.a2a_methods[std::string(r.text(i, 0))] = r.integer(i, 1);
          });
  eachRow(conn,
          "SELECT error_code, count(*) FROM a2a_calls WHERE session_uuid = $1 "
          "AND error_code IS NOT NULL GROUP BY 1",
          s.uuid,
          [&](const PgResult& r, int i) { s.a2a_errors[r.integer(i, 0)] = r.integer(i, 1); });
  eachRow(conn,
          "SELECT task_state_norm, count(*) FROM a2a_calls WHERE session_uuid = $1 "
          "AND task_state_norm IS NOT NULL GROUP BY 1",
          s.uuid, [&](const PgResult& r, int i) {
            s.a2a_task_states[std::string(r.text(i, 0))] = r.integer(i, 1);
          });
  return s;
}

}  // namespace

std::vector<store::SessionRow> fleetSessions(const std::string& uri) {
  PgConnection conn(uri);
  requireFleetSchema(conn);
  return readSessions(conn);
}

store::ArchiveStats collectFleetStats(const std::string& uri) {
  PgConnection conn(uri);
  requireFleetSchema(conn);
  return conn.transaction(
      [&] {
        store::ArchiveStats stats;
        for (const store::SessionRow& session : readSessions(conn)) {
          stats.sessions.push_back(statsOf(conn, session));
          stats.body_bytes_on_wire += stats.sessions.back().body_bytes_on_wire;
        }
        stats.archive_bytes =
            conn.exec(std::string_view("SELECT pg_database_size(current_database())"))
                .integer(0, 0);
        return stats;
      },
      PgConnection::Finish::Commit, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
}

}  // namespace agentvcr::fleet
