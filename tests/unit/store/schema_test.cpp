#include "agentvcr/store/schema.hpp"

#include <fstream>
#include <stdexcept>
#include <string>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using ::testing::HasSubstr;
using testing::queryInt;
using testing::queryText;
using testing::TempDir;

/// The v1 archive exactly as the first release created it (frozen; never edit).
constexpr const char* kV1Schema = R"sql(
CREATE TABLE sessions (
  id         INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  mode       TEXT    NOT NULL,
  upstream   TEXT    NOT NULL,
  listen     TEXT    NOT NULL,
  started_ns INTEGER NOT NULL,
  ended_ns   INTEGER
);
CREATE TABLE exchanges (
  id                     INTEGER PRIMARY KEY,
  session_id             INTEGER NOT NULL REFERENCES sessions(id),
  seq                    INTEGER NOT NULL,
  client_address         TEXT    NOT NULL,
  method                 TEXT    NOT NULL,
  target                 TEXT    NOT NULL,
  http_version           INTEGER NOT NULL,
  status                 INTEGER NOT NULL,
  request_headers        TEXT    NOT NULL,
  request_body           BLOB    NOT NULL,
  response_headers       TEXT    NOT NULL,
  response_body          BLOB    NOT NULL,
  response_from_upstream INTEGER NOT NULL,
  started_ns             INTEGER NOT NULL,
  upstream_first_byte_ns INTEGER,
  ended_ns               INTEGER,
  outcome                TEXT    NOT NULL,
  error                  TEXT
);
CREATE UNIQUE INDEX exchanges_session_seq ON exchanges(session_id, seq);
PRAGMA user_version = 1;
)sql";

void createV1Archive(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(kV1Schema);
  db.exec(
      "INSERT INTO sessions (id, name, mode, upstream, listen, started_ns, ended_ns) VALUES "
      "(1, 'old', 'record', 'http://a', '127.0.0.1:1', 10, 20)");
  const std::string complete = protocol::outcomeName(protocol::ExchangeOutcome::Complete);
  const std::string timeout = protocol::outcomeName(protocol::ExchangeOutcome::UpstreamTimeout);
  db.exec(
      "INSERT INTO exchanges (session_id, seq, client_address, method, target, http_version, "
      "status, request_headers, request_body, response_headers, response_body, "
      "response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns, outcome, error) "
      "VALUES (1, 0, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'7B7D', '[]', X'5B5D', 1, "
      "11, 12, 13, '" +
      complete +
      "', NULL), (1, 1, 'c', 'GET', '/metrics', 11, 504, '[]', X'', '[]', X'', 0, 14, NULL, 15, '" +
      timeout + "', 'timeout')");
}

void setUserVersion(const std::string& path, int version) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA user_version = " + std::to_string(version));
}

template <class F>
std::string thrownMessage(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "<nothing thrown>";
}

TEST(Schema, CreatesAFreshArchiveAtTheCurrentVersion) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  EXPECT_EQ(migrateArchive(path), 0);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryText(path, "PRAGMA journal_mode"), "wal");
  for (const char* table : {"sessions", "exchanges", "blobs", "conversations", "steps",
                            "candidates", "internal_steps"}) {
    EXPECT_EQ(queryInt(path, std::string("SELECT count(*) FROM sqlite_master WHERE type = "
                                         "'table' AND name = '") +
                                 table + "'"),
              1)
        << table;
  }
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE type = 'view'"), 2);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'steps_replay_key'"),
            1);
  // Opening it again finds nothing to do.
  EXPECT_EQ(migrateArchive(path), kSchemaVersion);
}

TEST(Schema, MigratesAVersion1ArchiveAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  createV1Archive(path);

  EXPECT_EQ(migrateArchive(path), 1);

  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM exchanges"), 2);
  EXPECT_EQ(queryText(path, "SELECT protocol FROM exchanges WHERE seq = 0"), "magma");
  EXPECT_EQ(queryText(path, "SELECT route FROM exchanges WHERE seq = 0"),
            protocol::magma::routeName(protocol::magma::Route::Responses));
  EXPECT_EQ(queryText(path, "SELECT protocol FROM exchanges WHERE seq = 1"), "http");
  EXPECT_EQ(queryInt(path, "SELECT decoder_version FROM exchanges WHERE seq = 0"), 0);
  EXPECT_EQ(queryInt(path, "SELECT exchange_count FROM sessions WHERE id = 1"), 2);
  EXPECT_EQ(queryInt(path, "SELECT failed_exchange_count FROM sessions WHERE id = 1"), 1);

  ArchiveReader reader(path);
  ASSERT_EQ(reader.sessions().size(), 1u);
  std::vector<ExchangeRow> rows = reader.exchanges(1, 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].error.value_or(""), "timeout");
  EXPECT_FALSE(rows[1].upstream_first_byte_ns.has_value());
  std::optional<ExchangeRow> first = reader.exchange(rows[0].id);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->request_body, "{}");
  EXPECT_EQ(first->response_body, "[]");
}

TEST(Schema, RecorderMigratesAVersion1ArchiveAndAppendsASession) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  createV1Archive(path);
  {
    Recorder recorder(path, testing::testSession("new"), testing::testOptions());
    EXPECT_EQ(recorder.sessionId(), 2);
    testing::submit(recorder, testing::httpExchange("GET", "/x"));
  }
  ArchiveReader reader(path);
  std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[1].name, "new");
  EXPECT_EQ(sessions[1].exchange_count, 1);
  EXPECT_EQ(reader.exchanges(2, 0, 10).size(), 1u);
}

TEST(Schema, RefusesAnArchiveFromANewerVersion) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  migrateArchive(path);
  setUserVersion(path, kSchemaVersion + 1);

  EXPECT_THAT(thrownMessage([&] { migrateArchive(path); }), HasSubstr("[store.schema.newer]"));
  EXPECT_THAT(thrownMessage(
                  [&] { Recorder recorder(path, testing::testSession(), testing::testOptions()); }),
              HasSubstr("[store.schema.newer]"));
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }),
              HasSubstr("[store.schema.newer]"));
  // Nothing was written to it.
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion + 1);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sessions"), 0);
}

TEST(Schema, RefusesASqliteFileThatIsNotAnArchive) {
  TempDir dir;
  const std::string path = dir.file("other.sqlite");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE notes (x TEXT)");
  }
  EXPECT_THAT(thrownMessage([&] { migrateArchive(path); }), HasSubstr("[store.schema.foreign]"));
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }),
              HasSubstr("[store.schema.foreign]"));
}

TEST(Schema, RefusesAFileThatIsNotSqlite) {
  TempDir dir;
  const std::string path = dir.file("text.sqlite");
  std::ofstream(path) << "this is not a database, just some text that is long enough......."
                         "................................................................";
  EXPECT_THAT(thrownMessage([&] { migrateArchive(path); }), HasSubstr("[store.open]"));
  EXPECT_THAT(thrownMessage(
                  [&] { Recorder recorder(path, testing::testSession(), testing::testOptions()); }),
              HasSubstr("[store.open]"));
}

TEST(Schema, ReaderAsksToMigrateAnOlderArchive) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  createV1Archive(path);
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }), HasSubstr("[store.schema.old]"));
}

TEST(Schema, ReaderRefusesAMissingFile) {
  TempDir dir;
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(dir.file("missing.sqlite")); }),
              HasSubstr("[store.open]"));
}

}  // namespace
}  // namespace agentvcr::store
