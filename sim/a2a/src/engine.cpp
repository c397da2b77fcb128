#include "agentvcr/sim/a2a/engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/sim/a2a/card.hpp"
#include "agentvcr/sim/a2a/json_rpc.hpp"

namespace agentvcr::sim::a2a {
namespace {

constexpr const char* kCardPaths[] = {"/.well-known/agent.json", "/.well-known/agent-card.json"};

Profile profileFor(const MockConfig& config) {
  if (config.profile == ProfileKind::Standard) {
    return standardProfile(config.a2a_versions);
  }
  if (config.card_version != "0.3.0" && config.card_version != "0.2.6") {
    throw std::invalid_argument("card version must be 0.3.0 or 0.2.6, got '" + config.card_version +
                                "'");
  }
  return magisteriumProfile(config.card_version);
}

/// Checks what the types cannot: fails start-up rather than a request.
MockConfig validated(MockConfig config) {
  if (config.fixtures.skills.skills().empty()) {
    throw std::invalid_argument("the fixtures define no skill");
  }
  if (config.a2a_versions.empty()) {
    throw std::invalid_argument("serve at least one A2A version");
  }
  if (config.check_order.size() != defaultCheckOrder().size()) {
    throw std::invalid_argument("the check order must name all eight checks once each");
  }
  for (Check check : defaultCheckOrder()) {
    if (std::count(config.check_order.begin(), config.check_order.end(), check) != 1) {
      throw std::invalid_argument(std::string("the check order must name '") + checkName(check) +
                                  "' exactly once");
    }
  }
  if (config.profile == ProfileKind::Magisterium) {
    for (const Skill& skill : config.fixtures.skills.skills()) {
      if (skill.input_turns > 0) {
        throw std::invalid_argument("skill '" + skill.id +
                                    "' asks for input, but Magisterium's skills are synchronous");
      }
    }
  }
  return config;
}

protocol::HttpReply plainText(int status, std::string text) {
  protocol::HttpReply reply;
  reply.status = status;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = std::move(text);
  return reply;
}

protocol::HttpReply notAllowed(const char* allow) {
  protocol::HttpReply reply = plainText(405, "Method Not Allowed");
  reply.headers.push_back({"Allow", allow});
  return reply;
}

}  // namespace

MockEngine::MockEngine(MockConfig config, std::shared_ptr<const Clock> clock)
    : config_(validated(std::move(config))),
      clock_(std::move(clock)),
      profile_(profileFor(config_)),
      ids_(config_.seed),
      store_(config_.retention),
      limiter_(config_.limits),
      tasks_(profile_, config_.fixtures.skills, config_.fixtures.fates, store_, ids_, *clock_),
      dispatcher_(config_, profile_, tasks_, limiter_, *clock_) {
  setPublicUrl(config_.public_url);
}

bool MockEngine::servesRest() const {
  return profile_.kind == ProfileKind::Standard && profile_.serves(WireVersion::V10);
}

std::string MockEngine::restUrl(const std::string& rpc_url) const {
  if (!servesRest()) {
    return {};
  }
  // The JSON-RPC URL's base, where the endpoint path is served, holds the binding's base too.
  const std::string& endpoint = config_.endpoint_path;
  const std::string base =
      rpc_url.ends_with(endpoint) ? rpc_url.substr(0, rpc_url.size() - endpoint.size()) : rpc_url;
  return base + config_.rest_path;
}

void MockEngine::setPublicUrl(const std::string& url) {
  config_.public_url = url;
  const Fixtures& fixtures = config_.fixtures;
  const bool extended = profile_.kind == ProfileKind::Standard && fixtures.extended_card;
  card_ =
      buildCard(fixtures.card_template, profile_, fixtures.skills, {url, restUrl(url)}, extended);
  const auto served = [](const Json& card) {
    ServedCard out{dumpJson(card), {}};
    out.etag = "\"" + protocol::hashHex(protocol::stableHash(out.body)) + "\"";
    return out;
  };
  v03_card_ = served(card_);
  v10_card_.reset();
  if (profile_.serves(WireVersion::V10)) {
    v10_card_ = served(v10Card(card_));
  }
  card_modified_ = httpDate(clock_->now());
  dispatcher_.setStreaming(cardStreams(card_));
  dispatcher_.setExtendedCard(extended ? std::optional<Json>(buildExtendedCard(
                                             fixtures.card_template, *fixtures.extended_card,
                                             profile_, fixtures.skills, {url, restUrl(url)}))
                                       : std::nullopt);
}

protocol::HttpReply MockEngine::handle(const protocol::HttpRequest& request) {
  const std::string path = request.target.substr(0, request.target.find('?'));
  protocol::HttpReply reply;
  if (request.method == "OPTIONS") {
    reply = preflight();
  } else if (path == kCardPaths[0] || path == kCardPaths[1]) {
    reply = request.method == "GET" ? cardReply(request) : notAllowed("GET, OPTIONS");
  } else if (isEndpoint(path)) {
    reply = request.method == "POST" ? answerRpc(request) : notAllowed("POST, OPTIONS");
  } else if (std::string_view relative; isRestPath(path, relative)) {
    reply = answerRest(request, relative);
  } else {
    reply = plainText(404, "Not Found");
  }
  if (config_.cors) {
    reply.headers.insert(reply.headers.begin(), {"Access-Control-Allow-Origin", "*"});
  }
  return reply;
}

bool MockEngine::isEndpoint(std::string_view path) const {
  // A client that joins the card's URL and a '/' means the same endpoint, as the official SDK's
  // server takes it.
  const std::string& endpoint = config_.endpoint_path;
  return path == "/" || path == endpoint ||
         (path.size() == endpoint.size() + 1 && path.starts_with(endpoint) && path.back() == '/');
}

protocol::HttpReply MockEngine::preflight() const {
  protocol::HttpReply reply;
  reply.status = 204;
  reply.content_type.clear();
  if (config_.cors) {
    // The HTTP+JSON binding reads with GET and deletes push configs with DELETE.
    reply.headers.push_back({"Access-Control-Allow-Methods",
                             servesRest() ? "GET, POST, DELETE, OPTIONS" : "POST, OPTIONS"});
    // A browser's v1.0 client names its version in a header, which the preflight must allow.
    reply.headers.push_back(
        {"Access-Control-Allow-Headers", profile_.reads_version_header
                                             ? "Content-Type, Authorization, A2A-Version"
                                             : "Content-Type, Authorization"});
  } else {
    reply.headers.push_back({"Allow", "GET, POST, OPTIONS"});
  }
  return reply;
}

const MockEngine::ServedCard& MockEngine::cardFor(const protocol::HttpRequest& request) const {
  if (!v10_card_) {
    return v03_card_;
  }
  if (!profile_.serves(WireVersion::V03)) {
    return *v10_card_;
  }
  const protocol::HeaderField* version = protocol::findHeader(request.headers, "a2a-version");
  return version != nullptr && protocol::a2a::asksForV10(protocol::trimBlanks(version->value))
             ? *v10_card_
             : v03_card_;
}

protocol::HttpReply MockEngine::cardReply(const protocol::HttpRequest& request) const {
  const ServedCard& card = cardFor(request);
  protocol::HttpReply reply;
  reply.headers.push_back({"Cache-Control", "public, max-age=3600"});
  reply.headers.push_back({"ETag", card.etag});
  reply.headers.push_back({"Last-Modified", card_modified_});
  if (profile_.reads_version_header) {
    reply.headers.push_back({"Vary", "A2A-Version"});
  }
  const protocol::HeaderField* cached = protocol::findHeader(request.headers, "if-none-match");
  if (cached != nullptr && protocol::entityTagMatches(cached->value, card.etag)) {
    reply.status = 304;
    reply.content_type.clear();
    return reply;
  }
  reply.body = card.body;
  return reply;
}

protocol::HttpReply MockEngine::answerRpc(const protocol::HttpRequest& request) {
  RpcAnswers answers = dispatcher_.dispatch(request);
  if (answers.batch) {
    // Each element answers on its own; HTTP says only that the batch was read.
    protocol::HttpReply reply;
    reply.body = "[";
    for (const RpcAnswer& answer : answers.answers) {
      const MethodOutcome& outcome = answer.outcome;
      reply.body += reply.body.size() > 1 ? "," : "";
      reply.body += outcome.result ? resultBody(answer.id, *outcome.result)
                                   : errorBody(answer.id, *outcome.error);
    }
    reply.body += "]";
    return reply;
  }
  RpcAnswer& answer = answers.answers.front();
  MethodOutcome& outcome = answer.outcome;
  if (!outcome.stream.empty()) {
    return streamReply(answer.id, outcome.stream);
  }
  protocol::HttpReply reply;
  if (outcome.result) {
    reply.body = resultBody(answer.id, *outcome.result);
    return reply;
  }
  const RpcError& error = *outcome.error;
  reply.status = error.http_status;
  reply.body = errorBody(answer.id, error);
  if (config_.retry_after_header && error.data && error.data->contains("retryAfter")) {
    reply.headers.push_back({"Retry-After", dumpJson((*error.data)["retryAfter"])});
  }
  return reply;
}

protocol::HttpReply MockEngine::streamReply(const Json& id,
                                            const std::vector<StreamFrame>& frames) const {
  protocol::HttpReply reply;
  reply.content_type = "text/event-stream";
  reply.headers.push_back({"Cache-Control", "no-cache"});
  reply.headers.push_back({"X-Accel-Buffering", "no"});
  for (const StreamFrame& frame : frames) {
    const auto delay =
        reply.stream.empty() ? std::chrono::milliseconds::zero() : config_.stream_delay;
    reply.stream.push_back({delay, frame.result ? sseData(resultBody(id, *frame.result))
                                                : sseError(errorBody(id, *frame.error))});
  }
  return reply;
}

}  // namespace agentvcr::sim::a2a
