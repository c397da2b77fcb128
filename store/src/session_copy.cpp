#include "session_copy.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "agentvcr/protocol/sse.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/schema.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

protocol::ExchangeOutcome knownOutcome(const std::string& name) {
  if (std::optional<protocol::ExchangeOutcome> outcome = protocol::outcomeFromName(name)) {
    return *outcome;
  }
  throw std::runtime_error("unknown outcome '" + name + "'");
}

}  // namespace

protocol::Exchange exchangeFromRow(const ExchangeRow& row,
                                   const std::vector<std::int64_t>& event_at_ns) {
  protocol::Exchange ex;
  ex.client_address = row.client_address;
  ex.method = row.method;
  ex.target = row.target;
  ex.http_version = row.http_version;
  ex.request_headers = row.request_headers;
  ex.request_body = row.request_body;
  ex.status = row.status;
  ex.response_headers = row.response_headers;
  ex.response_body = row.response_body;
  ex.response_from_upstream = row.response_from_upstream;
  ex.started_ns = row.started_ns;
  ex.request_ended_ns = row.request_ended_ns.value_or(0);
  ex.upstream_sent_ns = row.upstream_sent_ns.value_or(0);
  ex.upstream_first_byte_ns = row.upstream_first_byte_ns.value_or(0);
  ex.upstream_last_byte_ns = row.upstream_last_byte_ns.value_or(0);
  ex.ended_ns = row.ended_ns.value_or(0);
  ex.outcome = knownOutcome(row.outcome);
  ex.error = row.error.value_or("");
  ex.fault = row.fault.value_or("");
  ex.card_rewrite = row.card_rewrite.value_or("");
  if (!event_at_ns.empty()) {
    const std::vector<protocol::SseEvent> events = protocol::parseEventStream(ex.response_body);
    const std::size_t n = std::min(events.size(), event_at_ns.size());
    for (std::size_t i = 0; i < n; ++i) {
      ex.response_arrivals.push_back({events[i].end, event_at_ns[i]});
    }
  }
  return ex;
}

void submitWaiting(Recorder& recorder, protocol::Exchange& exchange) {
  while (!recorder.trySubmit(exchange)) {
    const RecorderStats stats = recorder.stats();
    if (stats.refused_closed > 0) {
      throw std::runtime_error("[store.copy] the recorder is closed");
    }
    recorder.flush();  // the queue is full: let the writer drain it
  }
}

SessionInfo sessionInfoOf(const SessionRow& row, bool as_new) {
  SessionInfo info;
  info.name = row.name;
  info.mode = row.mode;
  info.upstream = row.upstream;
  info.listen = row.listen;
  info.started_ns = row.started_ns;
  info.ended_ns = row.ended_ns;
  info.node = row.node;
  info.recorder_version = row.recorder_version;
  if (as_new) {
    info.derived_from = row.uuid;  // and `uuid` stays empty: the recorder mints one
  } else {
    info.uuid = row.uuid;
    info.derived_from = row.derived_from;
  }
  return info;
}

HeldSessions::HeldSessions(const std::string& db_path, std::chrono::milliseconds busy_timeout) {
  if (!std::filesystem::exists(db_path)) {
    return;
  }
  migrateArchive(db_path, busy_timeout);  // an older archive's sessions get their uuids
  SQLite::Database db = openDatabase(db_path, SQLite::OPEN_READONLY, busy_timeout);
  SQLite::Statement q(db, "SELECT uuid FROM sessions");
  while (q.executeStep()) {
    uuids_.insert(canonicalUuid(column(q, "uuid").getString()));
  }
}

bool HeldSessions::holds(const std::string& uuid) const {
  return !uuid.empty() && uuids_.count(canonicalUuid(uuid)) != 0;
}

void HeldSessions::add(const std::string& uuid) {
  uuids_.insert(canonicalUuid(uuid));
}

}  // namespace agentvcr::store::detail
