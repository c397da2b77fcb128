#include "agentvcr/fleet/shipper.hpp"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/store/change_feed.hpp"
#include "copy_text.hpp"

namespace agentvcr::fleet {
namespace {

using Clock = std::chrono::steady_clock;

/// Rows that change after they were first written: upserted with every batch, never moved
/// backwards (a stale copy of a session shipped late leaves the newer totals alone).
struct Upsert {
  const char* table;
  const char* key;
  const char* newer;  // the condition under which the shipped row replaces the stored one
};

constexpr Upsert kUpserts[] = {
    {"sessions", "uuid", "sessions.exchange_count <= EXCLUDED.exchange_count"},
    {"conversations", "session_uuid, number",
     "conversations.step_count + conversations.candidate_count <= "
     "EXCLUDED.step_count + EXCLUDED.candidate_count"},
};

std::string joined(const std::vector<std::string>& names, const char* prefix = "") {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) {
      out += ", ";
    }
    out += prefix + name;
  }
  return out;
}

/// The statement that moves staged blobs into `blobs`, each parsed as jsonb `as` ("s.text::jsonb",
/// or the function that gives NULL for text that is not JSON). No check for the blobs the
/// archive holds already: a batch brings few of them, and PostgreSQL answers such a check with a
/// hash join that reads the whole table, which grows with the fleet.
std::string insertBlobs(const char* as) {
  return std::string("INSERT INTO blobs (hash, text, doc) SELECT s.hash, s.text, ") + as +
         " FROM agentvcr_stage_blobs s ON CONFLICT DO NOTHING";
}

/// The statement that moves a table's staged rows into the table (blobs: insertBlobs()). Rows
/// of a `monthly` table are filed under the month given as $1.
std::string insertFromStage(const store::FeedTable& t, bool monthly) {
  const std::string columns = joined(t.columns);
  const std::string stage = "agentvcr_stage_" + t.table;
  std::string sql = "INSERT INTO " + t.table + " (" + columns +
                    (monthly ? ", session_month) SELECT " : ") SELECT ") + columns +
                    (monthly ? ", $1::date FROM " : " FROM ") + stage + " ON CONFLICT ";
  for (const Upsert& u : kUpserts) {
    if (t.table == u.table) {
      std::string set;
      for (const std::string& c : t.columns) {
        if (std::string(u.key).find(c) == std::string::npos) {
          set += (set.empty() ? "" : ", ") + c + " = EXCLUDED." + c;
        }
      }
      return sql + "(" + u.key + ") DO UPDATE SET " + set + " WHERE " + u.newer;
    }
  }
  return sql + "DO NOTHING";
}

/// When the batch's session started: every batch carries the session's row.
std::string sessionStartedNs(const store::FeedBatch& batch) {
  for (const store::FeedTable& t : batch.tables) {
    if (t.table != "sessions" || t.rows.empty()) {
      continue;
    }
    const auto column = std::find(t.columns.begin(), t.columns.end(), "started_ns");
    const store::FeedValue& value = t.rows.front().at(column - t.columns.begin());
    if (const auto* ns = std::get_if<std::int64_t>(&value)) {
      return std::to_string(*ns);
    }
  }
  throw std::logic_error("a feed batch without its session's start");
}

constexpr const char* kUniqueViolation = "23505";

/// Blobs and body dictionaries: keyed by the hash of their content, shared by every session.
bool isContentAddressed(const std::string& table) {
  return table == "blobs" || table == "body_dictionaries";
}

std::string seconds(Clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

}  // namespace

struct Shipper::Impl {
  ShipOptions options;
  store::ChangeFeed feed;
  std::atomic<bool> stopping{false};
  std::atomic<bool> finishing{false};

  mutable std::mutex mutex;  // guards stats, error, live and the wake-up
  std::condition_variable wake;
  ShipStats stats;
  /// Since when the fleet has been missing committed exchanges; unset while it holds them all.
  std::optional<Clock::time_point> behind_since = Clock::now();
  std::string error;
  PgConnection* live = nullptr;  // the connection in use, for stop() to cancel

