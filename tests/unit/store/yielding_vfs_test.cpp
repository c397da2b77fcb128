// The VFS of the recorder's connections (store/src/yielding_vfs.hpp): the default VFS's files,
// shared with connections that do not use it, with a yield every few writes.

#include "yielding_vfs.hpp"

#include <chrono>
#include <cstdint>
#include <string>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "agentvcr/store/recorder.hpp"
#include "sqlite_support.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store::detail {
namespace {

using testing::httpExchange;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

constexpr int kRows = 2000;

SQLite::Database openYielding(const std::string& path) {
  return openDatabase(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE,
                      std::chrono::milliseconds{1000}, Vfs::Yielding);
}

/// Fills `db` with rows of 1 KB: about 500 pages of 4 KB.
void fill(SQLite::Database& db) {
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT NOT NULL)");
  db.exec("BEGIN");
  SQLite::Statement insert(db, "INSERT INTO t (text) VALUES (?)");
  for (int i = 0; i < kRows; ++i) {
    insert.bind(1, std::string(1024, static_cast<char>('a' + i % 26)));
    insert.exec();
    insert.reset();
  }
  db.exec("COMMIT");
}

TEST(YieldingVfsTest, ACommitAndACheckpointYieldEveryFewWrites) {
  TempDir dir;
  SQLite::Database db = openYielding(dir.file("yield.sqlite"));
  const std::uint64_t before = yieldingVfsYields();
  fill(db);
  const std::uint64_t after_commit = yieldingVfsYields();
  // Each of the ~500 pages the commit wrote is a frame header and a page: two writes.
  EXPECT_GE(after_commit - before, 2 * 450 / kWritesBetweenYields);

  int log_frames = 0;
  int checkpointed = 0;
  ASSERT_EQ(sqlite3_wal_checkpoint_v2(db.getHandle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE,
                                      &log_frames, &checkpointed),
            SQLITE_OK);
  EXPECT_EQ(checkpointed, log_frames);
  // Each frame copied into the database file is one write.
  EXPECT_GE(yieldingVfsYields() - after_commit,
            static_cast<std::uint64_t>(checkpointed) / kWritesBetweenYields);
}

TEST(YieldingVfsTest, WritesKeepTheCoreWhileAGuardLives) {
  TempDir dir;
  SQLite::Database db = openYielding(dir.file("kept.sqlite"));
  const std::uint64_t before = yieldingVfsYields();
  {
    WritesKeepTheCore keep;
    fill(db);
  }
  EXPECT_EQ(yieldingVfsYields(), before);
  db.exec("UPDATE t SET text = upper(text)");
  EXPECT_GT(yieldingVfsYields(), before);
}

TEST(YieldingVfsTest, ConnectionsWithoutItShareTheArchiveAndItsWal) {
  TempDir dir;
  const std::string path = dir.file("shared.sqlite");
  SQLite::Database writer = openYielding(path);
  fill(writer);
  // A reader on the default VFS sees the committed rows while they are still only in the WAL,
  // and its snapshot holds while the writer goes on: the same locks and shared memory.
  SQLite::Database reader(path, SQLite::OPEN_READONLY);
  reader.exec("BEGIN");
  EXPECT_EQ(reader.execAndGet("SELECT count(*) FROM t").getInt(), kRows);
  writer.exec("DELETE FROM t WHERE id % 2 = 0");
  EXPECT_EQ(reader.execAndGet("SELECT count(*) FROM t").getInt(), kRows);
  reader.exec("COMMIT");
  EXPECT_EQ(reader.execAndGet("SELECT count(*) FROM t").getInt(), kRows / 2);
  EXPECT_EQ(reader.execAndGet("PRAGMA integrity_check").getString(), "ok");
}

TEST(YieldingVfsTest, TheRecordersConnectionsWriteThroughIt) {
  TempDir dir;
  const std::string path = dir.file("recorded.sqlite");
  const std::uint64_t before = yieldingVfsYields();
  {
    Recorder recorder(path, testSession(), testOptions());
    for (int i = 0; i < 200; ++i) {
      submit(recorder, httpExchange("POST", "/v1/responses/" + std::to_string(i)));
    }
  }
  EXPECT_GT(yieldingVfsYields(), before);
}

}  // namespace
}  // namespace agentvcr::store::detail
