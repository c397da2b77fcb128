#include "agentvcr/fleet/pg_connection.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include <libpq-fe.h>

namespace agentvcr::fleet {
namespace {

std::string lastError(pg_conn* conn) {
  std::string message = conn != nullptr ? PQerrorMessage(conn) : "out of memory";
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  return message;
}

}  // namespace

PgFailure classify(const PgError& error) {
  const std::string& state = error.sqlstate();
  if (error.connectionLost() || state.empty() || state.starts_with("08") ||
      state.starts_with("53") || state.starts_with("40") || state.starts_with("58") ||
      state == "57P01" || state == "57P02" || state == "57P03" || state == "57014" ||
      state == "55P03" || state == "55006") {
    return PgFailure::Transient;
  }
  if (state.starts_with("22") || state.starts_with("23")) {
    return PgFailure::Row;
  }
  // Class 42 is the statement's: a value of the wrong type for agentvcr's columns is the row's
  // fault, but a missing privilege, table, column or function is the setup's.
  if (state.starts_with("42") && state != "42501" && state != "42P01" && state != "42703" &&
      state != "42883" && state != "42704" && state != "42P02") {
    return PgFailure::Row;
  }
  return PgFailure::Fatal;
}

PgResult::~PgResult() {
  PQclear(result_);
}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    PQclear(result_);
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

int PgResult::rows() const {
  return PQntuples(result_);
}

int PgResult::columns() const {
  return PQnfields(result_);
}

bool PgResult::isNull(int row, int column) const {
  return PQgetisnull(result_, row, column) != 0;
}

std::string_view PgResult::text(int row, int column) const {
  return {PQgetvalue(result_, row, column),
          static_cast<std::size_t>(PQgetlength(result_, row, column))};
}

std::optional<std::string> PgResult::optionalText(int row, int column) const {
  if (isNull(row, column)) {
    return std::nullopt;
  }
  return std::string(text(row, column));
}

std::int64_t PgResult::integer(int row, int column) const {
  return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10);
}

std::optional<std::int64_t> PgResult::optionalInteger(int row, int column) const {
  if (isNull(row, column)) {
    return std::nullopt;
  }
  return integer(row, column);
}

int PgResult::columnNumber(const char* name) const {
  const int number = PQfnumber(result_, name);
  if (number < 0) {
    throw std::logic_error(std::string("[fleet.sql] no column ") + name);
  }
  return number;
}

PgConnection::PgConnection(const std::string& uri, int connect_timeout_s)
    : uri_(uri), redacted_(fleet::redactedUri(uri)) {
  // Later keywords win: the URI's own connect_timeout or application_name override ours.
  const std::string timeout = std::to_string(connect_timeout_s);
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "agentvcr", uri.c_str(), nullptr};
  conn_ = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = scrubbed(lastError(conn_), uri_);
    PQfinish(conn_);
    conn_ = nullptr;
    throw PgError("[fleet.connect] cannot connect to " + redacted_ + ": " + message, "", true);
  }
  cancel_ = PQgetCancel(conn_);
  try {
    // Numbers and times as agentvcr writes them, whatever the role's defaults.
    exec("SET client_encoding = 'UTF8'; SET DateStyle = 'ISO'; SET bytea_output = 'hex'");
  } catch (...) {
    // The destructor does not run for an object whose constructor throws.
    PQfreeCancel(cancel_);
    PQfinish(conn_);
    throw;
  }
}

PgConnection::~PgConnection() {
  PQfreeCancel(cancel_);
  PQfinish(conn_);
}

void PgConnection::fail(std::string_view what, pg_result* result) {
  std::string sqlstate;
  if (result != nullptr) {
    if (const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE)) {
      sqlstate = state;
    }
  }
  const std::string message = result != nullptr && PQresultErrorMessage(result)[0] != '\0'
                                  ? PQresultErrorMessage(result)
                                  : lastError(conn_);
  PQclear(result);
  std::string trimmed = scrubbed(message, uri_);
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) {
    trimmed.pop_back();
  }
  const bool lost = PQstatus(conn_) != CONNECTION_OK;
  throw PgError("[fleet.sql] " + std::string(what) + " on " + redacted_ + ": " + trimmed, sqlstate,
                lost, "[fleet.sql] " + std::string(what) + ": " + trimmed);
}

PgResult PgConnection::check(pg_result* result, std::string_view what) {
  const ExecStatusType status = result != nullptr ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_COPY_IN) {
    fail(what, result);
  }
  return PgResult(result);
}

PgResult PgConnection::exec(std::string_view sql) {
  const std::string text(sql);
  return check(PQexec(conn_, text.c_str()), "query failed");
}

PgResult PgConnection::exec(const std::string& sql,
                            const std::vector<std::optional<std::string>>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) {
    values.push_back(p ? p->c_str() : nullptr);
  }
  return check(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0),
               "query failed");
}

void PgConnection::copyIn(const std::string& copy_from_stdin,
                          const std::function<bool(std::string&)>& next) {
  check(PQexec(conn_, copy_from_stdin.c_str()), "copy failed");
  std::string piece;
  bool more = true;
  while (more) {
    piece.clear();
    more = next(piece);
    if (!piece.empty() && PQputCopyData(conn_, piece.data(), static_cast<int>(piece.size())) != 1) {
      fail("copy failed", nullptr);
    }
  }
  if (PQputCopyEnd(conn_, nullptr) != 1) {
    fail("copy failed", nullptr);
  }
  pg_result* result = PQgetResult(conn_);
  check(result, "copy failed");
  while ((result = PQgetResult(conn_)) != nullptr) {
    PQclear(result);
  }
}

void PgConnection::copyIn(const std::string& copy_from_stdin, std::string_view data) {
  // Sent in pieces: libpq buffers what it is given whole before it writes.
  constexpr std::size_t kPiece = 1 << 20;
  std::size_t at = 0;
  copyIn(copy_from_stdin, [&](std::string& piece) {
    const std::size_t n = std::min(kPiece, data.size() - at);
    piece.assign(data.substr(at, n));
    at += n;
    return at < data.size();
  });
}

void PgConnection::rollbackQuietly() noexcept {
  try {
    exec("ROLLBACK");
  } catch (const std::exception&) {
    // the connection is gone, and the transaction with it
  }
}

void PgConnection::cancel() {
  if (cancel_ != nullptr) {
    char error[256];
    PQcancel(cancel_, error, sizeof error);
  }
}

}  // namespace agentvcr::fleet
