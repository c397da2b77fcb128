#include "agentvcr/store/stats.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "agentvcr/store/archive_reader.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store {
namespace {

constexpr double kNsPerMs = 1e6;

using Columns = detail::NamedColumns;

/// Runs `sql` with :session_id bound to the session and calls `row` with each result row's
/// columns.
template <class Row>
void eachRow(SQLite::Database& db, const char* sql, std::int64_t session_id, Row row) {
  SQLite::Statement q(db, sql);
  detail::bindInt(q, ":session_id", session_id);
  const detail::NamedColumns columns(q);
  while (q.executeStep()) {
    row(columns);
  }
}

LatencyStats latencyOf(SQLite::Database& db, std::int64_t session_id) {
  std::vector<std::int64_t> durations;
  eachRow(db,
          "SELECT ended_ns - started_ns AS duration_ns FROM exchanges "
          "WHERE session_id = :session_id AND ended_ns IS NOT NULL ORDER BY 1",
          session_id,
          [&](const Columns& c) { durations.push_back(c.get("duration_ns").getInt64()); });
  LatencyStats latency;
  latency.count = static_cast<std::int64_t>(durations.size());
  latency.p50_ms = nearestRank(durations, 50) / kNsPerMs;
  latency.p90_ms = nearestRank(durations, 90) / kNsPerMs;
  latency.p95_ms = nearestRank(durations, 95) / kNsPerMs;
  latency.p99_ms = nearestRank(durations, 99) / kNsPerMs;
  latency.max_ms = nearestRank(durations, 100) / kNsPerMs;
  return latency;
}

/// A body's length on the wire: its size column when the archive keeps it compressed, else the
/// stored bytes themselves.
constexpr const char* kBodyBytesOnWire =
    "coalesce(sum(coalesce(request_body_size, length(request_body)) + "
    "coalesce(response_body_size, length(response_body))), 0)";

void fillBodyBytes(SQLite::Database& db, SessionStats& s) {
  const std::string sql = std::string("SELECT ") + kBodyBytesOnWire +
                          " AS on_wire, coalesce(sum(length(request_body) + "
                          "length(response_body)), 0) AS stored FROM exchanges WHERE session_id = "
                          ":session_id";
  eachRow(db, sql.c_str(), s.session_id, [&](const Columns& c) {
    s.body_bytes_on_wire = c.get("on_wire").getInt64();
    s.body_bytes_stored = c.get("stored").getInt64();
  });
}

void fillMagma(SQLite::Database& db, SessionStats& s) {
  eachRow(db,
          "SELECT status, count(*) AS exchanges FROM exchanges WHERE session_id = :session_id "
          "GROUP BY status",
          s.session_id, [&](const Columns& c) {
            s.http_statuses[c.get("status").getInt()] = c.get("exchanges").getInt64();
          });
  eachRow(db,
          "SELECT count(*) AS steps, coalesce(sum(instruction_type = 'env'), 0) AS env_steps, "
          "coalesce(sum(env_failure = 1), 0) AS env_failures FROM steps "
          "WHERE session_id = :session_id",
          s.session_id, [&](const Columns& c) {
            s.steps = c.get("steps").getInt64();
            s.env_steps = c.get("env_steps").getInt64();
            s.env_failures = c.get("env_failures").getInt64();
          });
  eachRow(db,
          "SELECT count(*) AS candidates FROM candidates c JOIN steps s ON s.id = c.step_id "
          "WHERE s.session_id = :session_id",
          s.session_id, [&](const Columns& c) { s.candidates = c.get("candidates").getInt64(); });
  eachRow(db,
          "SELECT coalesce(c.error_code, '') AS error_code, count(*) AS candidates "
          "FROM candidates c JOIN steps s ON s.id = c.step_id "
          "WHERE s.session_id = :session_id AND c.status = 'error' GROUP BY 1",
          s.session_id, [&](const Columns& c) {
            s.error_codes[c.get("error_code").getString()] = c.get("candidates").getInt64();
          });
  // A call without a robot or name still counts, under "" (strict validation requires both).
  eachRow(db,
          "SELECT coalesce(json_extract(t.value, '$.target_robot_name'), '') AS robot, "
          "coalesce(json_extract(t.value, '$.name'), '') AS tool, count(*) AS calls "
          "FROM candidates c JOIN steps s ON s.id = c.step_id, json_each(c.tool_calls) t "
          "WHERE s.session_id = :session_id AND c.tool_calls IS NOT NULL GROUP BY 1, 2",
          s.session_id, [&](const Columns& c) {
            s.tools_by_robot[c.get("robot").getString()][c.get("tool").getString()] =
                c.get("calls").getInt64();
          });
}

void fillA2a(SQLite::Database& db, SessionStats& s) {
  eachRow(db,
          "SELECT coalesce(method, '') AS method, count(*) AS calls FROM a2a_calls "
          "WHERE session_id = :session_id GROUP BY 1",
          s.session_id, [&](const Columns& c) {
            s.a2a_methods[c.get("method").getString()] = c.get("calls").getInt64();
          });
  eachRow(db,
          "SELECT error_code, count(*) AS calls FROM a2a_calls WHERE session_id = :session_id "
          "AND error_code IS NOT NULL GROUP BY 1",
          s.session_id, [&](const Columns& c) {
            s.a2a_errors[c.get("error_code").getInt64()] = c.get("calls").getInt64();
          });
  eachRow(db,
          "SELECT task_state_norm, count(*) AS calls FROM a2a_calls "
          "WHERE session_id = :session_id AND task_state_norm IS NOT NULL GROUP BY 1",
          s.session_id, [&](const Columns& c) {
            s.a2a_task_states[c.get("task_state_norm").getString()] = c.get("calls").getInt64();
          });
}

}  // namespace

double nearestRank(const std::vector<std::int64_t>& sorted, double percent) {
  if (sorted.empty()) {
    return 0;
  }
  auto rank =
      static_cast<std::size_t>(std::ceil(percent / 100.0 * static_cast<double>(sorted.size())));
  rank = rank == 0 ? 1 : std::min(rank, sorted.size());
  return static_cast<double>(sorted[rank - 1]);
}

ArchiveStats collectStats(const std::string& db_path, const std::vector<std::int64_t>& sessions) {
  // The reader checks that the file is an archive of our schema version and lists sessions.
  ArchiveReader reader(db_path);
  ArchiveStats stats;
  try {
    SQLite::Database db =
        detail::openDatabase(db_path, SQLite::OPEN_READONLY, std::chrono::milliseconds{5000});
    for (const SessionRow& row : reader.sessions()) {
      if (!sessions.empty() &&
          std::find(sessions.begin(), sessions.end(), row.id) == sessions.end()) {
        continue;
      }
      SessionStats s;
      s.session_id = row.id;
      s.uuid = row.uuid;
      s.node = row.node;
      s.name = row.name;
      s.agent_id = row.agent_id;
      s.agent_version = row.agent_version;
      s.exchanges = row.exchange_count;
      fillBodyBytes(db, s);
      s.latency = latencyOf(db, row.id);
      fillMagma(db, s);
      fillA2a(db, s);
      stats.sessions.push_back(std::move(s));
    }
    stats.body_bytes_on_wire =
        db.execAndGet(std::string("SELECT ") + kBodyBytesOnWire + " FROM exchanges").getInt64();
    stats.archive_bytes =
        db.execAndGet(
              "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), "
              "pragma_freelist_count(), pragma_page_size()")
            .getInt64();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(detail::readError(db_path, e));
  }
  return stats;
}

}  // namespace agentvcr::store
