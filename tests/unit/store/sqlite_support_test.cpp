// The store's SQLite helpers that bind parameters and read columns by name
// (store/src/sqlite_support.hpp): no statement depends on where a parameter or column stands.

#include "sqlite_support.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

namespace agentvcr::store::detail {
namespace {

class SqliteSupportTest : public ::testing::Test {
 protected:
  SqliteSupportTest() {
    db_.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, size INTEGER, ratio REAL)");
  }

  SQLite::Database db_{":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
};

TEST_F(SqliteSupportTest, BindsByNameWhateverTheOrderOfTheParameters) {
  SQLite::Statement insert(db_, "INSERT INTO t (ratio, size, name) VALUES (:ratio, :size, :name)");
  const std::string name = "first";
  bindText(insert, ":name", name);
  bindInt(insert, ":size", 42);
  bindOptDouble(insert, ":ratio", std::nullopt);
  execOnce(insert);

  SQLite::Statement select(db_, "SELECT ratio, size, name FROM t");
  ASSERT_TRUE(select.executeStep());
  EXPECT_EQ(column(select, "name").getString(), "first");
  EXPECT_EQ(column(select, "size").getInt64(), 42);
  EXPECT_TRUE(column(select, "ratio").isNull());
}

TEST_F(SqliteSupportTest, BindsTheOptionalsAsNullWhenEmpty) {
  SQLite::Statement insert(db_, "INSERT INTO t (name, size) VALUES (:name, :size)");
  bindOptText(insert, ":name", std::nullopt);
  bindOptInt(insert, ":size", std::optional<std::int64_t>(7));
  execOnce(insert);

  SQLite::Statement select(db_, "SELECT name, size FROM t");
  ASSERT_TRUE(select.executeStep());
  EXPECT_EQ(optText(select, columnIndex(select, "name")), std::nullopt);
  EXPECT_EQ(optInt(select, columnIndex(select, "size")), 7);
}

TEST_F(SqliteSupportTest, AnUnknownParameterNameThrowsInsteadOfLeavingItNull) {
  SQLite::Statement insert(db_, "INSERT INTO t (name) VALUES (:name)");
  try {
    bindInt(insert, ":nmae", 1);
    FAIL() << "bound a parameter the statement does not have";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("[store.sql] no parameter :nmae"), std::string::npos)
        << e.what();
  }
}

TEST_F(SqliteSupportTest, ColumnIndexFindsAColumnByItsNameOrAlias) {
  SQLite::Statement select(db_, "SELECT size, name, count(*) AS rows_seen FROM t");
  EXPECT_EQ(columnIndex(select, "size"), 0);
  EXPECT_EQ(columnIndex(select, "name"), 1);
  EXPECT_EQ(columnIndex(select, "rows_seen"), 2);
}

TEST_F(SqliteSupportTest, AnUnknownColumnNameThrows) {
  SQLite::Statement select(db_, "SELECT id, name FROM t");
  EXPECT_THROW(columnIndex(select, "nmae"), std::logic_error);
  try {
    columnIndex(select, "size");
    FAIL() << "found a column the statement does not select";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("[store.sql] no column size"), std::string::npos)
        << e.what();
  }
}

TEST_F(SqliteSupportTest, TwoColumnsOfTheSameNameThrowUntilOneIsAliased) {
  db_.exec("CREATE TABLE u (id INTEGER PRIMARY KEY, t_id INTEGER)");
  SQLite::Statement ambiguous(db_, "SELECT t.id, u.id FROM t JOIN u ON u.t_id = t.id");
  EXPECT_THROW(columnIndex(ambiguous, "id"), std::logic_error);
  SQLite::Statement aliased(db_, "SELECT t.id, u.id AS u_id FROM t JOIN u ON u.t_id = t.id");
  EXPECT_EQ(columnIndex(aliased, "id"), 0);
  EXPECT_EQ(columnIndex(aliased, "u_id"), 1);
}

TEST_F(SqliteSupportTest, NamedColumnsReadEveryRowByName) {
  db_.exec("INSERT INTO t (id, name, size) VALUES (1, 'a', 10), (2, NULL, 20)");
  SQLite::Statement select(db_, "SELECT size, name, id FROM t ORDER BY id");
  const NamedColumns c(select);
  ASSERT_TRUE(select.executeStep());
  EXPECT_EQ(c.get("id").getInt64(), 1);
  EXPECT_EQ(c.optText("name"), "a");
  EXPECT_EQ(c.optInt("size"), 10);
  ASSERT_TRUE(select.executeStep());
  EXPECT_EQ(c.get("id").getInt64(), 2);
  EXPECT_EQ(c.optText("name"), std::nullopt);
  EXPECT_EQ(c.index("size"), 0);
  EXPECT_THROW(c.get("ratio"), std::logic_error);
}

TEST_F(SqliteSupportTest, AReusedStatementBindsRightInWhateverOrderItsRowsBind) {
  ReusedStatement insert(db_, "INSERT INTO t (id, name, size) VALUES (:id, :name, :size)");
  const std::string a = "a";
  const std::string b = "b";
  const std::string c = "c";
  // The remembered positions are searched from the last one found: a row that binds in
  // another order, or skips a name, must still land every value in its own column.
  bindInt(insert, ":id", 1);
  bindText(insert, ":name", a);
  bindInt(insert, ":size", 10);
  execOnce(insert);
  bindInt(insert, ":size", 20);
  bindText(insert, ":name", b);
  bindInt(insert, ":id", 2);
  execOnce(insert);
  bindText(insert, ":name", c);
  bindInt(insert, ":id", 3);
  bindInt(insert, ":size", 30);
  execOnce(insert);
  EXPECT_THROW(bindInt(insert, ":nmae", 1), std::logic_error);

  SQLite::Statement select(db_, "SELECT id, name, size FROM t ORDER BY id");
  const NamedColumns col(select);
  for (const auto& [id, name, size] :
       {std::tuple{1, "a", 10}, std::tuple{2, "b", 20}, std::tuple{3, "c", 30}}) {
    ASSERT_TRUE(select.executeStep());
    EXPECT_EQ(col.get("id").getInt64(), id);
    EXPECT_EQ(col.optText("name"), name);
    EXPECT_EQ(col.optInt("size"), size);
  }
}

TEST_F(SqliteSupportTest, AStatementLeaseKeepsOneReusedStatement) {
  db_.exec("INSERT INTO t (id, name) VALUES (1, 'a'), (2, 'b')");
  std::optional<ReusedStatement> kept;
  const char* sql = "SELECT name FROM t WHERE id = :id";
  for (const auto& [id, name] : {std::pair{1, "a"}, std::pair{2, "b"}}) {
    StatementLease lease(kept, db_, sql);
    bindInt(*lease, ":id", id);
    ASSERT_TRUE((*lease).executeStep());
    EXPECT_EQ((*lease).getColumn(0).getString(), name);
  }
  EXPECT_TRUE(kept.has_value());
}

}  // namespace
}  // namespace agentvcr::store::detail
