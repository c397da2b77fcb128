// The fleet archive's schema on a real PostgreSQL 15: what a shipper meets in a database of
// another version, migrations (at once, and from version 1 with rows in it), and
// `agentvcr pg prune`, which drops months of sessions whole.

#include <atomic>
#include <sstream>
#include <thread>

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/cli/pg_command.hpp"
#include "agentvcr/fleet/prune.hpp"
#include "fleet_fixture.hpp"
#include "full_history_recording.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

using FleetSchemaTest = FleetShipTest;

// Noon UTC on some days of autumn 2026, in nanoseconds.
constexpr long long kSeptember15 = 1789473600000000000;
constexpr long long kOctober15 = 1792065600000000000;
constexpr long long kOctober20 = 1792497600000000000;
constexpr long long kNovember10 = 1794312000000000000;
constexpr long long kNovember25 = 1795608000000000000;

TEST_F(FleetSchemaTest, NewerOlderOrMissingSchemaSaysWhatToRun) {
  const std::string db = recordArchive("demo");
  fleet::ShipOptions options;
  options.db_path = db;
  options.uri = fleet_db_->uri();
  {
    fleet::PgConnection(fleet_db_->uri()).exec("UPDATE agentvcr_fleet_schema SET version = 99");
    fleet::Shipper shipper(options);
    EXPECT_EQ(shipper.run(), fleet::ShipEnd::Failed);
    EXPECT_THAT(shipper.error(),
                AllOf(HasSubstr("[fleet.schema.newer]"), HasSubstr("99"),
                      HasSubstr("up to version " + std::to_string(fleet::kFleetSchemaVersion))));
  }
  {
    const FleetDatabase older(cluster_uri_, 1);
    options.uri = older.uri();
    fleet::Shipper shipper(options);
    EXPECT_EQ(shipper.run(), fleet::ShipEnd::Failed);
    EXPECT_THAT(shipper.error(), AllOf(HasSubstr("[fleet.schema.older]"), HasSubstr("version 1"),
                                       HasSubstr("agentvcr pg migrate --db")));
    options.uri = fleet_db_->uri();
  }
  {
    fleet::PgConnection(fleet_db_->uri()).exec("DROP TABLE agentvcr_fleet_schema");
    fleet::Shipper shipper(options);
    EXPECT_EQ(shipper.run(), fleet::ShipEnd::Failed);
    EXPECT_THAT(shipper.error(),
                AllOf(HasSubstr("[fleet.schema.missing]"), HasSubstr("agentvcr pg migrate --db")));
  }
}

TEST_F(FleetSchemaTest, MigratingTwiceAtOnceAppliesEachStepOnce) {
  const FleetDatabase fresh(cluster_uri_);  // migrated once already by its constructor
  std::atomic<int> already{0};
  std::vector<std::thread> migrations;
  for (int i = 0; i < 2; ++i) {
    migrations.emplace_back([&] {
      fleet::PgConnection conn(fresh.uri());
      if (fleet::migrateFleet(conn) == fleet::kFleetSchemaVersion) {
        ++already;
      }
    });
  }
  for (std::thread& t : migrations) {
    t.join();
  }
  EXPECT_EQ(already, 2);
  EXPECT_EQ(fresh.count("SELECT version FROM agentvcr_fleet_schema"), fleet::kFleetSchemaVersion);
}

