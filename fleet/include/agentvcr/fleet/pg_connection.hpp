#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "agentvcr/fleet/uri_secrets.hpp"

struct pg_conn;
struct pg_result;
struct pg_cancel;

/// A thin owner of libpq's connection and results: agentvcr talks to PostgreSQL through libpq
/// itself, so its connection strings, environment (PGPASSWORD, PGSERVICE ...), .pgpass and
/// sslmode all work as documented for every libpq program.
namespace agentvcr::fleet {

/// A PostgreSQL failure. `sqlstate` is the server's code (empty when the connection failed or
/// was lost, `connection_lost` then says so). Messages never hold a password: they name the
/// archive by redactedUri().
class PgError : public std::runtime_error {
 public:
  /// `reason`: the message without where it happened (no connection string), for what is
  /// written into the fleet archive itself; empty means `message` names no place.
  PgError(const std::string& message, std::string sqlstate, bool connection_lost,
          std::string reason = {})
      : std::runtime_error(message),
        sqlstate_(std::move(sqlstate)),
        connection_lost_(connection_lost),
        reason_(reason.empty() ? message : std::move(reason)) {}

  const std::string& sqlstate() const { return sqlstate_; }

  /// What went wrong, naming no server, database or user: what the quarantine keeps.
  const std::string& reason() const { return reason_; }

  bool connectionLost() const { return connection_lost_; }

 private:
  std::string sqlstate_;
  bool connection_lost_;
  std::string reason_;
};

/// What a failure means for the rows being written (docs/fleet.md, "When PostgreSQL refuses").
enum class PgFailure {
  /// The connection, the server going down or starting up, a conflict with another
  /// transaction, resources running out: wait and try again.
  Transient,
  /// The rows' data (class 22, class 23 but the unique violations the shipper expects, class 42
  /// on agentvcr's own objects): trying again fails again, so the rows are quarantined.
  Row,
  /// Anything retrying cannot fix and that is not a row's fault (privileges, a table that is
  /// not there, an internal error): stop and say why.
  Fatal,
};

/// The class of `error`, by its SQLSTATE.
PgFailure classify(const PgError& error);

/// The rows of one command's answer, as text.
class PgResult {
 public:
  explicit PgResult(pg_result* result) : result_(result) {}

  ~PgResult();

  PgResult(PgResult&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }

  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  int rows() const;
  int columns() const;
  bool isNull(int row, int column) const;
  /// The value as text; for bytea, its hex form unless the query asked for binary results.
  std::string_view text(int row, int column) const;
  std::optional<std::string> optionalText(int row, int column) const;
  std::int64_t integer(int row, int column) const;
  std::optional<std::int64_t> optionalInteger(int row, int column) const;
  int columnNumber(const char* name) const;  ///< throws std::logic_error when missing

 private:
  pg_result* result_;
};

/// One connection. Not thread-safe, except cancel(), which another thread may call to stop
/// the command in flight.
class PgConnection {
 public:
  /// Connects to `uri` (a postgresql:// URI or a key=value string) with libpq, giving up after
  /// `connect_timeout_s` unless the URI sets its own. Throws PgError "[fleet.connect] ...",
  /// scrubbed of the password (libpq quotes a URI it cannot parse whole).
  explicit PgConnection(const std::string& uri, int connect_timeout_s = 10);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs one or more statements without parameters. Throws PgError on failure.
  PgResult exec(std::string_view sql);
  /// Runs one statement with text parameters (nullopt: NULL). Throws PgError on failure.
  PgResult exec(const std::string& sql, const std::vector<std::optional<std::string>>& params);
  /// Runs `copy_from_stdin` (a COPY ... FROM STDIN) feeding it what `next` appends to its
  /// argument, piece by piece, until `next` returns false: a large COPY never sits in memory
  /// whole. Throws PgError.
  void copyIn(const std::string& copy_from_stdin, const std::function<bool(std::string&)>& next);
  /// copyIn() of `data`, whole.
  void copyIn(const std::string& copy_from_stdin, std::string_view data);

  /// How a transaction that ran to its end finishes: a dry run rolls back.
  enum class Finish { Commit, Rollback };

  /// Runs `work()` in a transaction opened by `begin` and returns what it returns. When `work`
  /// throws, rolls back (quietly: a lost connection rolled back already) and throws on.
  template <class Work>
  auto transaction(Work&& work, Finish finish = Finish::Commit, std::string_view begin = "BEGIN") {
    exec(begin);
    try {
      const char* end = finish == Finish::Commit ? "COMMIT" : "ROLLBACK";
      if constexpr (std::is_void_v<decltype(work())>) {
        work();
        exec(end);
      } else {
        auto result = work();
        exec(end);
        return result;
      }
    } catch (...) {
      rollbackQuietly();
      throw;
    }
  }

  /// Asks the server to stop the command in flight, from any thread; harmless when idle.
  void cancel();

  const std::string& redactedUri() const { return redacted_; }

 private:
  void rollbackQuietly() noexcept;
  PgResult check(pg_result* result, std::string_view what);
  [[noreturn]] void fail(std::string_view what, pg_result* result);

  pg_conn* conn_ = nullptr;
  pg_cancel* cancel_ = nullptr;  // made once: PQcancel may run on any thread
  std::string uri_;              // to scrub libpq's messages of its password; never shown
  std::string redacted_;
};

}  // namespace agentvcr::fleet