  std::map<std::string, store::FeedPosition> positions;  // what the fleet holds, per uuid
  std::map<std::string, std::string> shipped;            // fingerprint when last caught up
  std::set<std::string> monthly;  // the fleet archive's tables partitioned by month

  explicit Impl(ShipOptions o) : options(std::move(o)), feed(options.db_path) {}

  void log(const std::string& line) const {
    if (options.log) {
      options.log(line);
    }
  }

  /// Waits `d`, or less when stopped. False when stopping.
  bool pause(std::chrono::milliseconds d) {
    std::unique_lock lock(mutex);
    wake.wait_for(lock, d, [this] { return stopping.load(); });
    return !stopping;
  }

  std::unique_ptr<PgConnection> connect() {
    auto conn = std::make_unique<PgConnection>(options.uri);
    requireFleetSchema(*conn);
    for (const std::string& table : store::ChangeFeed::tableNames()) {
      conn->exec("CREATE TEMP TABLE IF NOT EXISTS agentvcr_stage_" + table + " (LIKE " + table +
                 ") ON COMMIT DELETE ROWS");
    }
    monthly.clear();
    PgResult tables = conn->exec("SELECT agentvcr_monthly_tables()");
    for (int i = 0; i < tables.rows(); ++i) {
      const std::string table(tables.text(i, 0));
      // Staged rows have no month yet: the insert gives them theirs.
      conn->exec("ALTER TABLE agentvcr_stage_" + table + " DROP COLUMN IF EXISTS session_month");
      monthly.insert(table);
    }
    return conn;
  }

  void loadPositions(PgConnection& conn, const std::vector<store::FeedSession>& sessions) {
    positions.clear();
    shipped.clear();
    std::string uuids = "{";
    for (const auto& s : sessions) {
      uuids += (uuids.size() > 1 ? "," : "") + s.uuid;
    }
    uuids += "}";
    PgResult r = conn.exec(
        "SELECT session_uuid::text, exchanges, misses, links FROM ship_positions "
        "WHERE session_uuid = ANY($1::uuid[])",
        {uuids});
    for (int i = 0; i < r.rows(); ++i) {
      positions[std::string(r.text(i, 0))] = {r.integer(i, 1), r.integer(i, 2), r.integer(i, 3)};
    }
  }

  /// Blobs are JSON but nothing guarantees it, and a cast that fails would fail the batch for
  /// good. Catching the failure per row costs a subtransaction each: cast the batch at once,
  /// and only a batch holding a blob that is not JSON goes row by row.
  static void moveBlobs(PgConnection& conn) {
    conn.exec("SAVEPOINT agentvcr_blobs");
    try {
      conn.exec(insertBlobs("s.text::jsonb"));
      conn.exec("RELEASE SAVEPOINT agentvcr_blobs");
    } catch (const PgError& e) {
      if (!e.sqlstate().starts_with("22")) {  // not a data exception: not a blob's fault
        throw;
      }
      conn.exec("ROLLBACK TO SAVEPOINT agentvcr_blobs");
      conn.exec(insertBlobs("agentvcr_jsonb_or_null(s.text)"));
    }
  }

  /// Copies rows of a monthly table straight in, which costs PostgreSQL half of staging them
  /// first. They are new but for a position lost or a batch whose commit went unanswered: the
  /// first row the table already holds fails the COPY, and the batch takes the staged way.
  bool copyStraightIn(PgConnection& conn, const store::FeedTable& t, const std::string& month) {
    conn.exec("SAVEPOINT agentvcr_copy");
    try {
      conn.copyIn("COPY " + t.table + " (" + joined(t.columns) + ", session_month) FROM STDIN",
                  detail::copyText(t, month));
      conn.exec("RELEASE SAVEPOINT agentvcr_copy");
      return true;
    } catch (const PgError& e) {
      if (e.sqlstate() != kUniqueViolation) {
        throw;
      }
      conn.exec("ROLLBACK TO SAVEPOINT agentvcr_copy");
      return false;
    }
  }

