#include "agentvcr/fleet/prune.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/store/identity.hpp"

namespace agentvcr::fleet {
namespace {

// The session tables that are not partitioned: their rows of pruned sessions go one by one.
constexpr const char* kUnpartitioned[] = {"conversations", "step_links", "replay_misses"};

// A blob is referred to by these columns, a dictionary by these.
constexpr const char* kBlobGarbage = R"sql(
DELETE FROM blobs b
WHERE NOT EXISTS (SELECT 1 FROM steps s WHERE s.memory_hash = b.hash)
  AND NOT EXISTS (SELECT 1 FROM steps s WHERE s.tools_hash = b.hash)
  AND NOT EXISTS (SELECT 1 FROM steps s WHERE s.attributes_hash = b.hash)
  AND NOT EXISTS (SELECT 1 FROM steps s WHERE s.extra_keys_hash = b.hash)
  AND NOT EXISTS (SELECT 1 FROM candidates c WHERE c.memory_hash = b.hash))sql";

constexpr const char* kDictionaryGarbage = R"sql(
DELETE FROM body_dictionaries d
WHERE NOT EXISTS (SELECT 1 FROM exchanges e WHERE e.request_body_dictionary = d.hash)
  AND NOT EXISTS (SELECT 1 FROM exchanges e WHERE e.response_body_dictionary = d.hash)
  AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.dictionary = d.hash)
  AND NOT EXISTS (SELECT 1 FROM body_dictionaries c WHERE c.dictionary = d.hash))sql";

/// Runs a DELETE and counts the rows it deleted, without sending them.
std::int64_t deleted(PgConnection& conn, const char* delete_sql) {
  return conn.exec(std::string("WITH d AS (") + delete_sql + " RETURNING 1) SELECT count(*) FROM d")
      .integer(0, 0);
}

PruneResult prune(PgConnection& conn, const std::string& before) {
  // Times without a zone, and months, are UTC, as agentvcr_month() files sessions.
  conn.exec("SET LOCAL TIME ZONE 'UTC'");
  conn.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMonthsLock) + ")");
  std::string before_month;
  try {
    before_month =
        conn.exec("SELECT date_trunc('month', $1::timestamptz)::date::text", {before}).text(0, 0);
  } catch (const PgError& e) {
    if (!e.sqlstate().starts_with("22")) {
      throw;
    }
    throw PgError("[fleet.prune] --before '" + before +
                      "' is not a date or time (2026-11-01, 2026-11-01T08:00:00Z)",
                  e.sqlstate(), false);
  }
  PruneResult result;
  conn.exec(
      "CREATE TEMP TABLE agentvcr_pruned ON COMMIT DROP AS SELECT uuid, exchange_count FROM "
      "sessions WHERE started_ns < extract(epoch FROM $1::timestamptz) * 1e9",
      {before});
  // The tombstones first: under this lock, a shipper checks them before it writes anything.
  conn.exec(
      "INSERT INTO pruned_sessions (uuid, started_ns) SELECT uuid, started_ns FROM sessions "
      "WHERE uuid IN (SELECT uuid FROM agentvcr_pruned) ON CONFLICT DO NOTHING");
  PgResult counts =
      conn.exec("SELECT count(*), coalesce(sum(exchange_count), 0) FROM agentvcr_pruned");
  result.sessions = counts.integer(0, 0);
  result.exchanges = counts.integer(0, 1);

  PgResult whole =
      conn.exec("SELECT month::text FROM agentvcr_months WHERE month < $1::date ORDER BY month",
                {before_month});
  for (int i = 0; i < whole.rows(); ++i) {
    result.months.emplace_back(whole.text(i, 0));
    conn.exec("SELECT agentvcr_drop_month($1::date)", {result.months.back()});
  }
  if (result.sessions == 0) {
    return result;
  }
  PgResult monthly = conn.exec("SELECT agentvcr_monthly_tables()");
  for (int i = 0; i < monthly.rows(); ++i) {
    // Only the month `before` falls in can still hold pruned sessions.
    conn.exec("DELETE FROM " + std::string(monthly.text(i, 0)) +
                  " WHERE session_month = $1::date AND session_uuid IN "
                  "(SELECT uuid FROM agentvcr_pruned)",
              {before_month});
  }
  for (const char* table : kUnpartitioned) {
    conn.exec(std::string("DELETE FROM ") + table +
              " WHERE session_uuid IN (SELECT uuid FROM agentvcr_pruned)");
  }
  conn.exec("DELETE FROM sessions WHERE uuid IN (SELECT uuid FROM agentvcr_pruned)");
  conn.exec("DELETE FROM ship_positions WHERE session_uuid IN (SELECT uuid FROM agentvcr_pruned)");
  // lower(): shippers before the uuids' one spelling wrote the quarantine's in the archive's.
  conn.exec(
      "DELETE FROM quarantine WHERE lower(session_uuid) IN "
      "(SELECT uuid::text FROM agentvcr_pruned)");
  result.blobs = deleted(conn, kBlobGarbage);
  // A dictionary only deleted ones were compressed against goes in the next round: a chain of
  // keyframes goes one link a round, and is at most 15 links long.
  for (std::int64_t round = deleted(conn, kDictionaryGarbage); round > 0;
       round = deleted(conn, kDictionaryGarbage)) {
    result.dictionaries += round;
  }
  return result;
}

}  // namespace

PruneResult pruneFleet(PgConnection& conn, const std::string& before, bool dry_run) {
  requireFleetSchema(conn);
  return conn.transaction([&] { return prune(conn, before); },
                          dry_run ? PgConnection::Finish::Rollback : PgConnection::Finish::Commit);
}

std::vector<std::string> unpruneFleet(PgConnection& conn, const std::vector<std::string>& sessions,
                                      bool all_matching) {
  std::vector<std::pair<std::string, std::string>> named;  // as given, and as a prefix
  for (const std::string& session : sessions) {
    std::optional<std::string> prefix = store::uuidPrefix(session);
    if (!prefix) {
      throw std::runtime_error("[fleet.unprune] --session '" + session +
                               "' names no session: give its uuid, or its first 8 hexadecimal "
                               "digits or more");
    }
    named.emplace_back(session, std::move(*prefix));
  }
  requireFleetSchema(conn);
  return conn.transaction([&] {
    std::vector<std::string> unpruned;
    for (const auto& [session, prefix] : named) {
      const auto [lowest, highest] = store::uuidBounds(prefix);
      PgResult r = conn.exec(
          "SELECT uuid::text FROM pruned_sessions WHERE uuid BETWEEN $1::uuid AND $2::uuid "
          "ORDER BY uuid",
          {lowest, highest});
      if (r.rows() > 1 && !all_matching) {
        std::string matches;
        for (int i = 0; i < r.rows(); ++i) {
          matches += std::string(i > 0 ? ", " : "") + std::string(r.text(i, 0));
        }
        throw std::runtime_error("[fleet.unprune] --session " + session + " matches " +
                                 std::to_string(r.rows()) + " pruned sessions (" + matches +
                                 "): name one, or give --all-matching to unprune them all; "
                                 "nothing was unpruned");
      }
      for (int i = 0; i < r.rows(); ++i) {
        const std::string uuid(r.text(i, 0));
        if (std::find(unpruned.begin(), unpruned.end(), uuid) == unpruned.end()) {
          conn.exec("DELETE FROM pruned_sessions WHERE uuid = $1::uuid", {uuid});
          unpruned.push_back(uuid);
        }
      }
    }
    return unpruned;
  });
}

}  // namespace agentvcr::fleet
