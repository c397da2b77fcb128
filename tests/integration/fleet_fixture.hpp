#pragma once

// The fleet archive's tests share a real PostgreSQL 15 cluster (tests/support/pg_cluster, started
// by ctest's `postgres` fixture); each test makes a database of its own on it.

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/shipper.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_recording.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

inline std::string readLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

inline std::string clusterDir() {
  const char* dir = std::getenv("AGENTVCR_TEST_PG_DIR");
  return dir != nullptr ? dir : "";
}

/// `uri` of a cluster (tests/support/pg_cluster) with its database replaced by `database`.
inline std::string withDatabase(const std::string& uri, const std::string& database) {
  const std::size_t slash = uri.find('/', uri.find("://") + 3);
  const std::size_t query = uri.find('?', slash);
  return uri.substr(0, slash + 1) + database + uri.substr(query);
}

inline std::string randomName(const char* prefix) {
  std::random_device device;
  return prefix + std::to_string(device()) + std::to_string(device());
}

// The tables whose rows belong to one session, and what keys them in PostgreSQL.
inline const std::vector<std::string> kSessionTables = {
    "exchanges",     "steps",         "candidates", "internal_steps", "a2a_calls",
    "stream_events", "conversations", "step_links", "replay_misses"};

/// A database of its own on the test cluster, migrated to fleet schema `version`, dropped
/// afterwards.
class FleetDatabase {
 public:
  explicit FleetDatabase(const std::string& cluster_uri, int version = fleet::kFleetSchemaVersion)
      : cluster_uri_(cluster_uri) {
    name_ = randomName("fleet_");
    fleet::PgConnection(cluster_uri_).exec("CREATE DATABASE " + name_);
    uri_ = withDatabase(cluster_uri_, name_);
    fleet::PgConnection conn(uri_);
    fleet::migrateFleet(conn, version);
  }

  ~FleetDatabase() {
    try {
      fleet::PgConnection(cluster_uri_).exec("DROP DATABASE " + name_ + " WITH (FORCE)");
    } catch (const std::exception&) {
      // the cluster is already gone
    }
  }

  const std::string& uri() const { return uri_; }

  const std::string& name() const { return name_; }

  long long count(const std::string& sql) const {
    fleet::PgConnection conn(uri_);
    return conn.exec(sql).integer(0, 0);
  }

  long long rows(const std::string& table) const { return count("SELECT count(*) FROM " + table); }

 private:
  std::string cluster_uri_;
  std::string name_;
  std::string uri_;
};

inline long long sqliteCount(const std::string& db_path, const std::string& sql) {
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, sql);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

/// One column of every row of `sql` on a SQLite file, in order, as exact bytes ("NULL" for NULL).
inline std::vector<std::string> sqliteColumn(const std::string& db_path, const std::string& sql) {
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, sql);
  std::vector<std::string> values;
  while (q.executeStep()) {
    const SQLite::Column c = q.getColumn(0);
    values.push_back(c.isNull() ? "NULL"
                                : std::string(static_cast<const char*>(c.getBlob()),
                                              static_cast<std::size_t>(c.getBytes())));
  }
  return values;
}

/// One column of every row of `sql` in PostgreSQL, as text ("NULL" for NULL).
inline std::vector<std::string> pgColumn(fleet::PgConnection& conn, const std::string& sql) {
  const fleet::PgResult r = conn.exec(sql);
  std::vector<std::string> values;
  for (int i = 0; i < r.rows(); ++i) {
    const auto value = r.optionalText(i, 0);
    values.push_back(value ? std::string(*value) : "NULL");
  }
  return values;
}

/// The distinct keyframes of an archive's body segments: the first exchange's bodies of each
/// segment, those of them the segment holds, back to back.
inline std::set<std::string> segmentKeyframes(const std::string& db_path) {
  const store::ArchiveReader reader(db_path);
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, R"sql(
    SELECT id, request_body_codec = 'zstd-segment', response_body_codec = 'zstd-segment'
    FROM exchanges WHERE id IN (SELECT min(id) FROM exchanges WHERE body_segment_id IS NOT NULL
                                GROUP BY body_segment_id))sql");
  std::set<std::string> keyframes;
  while (q.executeStep()) {
    const std::optional<store::ExchangeRow> first = reader.exchange(q.getColumn(0).getInt64());
    if (first) {
      keyframes.insert((q.getColumn(1).getInt() != 0 ? first->request_body : std::string()) +
                       (q.getColumn(2).getInt() != 0 ? first->response_body : std::string()));
    }
  }
  return keyframes;
}

/// Rows of each table an archive holds, counted as the fleet archive counts them.
inline std::map<std::string, long long> archiveCounts(const std::string& db_path) {
  std::map<std::string, long long> counts;
  for (const std::string& table : kSessionTables) {
    counts[table] = sqliteCount(db_path, "SELECT count(*) FROM " + table);
  }
  counts["sessions"] = sqliteCount(db_path, "SELECT count(*) FROM sessions");
  // Keyed by content in the fleet archive: sessions that built the same dictionary share it.
  // Each body segment's keyframe travels as one too, what its bodies are compressed against.
  counts["body_dictionaries"] =
      sqliteCount(db_path, "SELECT count(DISTINCT content) FROM body_dictionaries") +
      static_cast<long long>(segmentKeyframes(db_path).size());
  counts["blobs"] = sqliteCount(db_path, "SELECT count(*) FROM blobs");
  return counts;
}

inline std::map<std::string, long long> fleetCounts(const FleetDatabase& fleet_db) {
  std::map<std::string, long long> counts;
  for (const std::string& table : kSessionTables) {
    counts[table] = fleet_db.rows(table);
  }
  counts["sessions"] = fleet_db.rows("sessions");
  counts["body_dictionaries"] = fleet_db.rows("body_dictionaries");
  counts["blobs"] = fleet_db.rows("blobs");
  return counts;
}

inline fleet::ShipStats ship(const std::string& db_path, const std::string& uri) {
  fleet::ShipOptions options;
  options.db_path = db_path;
  options.uri = uri;
  options.batch.exchanges = 7;  // many batches, so that positions matter
  fleet::Shipper shipper(options);
  EXPECT_EQ(shipper.run(), fleet::ShipEnd::CaughtUp) << shipper.error();
  return shipper.stats();
}

class FleetShipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(clusterDir().empty())
        << "AGENTVCR_TEST_PG_DIR is not set: ctest starts the cluster (fixture `postgres`)";
    cluster_uri_ = readLine(clusterDir() + "/uri");
    ASSERT_FALSE(cluster_uri_.empty()) << "no cluster in " << clusterDir();
    fleet_db_ = std::make_unique<FleetDatabase>(cluster_uri_);
  }

  std::string recordArchive(const std::string& name) {
    const std::string path = dir_.file(name + ".sqlite");
    recordDemo(path, name);
    return path;
  }

  TempDir dir_;
  std::string cluster_uri_;
  std::unique_ptr<FleetDatabase> fleet_db_;
};

}  // namespace agentvcr::testing
