#include "replies.hpp"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::replay::detail {
namespace {

constexpr std::array<std::string_view, 10> kTransferHeaders = {
    "content-length", "transfer-encoding", "connection", "keep-alive",  "proxy-connection", "te",
    "trailer",        "upgrade",           "date",       "content-type"};

}  // namespace

protocol::HttpReply jsonReply(int status, std::string body) {
  protocol::HttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  return reply;
}

protocol::HttpReply agentvcrError(int status, std::string_view id, std::string_view message) {
  nlohmann::ordered_json body;
  body["detail"] = std::string(message);
  body["agentvcr_error"] = std::string(id);
  return jsonReply(status, protocol::pythonJsonDumps(body));
}

protocol::HttpReply recordedReply(const store::RecordedResponse& response) {
  protocol::HttpReply reply;
  reply.status = response.status;
  // No Content-Type when the agent sent none (e.g. a 204).
  const protocol::HeaderField* content_type =
      protocol::findHeader(response.headers, "content-type");
  reply.content_type = content_type ? content_type->value : std::string();
  reply.headers = replayableHeaders(response.headers, /*body_rewritten=*/false);
  reply.body = response.body;
  return reply;
}

protocol::Headers replayableHeaders(const protocol::Headers& headers, bool body_rewritten) {
  protocol::Headers kept;
  for (const auto& header : headers) {
    const auto& name = header.name;
    const bool transfer =
        std::any_of(kTransferHeaders.begin(), kTransferHeaders.end(),
                    [&](std::string_view h) { return protocol::equalsIgnoreCase(name, h); });
    if (transfer || (body_rewritten && protocol::equalsIgnoreCase(name, "content-encoding"))) {
      continue;
    }
    kept.push_back(header);
  }
  return kept;
}

std::string contentTypeOf(const protocol::Headers& headers) {
  const protocol::HeaderField* content_type = protocol::findHeader(headers, "content-type");
  return content_type ? content_type->value : "application/json";
}

std::string missReason(std::string_view what, const std::optional<std::string>& closest,
                       const JsonDifferences& differences) {
  std::string reason = "agentvcr replay: no recorded answer for this " + std::string(what);
  if (!closest) {
    return reason + "; no recorded input resembles it";
  }
  if (differences.paths.empty()) {
    return reason + "; it matches the recorded input (" + *closest + ")";
  }
  reason += "; the closest recorded input (" + *closest + ") differs at ";
  for (std::size_t i = 0; i < differences.paths.size(); ++i) {
    reason += (i == 0 ? "" : ", ") +
              (differences.paths[i].empty() ? "(whole input)" : differences.paths[i]);
  }
  return reason + (differences.truncated ? ", ..." : "");
}

}  // namespace agentvcr::replay::detail
