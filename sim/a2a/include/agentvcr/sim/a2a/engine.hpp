#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/config.hpp"
#include "agentvcr/sim/a2a/id_generator.hpp"
#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/rate_limiter.hpp"
#include "agentvcr/sim/a2a/rpc_dispatch.hpp"
#include "agentvcr/sim/a2a/task_service.hpp"
#include "agentvcr/sim/a2a/task_store.hpp"

namespace agentvcr::sim::a2a {

/// The synthetic A2A server without transport. Routes:
/// - POST at the endpoint path (with or without a trailing slash, and at "/"): JSON-RPC 2.0,
///   checked in the configured order;
/// - GET /.well-known/agent.json and /.well-known/agent-card.json: the agent card, v1.0's or
///   v0.3's as `A2A-Version` asks, with ETag, Last-Modified and a 304 on If-None-Match;
/// - under the HTTP+JSON base (standard profile, v1.0): `POST /message:send`, `GET /tasks/{id}`,
///   … (rest_face.cpp);
/// - OPTIONS anywhere: the CORS preflight;
/// - another method on a known path: 405 with Allow; any other path: 404.
///
/// Deterministic: the same config, seed, clock readings and requests give the same bytes.
/// Not thread-safe; the HTTP face serialises calls.
class MockEngine {
 public:
  /// Throws std::invalid_argument when the config cannot be served: an unknown card version,
  /// a check order that is not all eight checks once, an empty rate pool, or skills that stay
  /// `working` in the Magisterium profile (its skills are synchronous).
  MockEngine(MockConfig config, std::shared_ptr<const Clock> clock);
  MockEngine(const MockEngine&) = delete;
  MockEngine& operator=(const MockEngine&) = delete;

  protocol::HttpReply handle(const protocol::HttpRequest& request);

  /// Points the card's `url` somewhere else, e.g. at the port the server got.
  void setPublicUrl(const std::string& url);

  const Profile& profile() const { return profile_; }

  const Json& card() const { return card_; }

  const MockConfig& config() const { return config_; }

 private:
  protocol::HttpReply answerRpc(const protocol::HttpRequest& request);
  /// A call of the HTTP+JSON binding at `path` (relative to the binding's base): answered as
  /// the JSON-RPC v1.0 call it stands for, without the envelope, errors as google.rpc.Status.
  protocol::HttpReply answerRest(const protocol::HttpRequest& request, std::string_view path);
  /// Whether `path` is under the HTTP+JSON binding's base; sets `relative` to the rest.
  bool isRestPath(std::string_view path, std::string_view& relative) const;
  protocol::HttpReply streamReply(const Json& id, const std::vector<StreamFrame>& frames) const;

  /// Whether the HTTP+JSON binding is served: by the standard profile, when it serves v1.0.
  bool servesRest() const;
  /// The HTTP+JSON interface's URL beside the JSON-RPC one; empty when it is not served.
  std::string restUrl(const std::string& rpc_url) const;

  /// One version's card as served, with its validator.
  struct ServedCard {
    std::string body;
    std::string etag;  ///< quoted, from the body's bytes
  };

  protocol::HttpReply cardReply(const protocol::HttpRequest& request) const;
  /// The card `request` gets: v1.0's for `A2A-Version: 1.x` (or when v0.3 is not served),
  /// else v0.3's.
  const ServedCard& cardFor(const protocol::HttpRequest& request) const;
  /// The JSON-RPC endpoint: its path, the same with a trailing slash, or the root.
  bool isEndpoint(std::string_view path) const;
  protocol::HttpReply preflight() const;

  MockConfig config_;
  std::shared_ptr<const Clock> clock_;
  Profile profile_;
  Json card_;
  ServedCard v03_card_;                 ///< Magisterium's card too
  std::optional<ServedCard> v10_card_;  ///< when v1.0 is served
  std::string card_modified_;           ///< Last-Modified: when the cards were built
  IdGenerator ids_;
  TaskStore store_;
  RateLimiter limiter_;
  TaskService tasks_;
  RpcDispatcher dispatcher_;
};

}  // namespace agentvcr::sim::a2a
