#pragma once

#include <optional>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/config.hpp"
#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/task_service.hpp"

namespace agentvcr::sim::a2a {

/// The answer to one JSON-RPC request object, before it becomes HTTP.
struct RpcAnswer {
  Json id;  ///< the request id to echo, with its JSON type; null when it cannot be read
  MethodOutcome outcome;
};

/// The answers to one POST: a single answer, or one per element of a batch.
struct RpcAnswers {
  std::vector<RpcAnswer> answers;
  bool batch = false;  ///< the body was a non-empty array: the answer is an array too
};

/// Runs the checks of a JSON-RPC request in the configured order and executes it when all
/// pass. A batch, where the profile takes them, is answered element by element, in order.
/// Never throws: an unexpected fault becomes -32603. Not thread-safe.
class RpcDispatcher {
 public:
  RpcDispatcher(const MockConfig& config, const Profile& profile, TaskService& tasks,
                RateLimiter& limiter, const Clock& clock)
      : config_(config), profile_(profile), tasks_(tasks), limiter_(limiter), clock_(clock) {}

  RpcAnswers dispatch(const protocol::HttpRequest& request);

  /// Whether message/stream and tasks/resubscribe (and their v1.0 names) are served: exactly
  /// when the card says streaming (never in Magisterium's profile, which does not list them).
  void setStreaming(bool streaming) { streaming_ = streaming; }

  /// The card the extended-card methods answer; none configured: -32007.
  void setExtendedCard(std::optional<Json> card) { extended_card_ = std::move(card); }

 private:
  struct Call;
  struct Version;

  Version readVersion(const protocol::HttpRequest& request) const;
  RpcAnswer answer(const protocol::Headers& headers, bool json_content_type, const Json* document,
                   const Version& version, bool in_batch);
  /// Reads the params of the call's operation into `call`, or the reason they are invalid.
  void readParams(Call& call) const;
  std::optional<RpcError> run(Check check, Call& call);
  MethodOutcome execute(const Call& call);

  const MockConfig& config_;
  const Profile& profile_;
  bool streaming_ = false;
  std::optional<Json> extended_card_;
  TaskService& tasks_;
  RateLimiter& limiter_;
  const Clock& clock_;
};

}  // namespace agentvcr::sim::a2a
