#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

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

SessionInfo sessionFromLine(const json& session) {
  SessionInfo info;
  info.name = session.at("name").get<std::string>();
  info.mode = session.at("mode").get<std::string>();
  info.upstream = session.at("upstream").get<std::string>();
  info.listen = session.at("listen").get<std::string>();
  info.started_ns = session.at("started_ns").get<std::int64_t>();
  info.ended_ns = optionalInt(session.at("ended_ns"));
  return info;
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
  row.started_ns = line.at("started_ns").get<std::int64_t>();
  row.upstream_first_byte_ns = optionalInt(line.at("upstream_first_byte_ns"));
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
      : db_path_(db_path), options_(options) {}

  void startSession(std::int64_t exported_id, SessionInfo info, std::optional<std::string> health,
                    std::optional<std::string> agent_info) {
    finish();
    if (!options_.session_name.empty()) {
      info.name = options_.session_name;
    }
    recorder_ = std::make_unique<Recorder>(db_path_, info, options_.recorder);
    exported_id_ = exported_id;
    result_.session_ids.push_back(recorder_->sessionId());
    if (health || agent_info) {
      recorder_->recordAgentIdentity(health.value_or(""), agent_info.value_or(""));
    }
  }

  void add(std::int64_t exported_session, const ExchangeRow& row,
           const std::vector<std::int64_t>& event_times) {
    if (!recorder_ || exported_session != exported_id_) {
      SessionInfo info;
      info.name = "import-" + std::to_string(exported_session);
      info.mode = "import";
      startSession(exported_session, info, std::nullopt, std::nullopt);
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
  std::unique_ptr<Recorder> recorder_;
  std::int64_t exported_id_ = 0;
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
