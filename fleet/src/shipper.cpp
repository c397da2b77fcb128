#include "agentvcr/fleet/shipper.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/store/feed_follower.hpp"
#include "agentvcr/store/identity.hpp"
#include "copy_text.hpp"

namespace agentvcr::fleet {
namespace {

using Clock = std::chrono::steady_clock;

/// Rows that change after they were first written, upserted with every batch: the shipped row
/// replaces the stored one only when it is strictly further along, so that a stale copy of a
/// session shipped late never moves its totals, its end or its agent's identity backwards.
struct Upsert {
  const char* table;
  const char* key;
  const char* newer;  // the condition under which the shipped row replaces the stored one
};

constexpr Upsert kUpserts[] = {
    {"sessions", "uuid",
     "(sessions.exchange_count, sessions.step_count, sessions.candidate_count, "
     "sessions.internal_step_count, sessions.conversation_count, sessions.error_candidate_count, "
     "sessions.failed_exchange_count, sessions.invalid_exchange_count, "
     "sessions.ended_ns IS NOT NULL, sessions.interrupted, sessions.agent_info IS NOT NULL, "
     "sessions.agent_health IS NOT NULL) < "
     "(EXCLUDED.exchange_count, EXCLUDED.step_count, EXCLUDED.candidate_count, "
     "EXCLUDED.internal_step_count, EXCLUDED.conversation_count, "
     "EXCLUDED.error_candidate_count, EXCLUDED.failed_exchange_count, "
     "EXCLUDED.invalid_exchange_count, EXCLUDED.ended_ns IS NOT NULL, EXCLUDED.interrupted, "
     "EXCLUDED.agent_info IS NOT NULL, EXCLUDED.agent_health IS NOT NULL)"},
    {"conversations", "session_uuid, number",
     "(conversations.step_count + conversations.candidate_count, "
     "coalesce(conversations.last_ns, 0), conversations.ended_in IS NOT NULL) < "
     "(EXCLUDED.step_count + EXCLUDED.candidate_count, coalesce(EXCLUDED.last_ns, 0), "
     "EXCLUDED.ended_in IS NOT NULL)"},
};

/// COPY carries this much at a time: a batch's rows never sit in memory as one piece of text.
constexpr std::size_t kCopyPiece = 1 << 20;

/// The columns of a table's rows as the fleet archive names them: the feed's, and `escaped`.
std::vector<std::string> columnsOf(const store::FeedTable& t) {
  std::vector<std::string> columns = t.columns;
  if (detail::hasEscapes(t.table)) {
    columns.emplace_back("escaped");
  }
  return columns;
}

std::string joinedWith(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) {
      out += separator;
    }
    out += part;
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  return joinedWith(names, ", ");
}

/// The statement that moves staged blobs into `blobs`, each parsed as jsonb `as` ("s.text::jsonb",
/// or the function that gives NULL for text that is not JSON). Staged blobs are the ones the
/// archive lacked a moment ago (withoutHeld()): no join with the table, which grows with the
/// fleet and which PostgreSQL would read whole for it.
std::string insertBlobs(const char* as) {
  return std::string(
             "INSERT INTO blobs (hash, text, doc, escaped, packed, codec, dictionary) "
             "SELECT s.hash, s.text, ") +
         as + ", s.escaped, s.packed, s.codec, s.dictionary FROM agentvcr_stage_blobs s " +
         "ON CONFLICT DO NOTHING";
}

/// The statement that moves a table's staged rows into the table (blobs: insertBlobs()). Rows
/// of a `monthly` table are filed under the month given as $1.
std::string insertFromStage(const store::FeedTable& t, bool monthly) {
  const std::vector<std::string> names = columnsOf(t);
  const std::string columns = joined(names);
  const std::string stage = "agentvcr_stage_" + t.table;
  std::string sql = "INSERT INTO " + t.table + " (" + columns +
                    (monthly ? ", session_month) SELECT " : ") SELECT ") + columns +
                    (monthly ? ", $1::date FROM " : " FROM ") + stage + " ON CONFLICT ";
  for (const Upsert& u : kUpserts) {
    if (t.table == u.table) {
      std::string set;
      for (const std::string& c : names) {
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
    const store::FeedValue& value = t.rows.front().at(t.column("started_ns"));
    if (const auto* ns = std::get_if<std::int64_t>(&value)) {
      return std::to_string(*ns);
    }
  }
  throw std::logic_error("a feed batch without its session's start");
}

constexpr const char* kUniqueViolation = "23505";

/// The quarantine's `number` for a whole session, which has none. Only ever stored: a blob's
/// hash may be any integer, -1 included.
constexpr std::int64_t kWholeSession = -1;

/// Blobs and body dictionaries: keyed by the hash of their content, shared by every session.
bool isContentAddressed(const std::string& table) {
  return table == "blobs" || table == "body_dictionaries";
}

/// The fleet keeps a prompt its response body holds as where the body holds it
/// (`full_prompt_at`), not whole (docs/fleet.md, Bodies and blobs); the feed gives the text too.
void keepPromptsAsReferences(store::FeedBatch& batch) {
  for (store::FeedTable& t : batch.tables) {
    if (t.table != "internal_steps") {
      continue;
    }
    const std::size_t prompt = t.column("full_prompt");
    const std::size_t prompt_at = t.column("full_prompt_at");
    for (std::vector<store::FeedValue>& row : t.rows) {
      if (!std::holds_alternative<std::monostate>(row.at(prompt_at))) {
        row.at(prompt) = store::FeedValue();
      }
    }
  }
}

/// The tables whose rows belong to one exchange, by its `seq`.
bool isPerExchange(const std::string& table) {
  return table == "exchanges" || table == "steps" || table == "candidates" ||
         table == "internal_steps" || table == "a2a_calls" || table == "stream_events";
}

/// A PostgreSQL array literal of `values`, each quoted: a bound parameter, never SQL text.
std::string arrayLiteral(const std::vector<std::string>& values) {
  std::string out = "{";
  for (const std::string& value : values) {
    out += out.size() > 1 ? ",\"" : "\"";
    for (const char c : value) {
      if (c == '"' || c == '\\') {
        out += '\\';
      }
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

/// Rows `rows` of `t`, as a table of their own.
store::FeedTable subset(const store::FeedTable& t, const std::vector<std::size_t>& rows) {
  store::FeedTable out{t.table, t.columns, {}};
  for (const std::size_t r : rows) {
    out.rows.push_back(t.rows[r]);
  }
  return out;
}

/// The value of `column` in row `row` of `t` as an integer (0 when it is not one).
std::int64_t intAt(const store::FeedTable& t, std::size_t row, std::string_view column) {
  const auto* value = std::get_if<std::int64_t>(&t.rows[row].at(t.column(column)));
  return value != nullptr ? *value : 0;
}

std::string seconds(Clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

/// What the fleet archive holds of one session, as this shipper last saw it. Another shipper, a
/// prune or a retry of the quarantine may have changed it since: write() checks the position.
struct FleetSession {
  store::FeedPosition position;  ///< how far it was shipped
  std::int64_t digest = 0;       ///< of the session row last written
  /// Not shipped while it stays so: pruned from the fleet archive, or quarantined whole. Asked
  /// again each time the session is written (`pg unprune`, `--retry-quarantined`).
  bool skipped = false;
};

/// How writing one batch went.
enum class Written {
  Yes,
  Pruned,
  SessionQuarantined,
  /// Nothing written: the fleet holds less of the session than the batch starts from (a prune
  /// undone since, or a retried quarantine); the session's position went back to the fleet's.
  Behind,
};

}  // namespace

struct Shipper::Impl {
  ShipOptions options;
  store::FeedFollower follower;

  mutable std::mutex mutex;  // guards stats, error and live
  ShipStats stats;
  /// Since when the fleet has been missing committed exchanges; unset while it holds them all.
  std::optional<Clock::time_point> behind_since = Clock::now();
  std::string error;
  PgConnection* live = nullptr;  // the connection in use, for stop() to cancel

  std::map<std::string, FleetSession> fleet;  // by uuid, loaded as sessions come
  std::set<std::string> reported_pruned;      // pruned sessions counted in stats, once a run
  std::set<std::string> monthly;              // the fleet archive's tables partitioned by month

  explicit Impl(ShipOptions o) : options(std::move(o)), follower(options.db_path) {}

  void log(const std::string& line) const {
    if (options.log) {
      options.log(line);
    }
  }

  /// Publishes the connection in use to stop() for as long as it lives: declared after the
  /// connection, it is destroyed first, so stop() never cancels a connection that is gone.
  class LiveConnection {
   public:
    LiveConnection(Impl& impl, PgConnection& conn) : impl_(impl) {
      std::lock_guard lock(impl_.mutex);
      impl_.live = &conn;
    }

    ~LiveConnection() {
      std::lock_guard lock(impl_.mutex);
      impl_.live = nullptr;
    }

    LiveConnection(const LiveConnection&) = delete;
    LiveConnection& operator=(const LiveConnection&) = delete;

   private:
    Impl& impl_;
  };

  std::unique_ptr<PgConnection> connect() {
    auto conn = std::make_unique<PgConnection>(options.uri);
    requireFleetSchema(*conn);
    monthly.clear();
    // One transaction: each statement of its own would wait for its own commit to reach disk.
    conn->transaction([&] {
      for (const std::string& table : store::ChangeFeed::tableNames()) {
        conn->exec("CREATE TEMP TABLE IF NOT EXISTS agentvcr_stage_" + table + " (LIKE " + table +
                   ") ON COMMIT DELETE ROWS");
      }
      PgResult tables = conn->exec("SELECT agentvcr_monthly_tables()");
      for (int i = 0; i < tables.rows(); ++i) {
        const std::string table(tables.text(i, 0));
        // Staged rows have no month yet: the insert gives them theirs.
        conn->exec("ALTER TABLE agentvcr_stage_" + table + " DROP COLUMN IF EXISTS session_month");
        monthly.insert(table);
      }
    });
    return conn;
  }

  /// Reads what the fleet archive holds of `sessions` (uuids that are uuids, spelled as the feed
  /// spells them: as PostgreSQL prints them) into `fleet`.
  void loadFleet(PgConnection& conn, const std::vector<std::string>& uuids) {
    if (uuids.empty()) {
      return;
    }
    // lower(): the quarantine keeps text, which shippers before this one wrote in the
    // archive's spelling.
    PgResult r = conn.exec(R"sql(
      SELECT u::text, p.exchanges, p.misses, p.links, p.session_digest,
             EXISTS (SELECT 1 FROM pruned_sessions t WHERE t.uuid = u) AS pruned,
             EXISTS (SELECT 1 FROM quarantine q WHERE lower(q.session_uuid) = u::text
                     AND q.kind = 'session') AS quarantined
      FROM unnest($1::uuid[]) AS u LEFT JOIN ship_positions p ON p.session_uuid = u)sql",
                           {arrayLiteral(uuids)});
    for (int i = 0; i < r.rows(); ++i) {
      const std::string uuid(r.text(i, 0));
      FleetSession& held = fleet[uuid];
      held.position = positionAt(r, i, 1);
      held.digest = r.optionalInteger(i, 4).value_or(0);
      held.skipped = r.text(i, 5) == "t" || r.text(i, 6) == "t";
      if (r.text(i, 5) == "t") {
        notePruned(uuid);
      }
    }
  }

  /// The position in columns `first` to `first + 2` of row `row` (exchanges, misses, links);
  /// NULL, for a session the fleet holds nothing of, is the start.
  static store::FeedPosition positionAt(const PgResult& r, int row, int first) {
    return {r.optionalInteger(row, first).value_or(0),
            r.optionalInteger(row, first + 1).value_or(0),
            r.optionalInteger(row, first + 2).value_or(0)};
  }

  /// Counts and says, once per run, that the fleet archive pruned session `uuid`.
  void notePruned(const std::string& uuid) {
    std::lock_guard lock(mutex);
    if (reported_pruned.insert(uuid).second) {
      ++stats.pruned;
      log("[fleet.ship] session " + uuid +
          " was pruned from the fleet archive: not shipped (agentvcr pg unprune brings it back)");
    }
  }

  /// What the fleet holds of `session`: asked of PostgreSQL the first time, and again each time
  /// for a session skipped, which may have been unpruned or retried since.
  FleetSession& fleetSession(PgConnection& conn, const std::string& uuid) {
    auto known = fleet.find(uuid);
    if (known != fleet.end() && !known->second.skipped) {
      return known->second;
    }
    loadFleet(conn, {uuid});
    return fleet[uuid];
  }

  /// Records in the fleet archive that `kind` `number` of session `uuid` could not be stored
  /// (a whole session has no number).
  void quarantine(PgConnection& conn, const std::string& uuid, const std::string& kind,
                  std::optional<std::int64_t> number, const PgError& why) {
    conn.exec(
        "INSERT INTO quarantine (session_uuid, kind, number, sqlstate, error) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_uuid, kind, number) DO UPDATE SET "
        "sqlstate = EXCLUDED.sqlstate, error = EXCLUDED.error, quarantined_at = now()",
        {detail::storableText(uuid), kind, std::to_string(number.value_or(kWholeSession)),
         why.sqlstate().empty() ? std::nullopt : std::optional(why.sqlstate()),
         detail::storableText(why.reason())});
    {
      std::lock_guard lock(mutex);
      ++stats.quarantined;
    }
    // One line: PostgreSQL's DETAIL quotes the whole row, which the quarantine table keeps.
    const std::string message = why.what();
    log("[fleet.quarantine] session " + detail::storableText(uuid) + ", " + kind +
        (number ? " " + std::to_string(*number) : "") +
        (why.sqlstate().empty() ? "" : " (SQLSTATE " + why.sqlstate() + ")") + ": " +
        message.substr(0, message.find('\n')) +
        "; the rest ships (agentvcr ship --retry-quarantined tries it again)");
  }

  /// How a COPY straight into a table went.
  enum class Straight {
    In,       ///< every row is in
    KeyHeld,  ///< a row's key is there already: nothing of the COPY is
    Refused,  ///< a blob's text is not JSON, which its `doc` cannot take: nothing is in
  };

  /// Copies rows straight into their table, which costs PostgreSQL half of staging them first.
  /// Rows of a monthly table are new but for a position lost or a batch whose commit went
  /// unanswered; content-addressed rows are the ones the fleet lacked a moment ago.
  Straight copyStraightIn(PgConnection& conn, const store::FeedTable& t, const std::string& month) {
    const bool blobs = t.table == "blobs";
    const bool by_month = monthly.contains(t.table);
    conn.exec("SAVEPOINT agentvcr_copy");
    try {
      copyRows(conn,
               "COPY " + t.table + " (" + joined(columnsOf(t)) + (blobs ? ", doc" : "") +
                   (by_month ? ", session_month" : "") + ") FROM STDIN",
               t, {.field = by_month ? month : std::string_view(), .json_again = blobs});
      conn.exec("RELEASE SAVEPOINT agentvcr_copy");
      return Straight::In;
    } catch (const PgError& e) {
      const bool held = e.sqlstate() == kUniqueViolation;
      if (!held && !(blobs && e.sqlstate().starts_with("22"))) {
        throw;
      }
      conn.exec("ROLLBACK TO SAVEPOINT agentvcr_copy");
      return held ? Straight::KeyHeld : Straight::Refused;
    }
  }

  /// The rows of content-addressed `t` whose hash the fleet archive does not hold yet, or nullopt
  /// when it holds none of them. Asked by the batch's hashes, which PostgreSQL looks up in the
  /// key's index however large the table.
  static std::optional<store::FeedTable> withoutHeld(PgConnection& conn,
                                                     const store::FeedTable& t) {
    std::vector<std::string> hashes;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      hashes.push_back(std::to_string(intAt(t, r, "hash")));
    }
    PgResult held = conn.exec("SELECT hash FROM " + t.table + " WHERE hash = ANY($1::bigint[])",
                              {"{" + joinedWith(hashes, ",") + "}"});
    if (held.rows() == 0) {
      return std::nullopt;
    }
    std::set<std::int64_t> have;
    for (int i = 0; i < held.rows(); ++i) {
      have.insert(held.optionalInteger(i, 0).value_or(0));
    }
    std::vector<std::size_t> lacking;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      if (!have.contains(intAt(t, r, "hash"))) {
        lacking.push_back(r);
      }
    }
    return subset(t, lacking);
  }

  static void copyRows(PgConnection& conn, const std::string& copy, const store::FeedTable& t,
                       const detail::CopyTail& tail = {}) {
    std::size_t row = 0;
    conn.copyIn(copy, [&](std::string& piece) {
      while (row < t.rows.size() && piece.size() < kCopyPiece) {
        detail::appendCopyRow(piece, t, row++, tail);
      }
      return row < t.rows.size();
    });
  }

  /// Blobs are JSON but nothing guarantees it, and a cast that fails would fail the batch.
  /// Catching the failure per row costs a subtransaction each: cast the batch at once, and only
  /// a batch holding a blob that is not JSON goes row by row.
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

  /// Moves a batch's rows of one table in: straight where they can be, or staged.
  void moveTable(PgConnection& conn, const store::FeedTable& t, const std::string& month) {
    if (t.rows.empty()) {
      return;
    }
    if (isContentAddressed(t.table)) {
      moveContent(conn, t);
      return;
    }
    if (monthly.contains(t.table) && copyStraightIn(conn, t, month) == Straight::In) {
      return;
    }
    stageAndInsert(conn, t, month);
  }

  /// Moves content-addressed rows in, which other shippers may be sending at the same moment.
  /// What the fleet holds already is not sent again; the rest goes straight in. A key another
  /// shipper wrote in between fails that COPY, and the fleet is asked again, once: after that,
  /// or for a blob that is not JSON, the rows take the staged way, which skips what is there.
  void moveContent(PgConnection& conn, const store::FeedTable& t) {
    std::optional<store::FeedTable> lacking;
    for (int attempt = 0; attempt < 2; ++attempt) {
      lacking = withoutHeld(conn, t);
      const store::FeedTable& rows = lacking ? *lacking : t;
      if (rows.rows.empty()) {
        return;
      }
      const Straight straight = copyStraightIn(conn, rows, {});
      if (straight == Straight::In) {
        return;
      }
      if (straight == Straight::Refused) {
        break;
      }
    }
    stageAndInsert(conn, lacking ? *lacking : t, {});
  }

  /// COPY into the table's staging table, and INSERT from there with what its rows need on
  /// conflict.
  void stageAndInsert(PgConnection& conn, const store::FeedTable& t, const std::string& month) {
    const std::string stage = "agentvcr_stage_" + t.table;
    copyRows(conn, "COPY " + stage + " (" + joined(columnsOf(t)) + ") FROM STDIN", t);
    if (t.table == "blobs") {
      moveBlobs(conn);
    } else if (monthly.contains(t.table)) {
      conn.exec(insertFromStage(t, true), {month});
    } else {
      conn.exec(insertFromStage(t, false));
    }
    // Within one transaction the stage is used again (a batch isolated item by item).
    conn.exec("DELETE FROM " + stage);
  }

  /// The fleet holds the session up to its position, and the batch from its start, which write()
  /// made sure is not past that position: together, up to the greater of the two ends.
  void writePosition(PgConnection& conn, const std::string& uuid, const store::FeedBatch& batch) {
    conn.exec(
        "INSERT INTO ship_positions (session_uuid, exchanges, misses, links, session_digest) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_uuid) DO UPDATE SET "
        "exchanges = GREATEST(ship_positions.exchanges, EXCLUDED.exchanges), "
        "misses = GREATEST(ship_positions.misses, EXCLUDED.misses), "
        "links = GREATEST(ship_positions.links, EXCLUDED.links), "
        "session_digest = EXCLUDED.session_digest, shipped_at = now()",
        {uuid, std::to_string(batch.end.exchanges), std::to_string(batch.end.misses),
         std::to_string(batch.end.links), std::to_string(batch.session_digest)});
  }

  /// Runs `move` as one item in a savepoint: when PostgreSQL refuses the item's rows, they are
  /// quarantined as `kind` `number` and the transaction goes on. False when quarantined.
  bool item(PgConnection& conn, const std::string& uuid, const std::string& kind,
            std::optional<std::int64_t> number, const std::function<void()>& move) {
    conn.exec("SAVEPOINT agentvcr_item");
    try {
      move();
      conn.exec("RELEASE SAVEPOINT agentvcr_item");
      return true;
    } catch (const PgError& e) {
      if (classify(e) != PgFailure::Row) {
        throw;
      }
      conn.exec("ROLLBACK TO SAVEPOINT agentvcr_item");
      conn.exec("RELEASE SAVEPOINT agentvcr_item");
      quarantine(conn, uuid, kind, number, e);
      return false;
    }
  }

  /// Writes a batch PostgreSQL refused, item by item in one transaction: the items it still
  /// refuses are quarantined and the rest lands, with the position past them all.
  Written isolate(PgConnection& conn, const std::string& uuid, const store::FeedBatch& batch,
                  const std::string& month) {
    return conn.transaction([&] {
      for (const store::FeedTable& t : batch.tables) {
        if (!isContentAddressed(t.table)) {
          continue;
        }
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          item(conn, uuid, t.table == "blobs" ? "blob" : "body_dictionary", intAt(t, r, "hash"),
               [&] { moveTable(conn, subset(t, {r}), month); });
        }
      }
      for (const store::FeedTable& t : batch.tables) {
        if (t.table == "sessions" &&
            !item(conn, uuid, "session", std::nullopt, [&] { moveTable(conn, t, month); })) {
          return Written::SessionQuarantined;
        }
      }
      // Conversations, replay misses and step links one by one; an exchange with every row
      // decoded from it.
      std::map<std::int64_t, std::vector<std::pair<const store::FeedTable*, std::size_t>>> seqs;
      for (const store::FeedTable& t : batch.tables) {
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          if (isPerExchange(t.table)) {
            seqs[intAt(t, r, "seq")].emplace_back(&t, r);
          } else if (t.table == "conversations" || t.table == "replay_misses") {
            item(conn, uuid, t.table == "conversations" ? "conversation" : "replay_miss",
                 intAt(t, r, "number"), [&] { moveTable(conn, subset(t, {r}), month); });
          } else if (t.table == "step_links") {
            item(conn, uuid, "step_links", intAt(t, r, "seq"),
                 [&] { moveTable(conn, subset(t, {r}), month); });
          }
        }
      }
      for (const auto& [seq, rows] : seqs) {
        item(conn, uuid, "exchange", seq, [&] {
          for (const store::FeedTable& t : batch.tables) {
            std::vector<std::size_t> mine;
            for (const auto& [table, r] : rows) {
              if (table == &t) {
                mine.push_back(r);
              }
            }
            moveTable(conn, subset(t, mine), month);
          }
        });
      }
      writePosition(conn, uuid, batch);
      return Written::Yes;
    });
  }

  /// Writes one batch that starts at `held`'s position, unless the fleet archive pruned its
  /// session or holds less of it than that.
  Written write(PgConnection& conn, const std::string& uuid, FleetSession& held,
                const store::FeedBatch& batch) {
    // Held until the batch is in: a prune waits for it, and a batch never lands after a prune
    // that it did not see. Should anything fail, the connection goes, and the lock with it.
    const std::string lock = std::to_string(kMonthsLock);
    conn.exec("SELECT pg_advisory_lock_shared(" + lock + ")");
    // Before anything is written, even a month's partitions: a pruned session stays pruned. The
    // position is read here, under the lock, because only what holds the lock exclusively
    // lowers it (a prune deletes it, a retry of the quarantine too): the one this shipper
    // remembers may be past what the fleet holds now, and the batch would leave a gap.
    PgResult fleet_now = conn.exec(
        "SELECT EXISTS (SELECT 1 FROM pruned_sessions WHERE uuid = $1), p.exchanges, p.misses, "
        "p.links FROM (SELECT) AS one LEFT JOIN ship_positions p ON p.session_uuid = $1",
        {uuid});
    if (fleet_now.text(0, 0) == "t") {
      conn.exec("SELECT pg_advisory_unlock_shared(" + lock + ")");
      return Written::Pruned;
    }
    const store::FeedPosition shipped = positionAt(fleet_now, 0, 1);
    if (shipped.exchanges < held.position.exchanges || shipped.misses < held.position.misses ||
        shipped.links < held.position.links) {
      conn.exec("SELECT pg_advisory_unlock_shared(" + lock + ")");
      held.position = {std::min(shipped.exchanges, held.position.exchanges),
                       std::min(shipped.misses, held.position.misses),
                       std::min(shipped.links, held.position.links)};
      return Written::Behind;
    }
    // Its own transaction: a partition made inside the batch's would lock the table against
    // every other shipper until the batch commits.
    const std::string month(
        conn.exec("SELECT agentvcr_file_month(agentvcr_month($1))::text", {sessionStartedNs(batch)})
            .text(0, 0));
    Written written = Written::Yes;
    try {
      // Rows keyed by content, which other shippers may be sending at the same moment, go
      // first and commit at once: a key that a transaction still open inserted makes every
      // other insert of it wait for that transaction's end, which would chain the shippers.
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
        writePosition(conn, uuid, batch);
      });
    } catch (const PgError& e) {
      if (classify(e) != PgFailure::Row) {
        throw;
      }
      written = isolate(conn, uuid, batch, month);
    }
    conn.exec("SELECT pg_advisory_unlock_shared(" + lock + ")");
    return written;
  }

  /// Ships one session as far as it is committed and indexed.
  store::FeedVisit shipSession(PgConnection& conn, const store::FeedSession& session) {
    if (!store::isUuid(session.uuid)) {
      FleetSession& held = fleet[session.uuid];
      if (!held.skipped) {
        quarantine(conn, session.uuid, "session", std::nullopt,
                   PgError("[fleet.ship] the session's uuid is not a uuid", "22P02", false));
        held.skipped = true;
      }
      return store::FeedVisit::Done;
    }
    FleetSession& held = fleetSession(conn, session.uuid);
    bool any = false;
    while (!held.skipped) {
      if (held.position == session.committed() && held.digest == session.digest) {
        return store::FeedVisit::Done;  // the fleet holds it all: nothing to write
      }
      if (follower.stopping()) {
        return store::FeedVisit::Stopped;
      }
      store::FeedBatch batch = follower.feed().next(session, held.position, options.batch);
      keepPromptsAsReferences(batch);
      const bool rows = batch.exchanges > 0 || batch.misses > 0 || batch.links > 0;
      if (!rows && batch.session_digest == held.digest) {
        // Nothing the fleet lacks can be read yet: rows wait for their index.
        return batch.waiting_for_index ? store::FeedVisit::Waiting : store::FeedVisit::Done;
      }
      const Written written = write(conn, session.uuid, held, batch);
      if (written == Written::Behind) {
        continue;  // read again from where the fleet's position is
      }
      if (written == Written::Pruned) {
        held.skipped = true;
        notePruned(session.uuid);
        break;
      }
      if (written == Written::SessionQuarantined) {
        held.skipped = true;
        break;
      }
      held.position = batch.end;
      held.digest = batch.session_digest;
      any = any || rows;
      {
        std::lock_guard lock(mutex);
        stats.exchanges += batch.exchanges;
        stats.rows += batch.rowCount();
        ++stats.batches;
      }
      if (batch.waiting_for_index) {
        return store::FeedVisit::Waiting;
      }
      if (batch.caught_up) {
        break;
      }
    }
    if (any) {
      std::lock_guard lock(mutex);
      ++stats.sessions;
    }
    return store::FeedVisit::Done;
  }

  /// `--retry-quarantined`: the quarantined items of this archive's sessions leave the
  /// quarantine, and those sessions ship again from their start (what the fleet holds already
  /// is skipped by its keys; what is refused again is quarantined again).
  void retryQuarantined(PgConnection& conn) {
    std::vector<std::string> uuids;
    for (const store::FeedSession& s : follower.feed().sessions()) {
      uuids.push_back(detail::storableText(s.uuid));
    }
    // Their positions go with their quarantine: the sessions ship again from the start. Under
    // the lock a prune takes: a shipper checks the position under it before it writes.
    std::set<std::string> retried;
    conn.transaction([&] {
      conn.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMonthsLock) + ")");
      // lower(): as loadFleet() compares, for the uuids shippers before this one wrote in the
      // archive's spelling.
      PgResult r = conn.exec(
          "DELETE FROM quarantine WHERE session_uuid = ANY($1::text[]) OR "
          "lower(session_uuid) = ANY($1::text[]) RETURNING lower(session_uuid)",
          {arrayLiteral(uuids)});
      for (int i = 0; i < r.rows(); ++i) {
        retried.emplace(r.text(i, 0));
      }
      conn.exec("DELETE FROM ship_positions WHERE session_uuid::text = ANY($1::text[])",
                {arrayLiteral({retried.begin(), retried.end()})});
    });
    log("[fleet.ship] retrying what was quarantined of " + std::to_string(retried.size()) +
        " session(s)");
  }

  std::uint64_t left() {
    std::uint64_t n = 0;
    for (const store::FeedSession& s : follower.feed().sessions()) {
      const auto at = fleet.find(s.uuid);
      if (at != fleet.end() && at->second.skipped) {
        continue;
      }
      const std::int64_t sent = at == fleet.end() ? 0 : at->second.position.exchanges;
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

  /// Connects and ships until caught up (or stopped, with `follow`); throws what fails.
  ShipEnd shipConnected(std::optional<Clock::time_point>& outage_since, int& failures,
                        std::chrono::milliseconds& wait) {
    std::unique_ptr<PgConnection> conn = connect();
    LiveConnection published(*this, *conn);
    // What the fleet holds is read again: another shipper, or a prune, may have moved it.
    fleet.clear();
    follower.restart();
    if (options.retry_quarantined) {
      retryQuarantined(*conn);
      options.retry_quarantined = false;
    }
    std::vector<std::string> uuids;
    for (const store::FeedSession& s : follower.feed().sessions()) {
      if (store::isUuid(s.uuid)) {
        uuids.push_back(s.uuid);
      }
    }
    loadFleet(*conn, uuids);
    if (outage_since) {
      log("[fleet.ship] " + conn->redactedUri() + " is back after " +
          seconds(Clock::now() - *outage_since) + ": catching up");
      outage_since.reset();
    }
    failures = 0;
    wait = options.retry_first;
    while (!follower.stopping()) {
      // Read before looking: what the recorder commits after this is for the next round.
      const bool finish_now = follower.finishing();
      const bool caught_up =
          follower.round([&](const store::FeedSession& s) { return shipSession(*conn, s); });
      noteLag(caught_up);
      // Without --follow, one pass: what waits for its index is left, and said.
      if ((caught_up && finish_now) || !options.follow) {
        return ShipEnd::CaughtUp;
      }
      if (!follower.pause(options.poll)) {
        break;
      }
    }
    return ShipEnd::Stopped;
  }

  ShipEnd run() {
    int failures = 0;
    auto wait = options.retry_first;
    std::optional<Clock::time_point> outage_since;
    while (!follower.stopping()) {
      try {
        const ShipEnd how = shipConnected(outage_since, failures, wait);
        if (how == ShipEnd::CaughtUp) {
          return end(ShipEnd::CaughtUp);
        }
      } catch (const FleetSchemaError& e) {
        log(e.what());
        return end(ShipEnd::Failed, e.what());
      } catch (const PgError& e) {
        if (options.on_failure) {
          options.on_failure();
        }
        if (follower.stopping()) {
          break;
        }
        if (classify(e) != PgFailure::Transient) {
          const std::string why = std::string(e.what()) + " (retrying cannot fix this)";
          log(why);
          return end(ShipEnd::Failed, why);
        }
        {
          std::lock_guard lock(mutex);
          if (!outage_since) {
            ++stats.outages;
          }
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
        if (!follower.pause(wait)) {
          break;
        }
        wait = std::min(wait * 2, options.retry_max);
      } catch (const std::exception& e) {
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
  impl_->follower.stop();
  std::lock_guard lock(impl_->mutex);
  if (impl_->live != nullptr) {
    impl_->live->cancel();
  }
}

void Shipper::finish() {
  impl_->follower.finish();
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
