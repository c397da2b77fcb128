#pragma once

// Small helpers over SQLiteCpp 3.2.1, private to the store (docs/style.md §4).

#include <chrono>
#include <concepts>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "body_compression.hpp"

namespace agentvcr::store::detail {

/// Which VFS a connection reads and writes through.
enum class Vfs {
  Default,
  /// yielding_vfs.hpp: the recorder's connections, whose long writes share the cores with the
  /// relay.
  Yielding,
};

/// Opens a connection with a busy timeout. Throws std::runtime_error "[store.open] ...".
SQLite::Database openDatabase(const std::string& path, int flags,
                              std::chrono::milliseconds busy_timeout, Vfs vfs = Vfs::Default);

/// Lets a read-only connection to `path` leave no `-wal` and `-shm` beside it. A read-only
/// connection to a WAL archive makes both files when none are there, and only a read-write
/// connection removes them, as it closes as the last connection: construct this before the
/// read-only connection and destroy it after (a member declared before it). Its destructor
/// then opens and closes a read-write connection, which removes them unless another connection
/// still has the archive open; it does so only when the log is empty, so the file's bytes never
/// change: the pages a killed recorder left in its log stay where they are.
class LeavesNoWal {
 public:
  explicit LeavesNoWal(std::string path) : path_(std::move(path)) {}

  ~LeavesNoWal();
  LeavesNoWal(const LeavesNoWal&) = delete;
  LeavesNoWal& operator=(const LeavesNoWal&) = delete;

 private:
  std::string path_;
};

/// For an `error` that says the file at `path` is damaged (SQLITE_CORRUPT, SQLITE_NOTADB): how
/// to get its rows back, in parentheses after a space; else empty.
std::string damageHint(const std::string& path, const SQLite::Exception& error);

/// "[store.read] PATH: what SQLite said" and damageHint(): what every reader throws when a read
/// fails, so that a person knows which file it was and what to do.
std::string readError(const std::string& path, const SQLite::Exception& error);

/// Positions looked up by name once each and remembered by the name's address, so pass string
/// literals (another pointer with the same text is looked up again, which costs time, not
/// correctness). Callers ask for names in the same order on every row, so the search starts
/// after the last name found: a row costs one pointer compare per name.
class NamePositions {
 public:
  template <class Lookup>
  int find(const char* name, Lookup&& lookup) {
    for (std::size_t tried = 0; tried < known_.size(); ++tried) {
      const std::size_t at = (next_ + tried) % known_.size();
      if (known_[at].first == name) {
        next_ = at + 1;
        return known_[at].second;
      }
    }
    const int position = lookup(name);
    known_.emplace_back(name, position);
    next_ = known_.size();
    return position;
  }

 private:
  std::vector<std::pair<const char*, int>> known_;
  std::size_t next_ = 0;
};

/// The position of named parameter `name` (":name") in `s`. Throws std::logic_error
/// "[store.sql] no parameter ..." when the statement has none: a misspelt name fails at its first
/// use instead of leaving the parameter NULL. SQLite finds it by comparing `name` with each
/// parameter name in turn: statements bound on every row use ReusedStatement instead.
inline int parameterIndex(const SQLite::Statement& s, const char* name) {
  const int index = s.getIndex(name);
  if (index == 0) {
    throw std::logic_error(std::string("[store.sql] no parameter ") + name +
                           " in: " + s.getQuery());
  }
  return index;
}

/// A statement prepared once and executed for many rows, its named parameters each resolved
/// once (NamePositions). On the capture insert's 30 parameters, resolving them on every row
/// cost a third of the capture rate.
class ReusedStatement : public SQLite::Statement {
 public:
  ReusedStatement(SQLite::Database& db, const char* sql) : SQLite::Statement(db, sql) {}

  int parameter(const char* name) {
    const SQLite::Statement& self = *this;
    return parameters_.find(name, [&self](const char* n) { return parameterIndex(self, n); });
  }

 private:
  NamePositions parameters_;
};

inline int parameterIndex(ReusedStatement& s, const char* name) {
  return s.parameter(name);
}

/// A statement prepared once and used again, for reads made on every request or body
/// (preparing costs as much as the read). The lease resets it when the use ends, so no read
/// transaction outlives the call and the next use sees what was committed since. Every use
/// binds all its parameters.
class StatementLease {
 public:
  /// Prepares `sql` into `kept` on the first lease. Throws SQLite::Exception.
  StatementLease(std::optional<ReusedStatement>& kept, SQLite::Database& db, const char* sql)
      : statement_(kept ? *kept : kept.emplace(db, sql)) {}

  ~StatementLease() { statement_.tryReset(); }

  StatementLease(const StatementLease&) = delete;
  StatementLease& operator=(const StatementLease&) = delete;

  ReusedStatement& operator*() const { return statement_; }

