#pragma once

// Small helpers over SQLiteCpp 3.2.1, private to the store (docs/style.md §4).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "body_compression.hpp"

namespace agentvcr::store::detail {

/// Opens a connection with a busy timeout. Throws std::runtime_error "[store.open] ...".
SQLite::Database openDatabase(const std::string& path, int flags,
                              std::chrono::milliseconds busy_timeout);

/// A statement prepared once and used again, for reads made on every request or body
/// (preparing costs as much as the read). The lease resets it when the use ends, so no read
/// transaction outlives the call and the next use sees what was committed since. Every use
/// binds all its parameters.
class StatementLease {
 public:
  /// Prepares `sql` into `kept` on the first lease. Throws SQLite::Exception.
  StatementLease(std::optional<SQLite::Statement>& kept, SQLite::Database& db, const char* sql)
      : statement_(kept ? *kept : kept.emplace(db, sql)) {}

  ~StatementLease() { statement_.tryReset(); }

  StatementLease(const StatementLease&) = delete;
  StatementLease& operator=(const StatementLease&) = delete;

  SQLite::Statement& operator*() const { return statement_; }

 private:
  SQLite::Statement& statement_;
};

/// Hashes are unsigned 64-bit; SQLite integers are signed: stored as the same bits.
inline std::int64_t toDb(std::uint64_t hash) {
  return static_cast<std::int64_t>(hash);
}

inline std::uint64_t fromDb(std::int64_t value) {
  return static_cast<std::uint64_t>(value);
}

inline void bindInt(SQLite::Statement& s, int index, std::int64_t value) {
  s.bind(index, static_cast<std::int64_t>(value));
}

inline void bindOptInt(SQLite::Statement& s, int index, const std::optional<std::int64_t>& v) {
  if (v) {
    s.bind(index, static_cast<std::int64_t>(*v));
  } else {
    s.bind(index);
  }
}

inline void bindOptDouble(SQLite::Statement& s, int index, const std::optional<double>& v) {
  if (v) {
    s.bind(index, *v);
  } else {
    s.bind(index);
  }
}

inline void bindOptBool(SQLite::Statement& s, int index, const std::optional<bool>& v) {
  if (v) {
    s.bind(index, static_cast<std::int32_t>(*v ? 1 : 0));
  } else {
    s.bind(index);
  }
}

/// Binds text without copying: `value` must outlive the next execution.
inline void bindText(SQLite::Statement& s, int index, const std::string& value) {
  s.bindNoCopy(index, value);
}

inline void bindOptText(SQLite::Statement& s, int index, const std::optional<std::string>& v) {
  if (v) {
    s.bindNoCopy(index, *v);
  } else {
    s.bind(index);
  }
}

/// Binds bytes as a BLOB without copying (a zero-length BLOB for an empty string, not NULL).
inline void bindBlob(SQLite::Statement& s, int index, const std::string& bytes) {
  s.bindNoCopy(index, static_cast<const void*>(bytes.data()), static_cast<int>(bytes.size()));
}

/// A JSON array of ids, bound as one parameter and read with json_each().
inline std::string idList(const std::vector<std::int64_t>& ids) {
  std::string text = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i != 0) {
      text.push_back(',');
    }
    text += std::to_string(ids[i]);
  }
  text.push_back(']');
  return text;
}

/// Executes a statement that returns no row, then resets it for reuse (bindings survive).
/// Resets on failure too, so the statement is reusable after an exception.
inline void execOnce(SQLite::Statement& s) {
  try {
    s.exec();
  } catch (...) {
    s.tryReset();
    throw;
  }
  s.tryReset();
}

inline std::optional<std::int64_t> optInt(const SQLite::Statement& s, int column) {
  SQLite::Column c = s.getColumn(column);
  if (c.isNull()) {
    return std::nullopt;
  }
  return c.getInt64();
}

/// Runs a query for at most one integer and resets it for reuse: the first row's first
/// column, or nullopt when there is no row or it is NULL.
inline std::optional<std::int64_t> queryOptInt(SQLite::Statement& s) {
  std::optional<std::int64_t> value;
  try {
    if (s.executeStep()) {
      value = optInt(s, 0);
    }
  } catch (...) {
    s.tryReset();
    throw;
  }
  s.tryReset();
  return value;
}

inline std::optional<std::string> optText(const SQLite::Statement& s, int column) {
  SQLite::Column c = s.getColumn(column);
  if (c.isNull()) {
    return std::nullopt;
  }
  return c.getString();
}

inline std::optional<bool> optBool(const SQLite::Statement& s, int column) {
  SQLite::Column c = s.getColumn(column);
  if (c.isNull()) {
    return std::nullopt;
  }
  return c.getInt64() != 0;
}

/// The body (or blob) in column `body` as it was written, decompressed per column `codec`. Throws
/// std::runtime_error "[store.body.*]" (body_compression.hpp).
inline std::string storedBody(const SQLite::Statement& q, int body, int codec) {
  const SQLite::Column column = q.getColumn(body);
  const std::string_view stored(static_cast<const char*>(column.getBlob()),
                                static_cast<std::size_t>(column.getBytes()));
  return unpackBody(stored, optText(q, codec));
}

}  // namespace agentvcr::store::detail