  /// Moves a batch's rows of one table in: straight, or COPY into its staging table and INSERT
  /// from there with what its rows need on conflict.
  void moveTable(PgConnection& conn, const store::FeedTable& t, const std::string& month) {
    if (t.rows.empty()) {
      return;
    }
    if (monthly.contains(t.table) && copyStraightIn(conn, t, month)) {
      return;
    }
    conn.copyIn("COPY agentvcr_stage_" + t.table + " (" + joined(t.columns) + ") FROM STDIN",
                detail::copyText(t));
    if (t.table == "blobs") {
      moveBlobs(conn);
    } else if (monthly.contains(t.table)) {
      conn.exec(insertFromStage(t, true), {month});
    } else {
      conn.exec(insertFromStage(t, false));
    }
  }

  void write(PgConnection& conn, const std::string& uuid, const store::FeedBatch& batch) {
    // Its own transaction: a partition made inside the batch's would lock the table against
    // every other shipper until the batch commits.
    const std::string month(
        conn.exec("SELECT agentvcr_file_month(agentvcr_month($1))::text", {sessionStartedNs(batch)})
            .text(0, 0));
    // Held across both transactions below, so that a prune cannot collect the blobs between
    // their commit and the batch's. Should anything fail, the connection goes, and the lock
    // with it.
    const std::string lock = std::to_string(kMonthsLock);
    conn.exec("SELECT pg_advisory_lock_shared(" + lock + ")");
    // Rows keyed by content, which other shippers may be sending at the same moment, go first
    // and commit at once: a key that a transaction still open inserted makes every other insert
    // of it wait for that transaction's end, which would chain the shippers' batches.
    conn.transaction([&] {
      for (const store::FeedTable& t : batch.tables) {
        if (isContentAddressed(t.table)) {
          moveTable(conn, t, month);
        }
      }
    });
    conn.transaction([&] {
      for (const store::FeedTable& t : batch.tables) {
        if (!isContentAddressed(t.table)) {
          moveTable(conn, t, month);
        }
      }
      // The position commits with the rows it counts.
      conn.exec(
          "INSERT INTO ship_positions (session_uuid, exchanges, misses, links) "
          "VALUES ($1, $2, $3, $4) ON CONFLICT (session_uuid) DO UPDATE SET "
          "exchanges = GREATEST(ship_positions.exchanges, EXCLUDED.exchanges), "
          "misses = GREATEST(ship_positions.misses, EXCLUDED.misses), "
          "links = GREATEST(ship_positions.links, EXCLUDED.links), shipped_at = now()",
          {uuid, std::to_string(batch.end.exchanges), std::to_string(batch.end.misses),
           std::to_string(batch.end.links)});
    });
    conn.exec("SELECT pg_advisory_unlock_shared(" + lock + ")");
  }

  /// Ships one session as far as it is committed and indexed. True when nothing is left.
  bool shipSession(PgConnection& conn, const store::FeedSession& session) {
    auto known = shipped.find(session.uuid);
    if (known != shipped.end() && known->second == session.fingerprint) {
      return true;
    }
    store::FeedPosition& at = positions[session.uuid];
    bool any = false;
    while (!stopping) {
      const store::FeedBatch batch = feed.next(session, at, options.batch_exchanges);
      write(conn, session.uuid, batch);
      at = batch.end;
      any = any || batch.exchanges > 0 || batch.misses > 0 || batch.links > 0;
      {
        std::lock_guard lock(mutex);
        stats.exchanges += batch.exchanges;
        stats.rows += batch.rowCount();
        ++stats.batches;
      }
      if (batch.waiting_for_index) {
        return false;
      }
      if (batch.caught_up) {
        shipped[session.uuid] = session.fingerprint;
        if (any) {
          std::lock_guard lock(mutex);
          ++stats.sessions;
        }
        return true;
      }
    }
    return false;
  }

  std::uint64_t left() {
    std::uint64_t n = 0;
    for (const store::FeedSession& s : feed.sessions()) {
      const auto at = positions.find(s.uuid);
      const std::int64_t sent = at == positions.end() ? 0 : at->second.exchanges;
      n += static_cast<std::uint64_t>(std::max<std::int64_t>(0, s.exchanges - sent));
    }
    return n;
  }