TEST_F(FleetSchemaTest, MigratingFromVersion1FilesEveryRowUnderItsSessionsMonth) {
  const FleetDatabase v1(cluster_uri_, 1);
  fleet::PgConnection conn(v1.uri());
  conn.exec(
      R"sql(
    INSERT INTO sessions VALUES
      ('00000000-0000-4000-8000-00000000000a', 'n1', NULL, NULL, 'october', 'record', 'u', 'l',
       )sql" +
      std::to_string(kOctober15) + R"sql(, NULL, NULL, NULL, NULL, NULL, 2, 1, 0, 0, 1, 0, 0, 0),
      ('00000000-0000-4000-8000-00000000000b', 'n2', NULL, NULL, 'november', 'record', 'u', 'l',
       )sql" +
      std::to_string(kNovember10) + R"sql(, NULL, NULL, NULL, NULL, NULL, 1, 0, 0, 0, 0, 0, 0, 0);
    INSERT INTO exchanges (session_uuid, seq, client_address, method, target, http_version, status,
      request_headers, request_body, request_body_redacted, response_headers, response_body,
      response_from_upstream, started_ns, outcome, protocol, route, decoder_version)
    SELECT uuid, seq, '127.0.0.1', 'POST', '/v1/responses', 11, 200, '[]', '\x01', false, '[]',
           '\x02', true, started_ns + seq, 'ok', 'magma', 'responses', 1
    FROM sessions, generate_series(0, exchange_count - 1) AS seq;
    INSERT INTO steps (session_uuid, seq, position, source_id, replay_key, instruction_type,
      instruction_content, memory_hash, tools_hash, attributes_hash, extra_keys_hash, num_outputs,
      parent_ambiguity, depth)
    VALUES ('00000000-0000-4000-8000-00000000000a', 1, 0, 7, 8, 'env', 'x', 1, 2, 3, 4, 1, 0, 0);
  )sql");

  EXPECT_EQ(fleet::migrateFleet(conn), 1);
  EXPECT_EQ(v1.count("SELECT version FROM agentvcr_fleet_schema"), fleet::kFleetSchemaVersion);
  EXPECT_EQ(v1.rows("exchanges"), 3);
  EXPECT_EQ(v1.rows("exchanges_y2026m10"), 2);
  EXPECT_EQ(v1.rows("exchanges_y2026m11"), 1);
  EXPECT_EQ(v1.rows("steps_y2026m10"), 1);
  EXPECT_EQ(v1.count("SELECT count(*) FROM agentvcr_months"), 2);
  EXPECT_EQ(v1.count("SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%_v1'"), 0);
  EXPECT_EQ(v1.count("SELECT count(*) FROM pg_class WHERE relname = 'exchanges_started'"), 1);
}

class FleetPruneTest : public FleetShipTest {
 protected:
  /// A recording whose session says it started at `started_ns`, shipped.
  std::string shipRecordedAt(const std::string& name, long long started_ns) {
    const std::string db = recordArchive(name);
    SQLite::Database(db, SQLite::OPEN_READWRITE)
        .exec("UPDATE sessions SET started_ns = " + std::to_string(started_ns));
    ship(db, fleet_db_->uri());
    return db;
  }

  std::string prune(const std::string& before, bool dry_run) {
    std::ostringstream out;
    EXPECT_EQ(cli::runPgPrune({fleet_db_->uri(), before, dry_run}, out), 0);
    return out.str();
  }
};

TEST_F(FleetPruneTest, DropsWholeMonthsAndTheRestOfOlderSessionsRowByRow) {
  // September's session alone refers to one blob: the prune must take it too.
  const std::string september = recordArchive("september");
  SQLite::Database(september, SQLite::OPEN_READWRITE)
      .exec(
          "INSERT INTO blobs (hash, text) VALUES (4242, '{\"only\":\"september\"}');"
          "UPDATE steps SET memory_hash = 4242 WHERE id = (SELECT min(id) FROM steps);"
          "UPDATE sessions SET started_ns = " +
          std::to_string(kSeptember15));
  ship(september, fleet_db_->uri());
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM blobs WHERE hash = 4242"), 1);
  shipRecordedAt("october", kOctober20);
  shipRecordedAt("early-november", kNovember10);
  const std::string late_november = shipRecordedAt("late-november", kNovember25);
  EXPECT_EQ(fleet_db_->rows("agentvcr_months"), 3);
  EXPECT_EQ(fleet_db_->rows("exchanges_y2026m09"), archiveCounts(september).at("exchanges"));
  const auto before = fleetCounts(*fleet_db_);

  EXPECT_THAT(prune("2026-11-15", true),
              AllOf(HasSubstr("would prune 3 session(s) started before 2026-11-15"),
                    HasSubstr("dropped whole: 2026-09 2026-10")));
  EXPECT_EQ(fleetCounts(*fleet_db_), before) << "a dry run changes nothing";

  EXPECT_THAT(prune("2026-11-15", false),
              AllOf(HasSubstr("pruned 3 session(s)"), HasSubstr("dropped whole: 2026-09 2026-10"),
                    HasSubstr("; 1 blob(s)")));
  // What is left is exactly the late November session, blobs and dictionaries included.
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(late_november));
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM pg_class WHERE relname LIKE '%_y2026m09' OR "
                             "relname LIKE '%_y2026m10'"),
            0);
  EXPECT_EQ(fleet_db_->rows("agentvcr_months"), 1);

  // Shipping a pruned session again adds nothing; a new one of a dropped month finds its month.
  EXPECT_EQ(ship(september, fleet_db_->uri()).exchanges, 0u);
  const std::string old = shipRecordedAt("found-late", kOctober15);
  EXPECT_EQ(fleet_db_->rows("exchanges_y2026m10"), archiveCounts(old).at("exchanges"));
}

