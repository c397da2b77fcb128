#include "agentvcr/store/export.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "body_codec.hpp"
#include "export_decoded.hpp"

namespace agentvcr::store {
namespace {

using detail::Ordered;

Ordered optional(const std::optional<std::int64_t>& value) {
  return value ? Ordered(*value) : Ordered(nullptr);
}

Ordered optionalText(const std::optional<std::string>& value) {
  return value ? Ordered(*value) : Ordered(nullptr);
}

Ordered exchangeLine(const ExchangeRow& ex) {
  Ordered line = Ordered::object();
  line["id"] = ex.id;
  line["session_id"] = ex.session_id;
  line["seq"] = ex.seq;
  line["method"] = ex.method;
  line["target"] = ex.target;
  line["http_version"] = ex.http_version;
  line["status"] = ex.status;
  line["outcome"] = ex.outcome;
  line["error"] = optionalText(ex.error);
  line["fault"] = optionalText(ex.fault);
  line["card_rewrite"] = optionalText(ex.card_rewrite);
  line["started_ns"] = ex.started_ns;
  line["request_ended_ns"] = optional(ex.request_ended_ns);
  line["upstream_sent_ns"] = optional(ex.upstream_sent_ns);
  line["upstream_first_byte_ns"] = optional(ex.upstream_first_byte_ns);
  line["upstream_last_byte_ns"] = optional(ex.upstream_last_byte_ns);
  line["ended_ns"] = optional(ex.ended_ns);
  line["protocol"] = ex.protocol;
  line["route"] = ex.route;
  line["request_headers"] = detail::headersToJsonArray(ex.request_headers);
  line["request_body"] = detail::bodyToJson(ex.request_body);
  line["response_headers"] = detail::headersToJsonArray(ex.response_headers);
  line["response_body"] = detail::bodyToJson(ex.response_body);
  return line;
}

Ordered sessionLine(const SessionRow& session) {
  Ordered row = Ordered::object();
  row["id"] = session.id;
  row["uuid"] = session.uuid;
  row["node"] = session.node;
  row["recorder_version"] = optionalText(session.recorder_version);
  row["derived_from"] = optionalText(session.derived_from);
  row["name"] = session.name;
  row["mode"] = session.mode;
  row["upstream"] = session.upstream;
  row["listen"] = session.listen;
  row["started_ns"] = session.started_ns;
  row["ended_ns"] = optional(session.ended_ns);
  row["agent_health"] =
      session.agent_health ? detail::bodyToJson(*session.agent_health) : Ordered(nullptr);
  row["agent_info"] =
      session.agent_info ? detail::bodyToJson(*session.agent_info) : Ordered(nullptr);
  Ordered line = Ordered::object();
  line["session"] = std::move(row);
  return line;
}

void writeLine(const Ordered& line, std::ostream& out, std::size_t number, std::int64_t id) {
  // Bodies are checked before; a method, target or error line from the network that is not
  // UTF-8 gets U+FFFD for its bad bytes.
  out << line.dump(-1, ' ', false, Ordered::error_handler_t::replace) << '\n';
  if (!out) {
    throw std::runtime_error("[store.export] writing line " + std::to_string(number) +
                             " (exchange " + std::to_string(id) + ") failed");
  }
}

}  // namespace

std::size_t exportJsonl(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                        std::ostream& out) {
  std::size_t lines = 0;
  for (std::int64_t id : exchange_ids) {
    std::optional<ExchangeRow> ex = reader.exchange(id);
    if (!ex) {
      continue;
    }
    writeLine(exchangeLine(*ex), out, lines + 1, id);
    ++lines;
  }
  return lines;
}

std::vector<std::int64_t> selectExchanges(const ArchiveReader& reader,
                                          const ExportSelection& selection) {
  constexpr std::size_t kPage = 512;
  std::vector<std::int64_t> sessions = selection.sessions;
  if (selection.sessions.empty() && selection.conversations.empty()) {
    for (const SessionRow& session : reader.sessions()) {
      sessions.push_back(session.id);
    }
  }
  // (session, seq) orders the union as it was recorded.
  std::set<std::int64_t> ids;
  std::vector<std::pair<std::pair<std::int64_t, std::int64_t>, std::int64_t>> order;
  for (std::int64_t session : sessions) {
    for (std::int64_t offset = 0;; offset += static_cast<std::int64_t>(kPage)) {
      std::vector<ExchangeRow> page = reader.exchanges(session, offset, kPage);
      for (const ExchangeRow& row : page) {
        if (ids.insert(row.id).second) {
          order.push_back({{row.session_id, row.seq}, row.id});
        }
      }
      if (page.size() < kPage) {
        break;
      }
    }
  }
  for (std::int64_t conversation : selection.conversations) {
    for (std::int64_t id : reader.exchangeIdsOfConversation(conversation)) {
      if (!ids.insert(id).second) {
        continue;
      }
      if (std::optional<ExchangeRow> row = reader.exchange(id)) {
        order.push_back({{row->session_id, row->seq}, row->id});
      }
    }
  }
  std::sort(order.begin(), order.end());
  std::vector<std::int64_t> result;
  result.reserve(order.size());
  for (const auto& entry : order) {
    result.push_back(entry.second);
  }
  return result;
}

std::size_t exportArchiveJsonl(const ArchiveReader& reader,
                               const std::vector<std::int64_t>& exchange_ids, std::ostream& out) {
  std::size_t lines = 0;
  std::set<std::int64_t> sessions_written;
  for (std::int64_t id : exchange_ids) {
    std::optional<ExchangeRow> ex = reader.exchange(id);
    if (!ex) {
      continue;
    }
    if (sessions_written.insert(ex->session_id).second) {
      if (std::optional<SessionRow> session = reader.session(ex->session_id)) {
        writeLine(sessionLine(*session), out, lines + 1, id);
      }
    }
    Ordered line = exchangeLine(*ex);
    line["client_address"] = ex->client_address;
    line["response_from_upstream"] = ex->response_from_upstream;
    line["stream_events"] = detail::streamEventsJson(reader, ex->id);
    line["steps"] = detail::magmaStepsJson(reader, ex->id);
    line["a2a_calls"] = detail::a2aCallsJson(reader, ex->id);
    writeLine(line, out, lines + 1, id);
    ++lines;
  }
  return lines;
}

}  // namespace agentvcr::store