  /// Notes how far behind the archive the fleet is after a round of shipping (or a failed one):
  /// the lag `--metrics-listen` shows.
  void noteLag(bool caught_up) {
    std::uint64_t remaining = 0;
    if (!caught_up) {
      try {
        remaining = left();
      } catch (const std::exception&) {
        return;  // the archive is unreadable: the next round says so
      }
    }
    std::lock_guard lock(mutex);
    stats.lag_exchanges = remaining;
    if (caught_up) {
      behind_since.reset();
    } else if (!behind_since) {
      behind_since = Clock::now();
    }
  }

  ShipEnd end(ShipEnd how, const std::string& why = {}) {
    std::uint64_t remaining = 0;
    try {
      remaining = left();
    } catch (const std::exception&) {
      // the archive itself is what failed: nothing more to count
    }
    std::lock_guard lock(mutex);
    stats.left = remaining;
    if (!why.empty()) {
      error = why;
    }
    return how;
  }

  ShipEnd run() {
    int failures = 0;
    auto wait = options.retry_first;
    std::optional<Clock::time_point> outage_since;
    while (!stopping) {
      try {
        std::unique_ptr<PgConnection> conn = connect();
        {
          std::lock_guard lock(mutex);
          live = conn.get();
        }
        loadPositions(*conn, feed.sessions());
        if (outage_since) {
          log("[fleet.ship] " + conn->redactedUri() + " is back after " +
              seconds(Clock::now() - *outage_since) + ": catching up");
          outage_since.reset();
        }
        failures = 0;
        wait = options.retry_first;
        while (!stopping) {
          bool caught_up = true;
          for (const store::FeedSession& s : feed.sessions()) {
            caught_up = shipSession(*conn, s) && caught_up;
            if (stopping) {
              break;
            }
          }
          noteLag(caught_up);
          if (caught_up && (!options.follow || finishing)) {
            {
              std::lock_guard lock(mutex);
              live = nullptr;
            }
            conn.reset();
            return end(ShipEnd::CaughtUp);
          }
          if (!pause(options.poll)) {
            break;
          }
        }
        std::lock_guard lock(mutex);
        live = nullptr;
      } catch (const FleetSchemaError& e) {
        log(e.what());
        return end(ShipEnd::Failed, e.what());
      } catch (const PgError& e) {
        {
          std::lock_guard lock(mutex);
          live = nullptr;
          if (!outage_since) {
            ++stats.outages;
          }
        }
        if (stopping) {
          break;
        }
        noteLag(false);
        ++failures;
        if (!outage_since) {
          outage_since = Clock::now();
          log(std::string(e.what()) +
              (options.follow ? "; the archive keeps everything, retrying until it is back"
                              : "; retrying"));
        }
        if (!options.follow && options.attempts > 0 && failures >= options.attempts) {
          return end(ShipEnd::Failed, e.what());
        }
        if (!pause(wait)) {
          break;
        }
        wait = std::min(wait * 2, options.retry_max);
      } catch (const std::exception& e) {
        {
          std::lock_guard lock(mutex);
          live = nullptr;
        }
        const std::string why =
            std::string("[fleet.ship] cannot read ") + options.db_path + ": " + e.what();
        log(why);
        return end(ShipEnd::Failed, why);
      }
    }
    return end(ShipEnd::Stopped);
  }
};

Shipper::Shipper(ShipOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Shipper::~Shipper() = default;

ShipEnd Shipper::run() {
  return impl_->run();
}

void Shipper::stop() {
  std::lock_guard lock(impl_->mutex);
  impl_->stopping = true;
  if (impl_->live != nullptr) {
    impl_->live->cancel();
  }
  impl_->wake.notify_all();
}

void Shipper::finish() {
  impl_->finishing = true;
  std::lock_guard lock(impl_->mutex);
  impl_->wake.notify_all();
}

ShipStats Shipper::stats() const {
  std::lock_guard lock(impl_->mutex);
  ShipStats stats = impl_->stats;
  if (impl_->behind_since) {
    stats.lag = Clock::now() - *impl_->behind_since;
  }
  return stats;
}

std::string Shipper::error() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->error;
}

}  // namespace agentvcr::fleet
