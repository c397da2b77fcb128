#include "identity_replies.hpp"

#include <optional>

#include "agentvcr/protocol/magma.hpp"
#include "replies.hpp"

namespace agentvcr::replay::detail {
namespace {

namespace magma = protocol::magma;

template <class Parse>
bool validates(const std::string& body, Parse parse) {
  auto json = protocol::parseJson(body);
  return json.value && parse(*json.value).ok();
}

template <class Parse>
std::optional<protocol::HttpReply> latestRecorded(const store::ArchiveReader& reader,
                                                  const store::ReplaySelection& selection,
                                                  const std::string& route, Parse parse) {
  auto exchanges = reader.exchangesOfRoute(selection, route);
  for (auto it = exchanges.rbegin(); it != exchanges.rend(); ++it) {
    if (it->status >= 200 && it->status < 300 && validates(it->response_body, parse)) {
      return recordedReply(
          store::RecordedResponse{it->status, it->response_headers, it->response_body});
    }
  }
  return std::nullopt;
}

template <class Field, class Parse>
std::optional<protocol::HttpReply> latestProbed(const std::vector<store::SessionRow>& sessions,
                                                Field field, Parse parse) {
  for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) {
    const std::optional<std::string>& body = (*it).*field;
    if (body && validates(*body, parse)) {
      return jsonReply(200, *body);
    }
  }
  return std::nullopt;
}

protocol::HttpReply standInInfo(const std::vector<store::SessionRow>& sessions,
                                bool coaching_recorded) {
  magma::AgentInfo info;
  info.agent_id = "agentvcr-replay";
  info.agent_version = "replay";
  for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) {
    if (it->agent_id && it->agent_version) {
      info.agent_id = *it->agent_id;
      info.agent_version = *it->agent_version;
      break;
    }
  }
  info.capabilities["inference"] = true;
  if (coaching_recorded) {
    info.capabilities["coaching"] = true;
  }
  return jsonReply(200, magma::serializeInfo(info));
}

}  // namespace

IdentityReplies::IdentityReplies(const store::ArchiveReader& reader,
                                 const store::ReplaySelection& selection,
                                 const std::vector<store::SessionRow>& sessions,
                                 bool coaching_recorded) {
  auto health = latestRecorded(reader, selection, "health", magma::parseAgentHealth);
  if (!health) {
    health = latestProbed(sessions, &store::SessionRow::agent_health, magma::parseAgentHealth);
  }
  health_ = health ? std::move(*health) : jsonReply(200, magma::serializeHealth({}));

  auto info = latestRecorded(reader, selection, "info", magma::parseAgentInfo);
  if (!info) {
    info = latestProbed(sessions, &store::SessionRow::agent_info, magma::parseAgentInfo);
  }
  info_ = info ? std::move(*info) : standInInfo(sessions, coaching_recorded);
}

}  // namespace agentvcr::replay::detail