TEST_F(FleetPruneTest, AKeyframeAPackedMemoryNeedsOutlivesTheSessionThatBroughtIt) {
  // Two runs of the same demo share their memories: the blobs came with September's session,
  // packed against its keyframes. November's bodies are made to need none of those keyframes,
  // as when they were packed against keyframes of their own.
  shipRecordedAt("september", kSeptember15);
  const std::string november = shipRecordedAt("november", kNovember10);
  const std::string uuid = sqliteColumn(november, "SELECT uuid FROM sessions").at(0);
  fleet::PgConnection conn(fleet_db_->uri());
  conn.exec(
      "UPDATE exchanges SET request_body_dictionary = NULL, "
      "response_body_dictionary = NULL WHERE session_uuid = $1::uuid",
      {uuid});
  const char* kNeededByBlobsAlone = R"sql(
    SELECT count(DISTINCT b.dictionary) FROM blobs b WHERE b.dictionary IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM exchanges e WHERE e.session_uuid = $1::uuid
                      AND b.dictionary IN (e.request_body_dictionary, e.response_body_dictionary)))sql";
  ASSERT_GT(conn.exec(kNeededByBlobsAlone, {uuid}).integer(0, 0), 0);

  prune("2026-10-01", false);
  // November's steps still name those memories, and every packed memory still unpacks.
  EXPECT_GT(fleet_db_->count("SELECT count(*) FROM blobs WHERE dictionary IS NOT NULL"), 0);
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM blobs b WHERE b.dictionary IS NOT NULL AND "
                             "NOT EXISTS (SELECT 1 FROM body_dictionaries d "
                             "WHERE d.hash = b.dictionary)"),
            0);
}

TEST_F(FleetPruneTest, APrunedSessionsChainOfKeyframesGoesWhole) {
  // 40 full-history steps: three body segments, whose keyframes travel as a chain of body
  // dictionaries, each compressed against the one before it. Nothing else refers to them.
  const std::string db = dir_.file("september-history.sqlite");
  recordFullHistory(db, "september", 40);
  SQLite::Database(db, SQLite::OPEN_READWRITE)
      .exec("UPDATE sessions SET started_ns = " + std::to_string(kSeptember15));
  ship(db, fleet_db_->uri());
  ASSERT_GE(fleet_db_->count("SELECT count(*) FROM body_dictionaries WHERE dictionary IS NOT NULL"),
            2);

  EXPECT_THAT(prune("2026-10-01", false), HasSubstr("pruned 1 session(s)"));
  EXPECT_EQ(fleet_db_->rows("body_dictionaries"), 0);
  EXPECT_EQ(fleet_db_->rows("blobs"), 0);
}

TEST_F(FleetPruneTest, PruningNothingOrNonsenseChangesNothing) {
  shipRecordedAt("october", kOctober20);
  const auto before = fleetCounts(*fleet_db_);
  EXPECT_THAT(prune("2026-10-01T00:00:00Z", false),
              AllOf(HasSubstr("pruned 0 session(s)"), Not(HasSubstr("dropped whole"))));
  fleet::PgConnection conn(fleet_db_->uri());
  try {
    fleet::pruneFleet(conn, "last tuesday", false);
    ADD_FAILURE() << "pruned before a time that is not one";
  } catch (const fleet::PgError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("[fleet.prune]"), HasSubstr("last tuesday")));
  }
  EXPECT_EQ(fleetCounts(*fleet_db_), before);
}

}  // namespace
}  // namespace agentvcr::testing