 private:
  ReusedStatement& statement_;
};

/// Hashes are unsigned 64-bit; SQLite integers are signed: stored as the same bits.
inline std::int64_t toDb(std::uint64_t hash) {
  return static_cast<std::int64_t>(hash);
}

inline std::uint64_t fromDb(std::int64_t value) {
  return static_cast<std::uint64_t>(value);
}

/// The position of result column `name` in `s`, for reading a column by what it is rather than
/// where it stands. Throws std::logic_error "[store.sql] ..." when no column or more than one
/// has that name (alias the column in the SELECT). A linear search of the names: resolve once
/// per prepared statement where a statement reads many rows.
inline int columnIndex(const SQLite::Statement& s, std::string_view name) {
  int found = -1;
  for (int i = 0; i < s.getColumnCount(); ++i) {
    if (name == s.getColumnName(i)) {
      if (found >= 0) {
        throw std::logic_error("[store.sql] two columns named " + std::string(name) +
                               " in: " + s.getQuery());
      }
      found = i;
    }
  }
  if (found < 0) {
    throw std::logic_error("[store.sql] no column " + std::string(name) + " in: " + s.getQuery());
  }
  return found;
}

/// Column `name` of the current row (columnIndex()).
inline SQLite::Column column(const SQLite::Statement& s, std::string_view name) {
  return s.getColumn(columnIndex(s, name));
}

// Binders by parameter name (":name", parameterIndex()): no statement depends on the order of
// its parameters. Templates so that a ReusedStatement binds through its remembered positions.

template <class S>
concept Bindable = std::derived_from<S, SQLite::Statement>;

template <Bindable S>
void bindInt(S& s, const char* name, std::int64_t value) {
  s.bind(parameterIndex(s, name), static_cast<std::int64_t>(value));
}

template <Bindable S>
void bindOptInt(S& s, const char* name, const std::optional<std::int64_t>& v) {
  const int index = parameterIndex(s, name);
  if (v) {
    s.bind(index, static_cast<std::int64_t>(*v));
  } else {
    s.bind(index);
  }
}

template <Bindable S>
void bindOptDouble(S& s, const char* name, const std::optional<double>& v) {
  const int index = parameterIndex(s, name);
  if (v) {
    s.bind(index, *v);
  } else {
    s.bind(index);
  }
}

template <Bindable S>
void bindOptBool(S& s, const char* name, const std::optional<bool>& v) {
  const int index = parameterIndex(s, name);
  if (v) {
    s.bind(index, static_cast<std::int32_t>(*v ? 1 : 0));
  } else {
    s.bind(index);
  }
}

/// Binds text without copying: `value` must outlive the next execution.
template <Bindable S>
void bindText(S& s, const char* name, const std::string& value) {
  s.bindNoCopy(parameterIndex(s, name), value);
}

template <Bindable S>
void bindOptText(S& s, const char* name, const std::optional<std::string>& v) {
  const int index = parameterIndex(s, name);
  if (v) {
    s.bindNoCopy(index, *v);
  } else {
    s.bind(index);
  }
}

/// Binds bytes as a BLOB without copying (a zero-length BLOB for an empty string, not NULL).
template <Bindable S>
void bindBlob(S& s, const char* name, const std::string& bytes) {
  s.bindNoCopy(parameterIndex(s, name), static_cast<const void*>(bytes.data()),
               static_cast<int>(bytes.size()));
}

/// The SQL condition on `exchanges` (named `table` in the query) that keeps the exchanges replay
/// may serve as recorded answers: none that chaos faulted, except for an injected latency, whose
/// real answer came whole (docs/record.md, "Chaos").
inline std::string servableExchange(std::string_view table) {
  const std::string fault = std::string(table) + ".fault";
  return "(" + fault + " IS NULL OR " + fault + " = 'latency')";
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

/// A statement's result columns read by name, each name looked up once (columnIndex(),
/// NamePositions), for statements that read many rows.
class NamedColumns {
 public:
  explicit NamedColumns(const SQLite::Statement& s) : statement_(s) {}

  const SQLite::Statement& statement() const { return statement_; }

  int index(const char* name) const {
    return known_.find(name, [this](const char* n) { return columnIndex(statement_, n); });
  }

  SQLite::Column get(const char* name) const { return statement_.getColumn(index(name)); }

  std::optional<std::int64_t> optInt(const char* name) const {
    return detail::optInt(statement_, index(name));
  }

  std::optional<std::string> optText(const char* name) const {
    return detail::optText(statement_, index(name));
  }

  std::optional<bool> optBool(const char* name) const {
    return detail::optBool(statement_, index(name));
  }

 private:
  const SQLite::Statement& statement_;
  mutable NamePositions known_;
};

/// The body (or blob) in column `body` as it was written, decompressed per column `codec`. Throws
/// std::runtime_error "[store.body.*]" (body_compression.hpp).
inline std::string storedBody(const SQLite::Statement& q, int body, int codec) {
  const SQLite::Column column = q.getColumn(body);
  const std::string_view stored(static_cast<const char*>(column.getBlob()),
                                static_cast<std::size_t>(column.getBytes()));
  return unpackBody(stored, optText(q, codec));
}

}  // namespace agentvcr::store::detail
