#include "agentvcr/fleet/pg_connection.hpp"

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

/// Replaces the value after `key` (up to the next `stop` character) by `***`, everywhere.
void maskValues(std::string& text, std::string_view key, std::string_view stops) {
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string::npos) {
    const std::size_t value = at + key.size();
    std::size_t end = value;
    if (end < text.size() && text[end] == '\'') {  // a quoted key=value string value
      end = text.find('\'', end + 1);
      end = end == std::string::npos ? text.size() : end + 1;
    } else {
      end = text.find_first_of(stops, value);
      end = end == std::string::npos ? text.size() : end;
    }
    text.replace(value, end - value, "***");
    at = value + 3;
  }
}

}  // namespace

bool isPostgresUri(std::string_view text) {
  return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

std::string redactedUri(std::string_view uri) {
  std::string text(uri);
  if (isPostgresUri(text)) {
    const std::size_t authority = text.find("://") + 3;
    const std::size_t end = text.find_first_of("/?", authority);
    const std::size_t at = text.rfind('@', end == std::string::npos ? text.size() : end);
    if (at != std::string::npos && at >= authority) {
      const std::size_t colon = text.find(':', authority);
      if (colon != std::string::npos && colon < at) {
        text.replace(colon + 1, at - colon - 1, "***");
      }
    }
    maskValues(text, "password=", "&");
  } else {
    maskValues(text, "password=", " ");
    maskValues(text, "password =", " ");
  }
  return text;
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
    : redacted_(fleet::redactedUri(uri)) {
  // Later keywords win: the URI's own connect_timeout or application_name override ours.
  const std::string timeout = std::to_string(connect_timeout_s);
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "agentvcr", uri.c_str(), nullptr};
  conn_ = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = lastError(conn_);
    PQfinish(conn_);
    conn_ = nullptr;
    throw PgError("[fleet.connect] cannot connect to " + redacted_ + ": " + message, "", true);
  }
  cancel_ = PQgetCancel(conn_);
  // Numbers and times as agentvcr writes them, whatever the role's defaults.
  exec("SET client_encoding = 'UTF8'; SET DateStyle = 'ISO'; SET bytea_output = 'hex'");
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
  std::string trimmed = message;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) {
    trimmed.pop_back();
  }
  const bool lost = PQstatus(conn_) != CONNECTION_OK;
  throw PgError("[fleet.sql] " + std::string(what) + " on " + redacted_ + ": " + trimmed, sqlstate,
                lost);
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

void PgConnection::copyIn(const std::string& copy_from_stdin, std::string_view data) {
  check(PQexec(conn_, copy_from_stdin.c_str()), "copy failed");
  // Sent in pieces: libpq buffers what it is given whole before it writes.
  constexpr std::size_t kPiece = 1 << 20;
  for (std::size_t at = 0; at < data.size(); at += kPiece) {
    const std::size_t n = std::min(kPiece, data.size() - at);
    if (PQputCopyData(conn_, data.data() + at, static_cast<int>(n)) != 1) {
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
