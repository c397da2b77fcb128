#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/transfer.hpp"
#include "body_codec.hpp"
#include "session_copy.hpp"

namespace agentvcr::store {
namespace {

using nlohmann::json;

std::optional<std::int64_t> optionalInt(const json& value) {
  return value.is_null() ? std::nullopt : std::optional<std::int64_t>(value.get<std::int64_t>());
}

std::optional<std::string> optionalBody(const json& object, const char* key) {
  if (!object.contains(key) || object[key].is_null()) {
    return std::nullopt;
  }
  return detail::bodyFromJson(object[key]);
}

std::optional<std::string> optionalText(const json& object, const char* key) {
  if (!object.contains(key) || object[key].is_null()) {
    return std::nullopt;
  }
  return object[key].get<std::string>();
}

/// The session an exported line describes. Exports older than schema 11 carry no identity:
/// such a session is imported as one never seen, with node `unknown`.
SessionRow sessionFromLine(const json& session) {
  SessionRow row;
  row.uuid = canonicalUuid(session.value("uuid", std::string()));
  row.node = session.value("node", std::string("unknown"));
  row.recorder_version = optionalText(session, "recorder_version");
  row.derived_from = optionalText(session, "derived_from");
  row.name = session.at("name").get<std::string>();
  row.mode = session.at("mode").get<std::string>();
  row.upstream = session.at("upstream").get<std::string>();
  row.listen = session.at("listen").get<std::string>();
  row.started_ns = session.at("started_ns").get<std::int64_t>();
  row.ended_ns = optionalInt(session.at("ended_ns"));
  return row;
}

std::optional<std::int64_t> optionalTime(const json& line, const char* key) {
  return line.contains(key) ? optionalInt(line[key]) : std::nullopt;
}

ExchangeRow exchangeFromLine(const json& line) {
  ExchangeRow row;
  row.client_address = line.value("client_address", std::string());
  row.method = line.at("method").get<std::string>();
  row.target = line.at("target").get<std::string>();
  row.http_version = line.at("http_version").get<unsigned>();
  row.status = line.at("status").get<int>();
  row.outcome = line.at("outcome").get<std::string>();
  row.error =
      line.at("error").is_null() ? std::nullopt : std::optional(line["error"].get<std::string>());
  row.fault = optionalText(line, "fault");
  row.card_rewrite = optionalText(line, "card_rewrite");
  row.started_ns = line.at("started_ns").get<std::int64_t>();
  row.request_ended_ns = optionalTime(line, "request_ended_ns");
  row.upstream_sent_ns = optionalTime(line, "upstream_sent_ns");
  row.upstream_first_byte_ns = optionalInt(line.at("upstream_first_byte_ns"));
  row.upstream_last_byte_ns = optionalTime(line, "upstream_last_byte_ns");
  row.ended_ns = optionalInt(line.at("ended_ns"));
  row.request_headers = detail::headersFromJsonArray(line.at("request_headers"));
  row.request_body = detail::bodyFromJson(line.at("request_body"));
  row.response_headers = detail::headersFromJsonArray(line.at("response_headers"));
  row.response_body = detail::bodyFromJson(line.at("response_body"));
  row.response_from_upstream = line.value("response_from_upstream", true);
  return row;
}

std::vector<std::int64_t> eventTimes(const json& line) {
  std::vector<std::int64_t> times;
  if (line.contains("stream_events")) {
    for (const json& event : line["stream_events"]) {
      times.push_back(event.at("at_ns").get<std::int64_t>());
    }
  }
  return times;
}

/// The recorder of the session being imported; a new one starts at each exported session.
class Importer {
 public:
  Importer(const std::string& db_path, const ImportOptions& options)
      : db_path_(db_path), options_(options), held_(db_path, options.recorder.busy_timeout) {}

  void startSession(std::int64_t exported_id, const SessionRow& session,
                    std::optional<std::string> health, std::optional<std::string> agent_info) {
    finish();
    exported_id_ = exported_id;
    skipping_ = !options_.as_new && held_.holds(session.uuid);
    if (skipping_) {
      result_.already_held.push_back({session.uuid, session.name});
      return;
    }
    if (!options_.as_new) {
      held_.add(session.uuid);
    }
    SessionInfo info = detail::sessionInfoOf(session, options_.as_new);
    if (!options_.session_name.empty()) {
      info.name = options_.session_name;
    }
    recorder_ = std::make_unique<Recorder>(db_path_, info, options_.recorder);
    result_.session_ids.push_back(recorder_->sessionId());
    if (health || agent_info) {
      recorder_->recordAgentIdentity(health.value_or(""), agent_info.value_or(""));
    }
  }

  void add(std::int64_t exported_session, const ExchangeRow& row,
           const std::vector<std::int64_t>& event_times) {
    const bool same_session = (recorder_ || skipping_) && exported_session == exported_id_;
    if (same_session && skipping_) {
      return;  // the archive holds this session already
    }
    if (!same_session) {
      SessionRow session;  // no uuid: a session never seen before
      session.name = "import-" + std::to_string(exported_session);
      session.mode = "import";
      session.node = "unknown";
      startSession(exported_session, session, std::nullopt, std::nullopt);
    }
    protocol::Exchange exchange = detail::exchangeFromRow(row, event_times);
    detail::submitWaiting(*recorder_, exchange);
    ++result_.exchanges;
  }

  CopyResult finish() {
    if (recorder_) {
      recorder_->close();
      recorder_.reset();
    }
    return result_;
  }

 private:
  std::string db_path_;
  ImportOptions options_;
  detail::HeldSessions held_;
  std::unique_ptr<Recorder> recorder_;
  std::int64_t exported_id_ = 0;
  bool skipping_ = false;  ///< the current exported session is one the archive held
  CopyResult result_;
};

}  // namespace

CopyResult importJsonl(std::istream& in, const std::string& db_path, const ImportOptions& options) {
  Importer importer(db_path, options);
  std::string text;
  std::size_t number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (text.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    try {
      const json line = json::parse(text);
      if (line.contains("session")) {
        const json& session = line["session"];
        importer.startSession(session.at("id").get<std::int64_t>(), sessionFromLine(session),
                              optionalBody(session, "agent_health"),
                              optionalBody(session, "agent_info"));
      } else {
        importer.add(line.at("session_id").get<std::int64_t>(), exchangeFromLine(line),
                     eventTimes(line));
      }
    } catch (const std::exception& e) {
      importer.finish();
      throw std::runtime_error("[store.import] line " + std::to_string(number) + ": " + e.what());
    }
  }
  return importer.finish();
}

}  // namespace agentvcr::store
