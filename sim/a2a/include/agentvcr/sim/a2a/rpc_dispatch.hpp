#pragma once

#include <string_view>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/config.hpp"
#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/task_service.hpp"

namespace agentvcr::sim::a2a {

/// The answer to one JSON-RPC POST, before it becomes HTTP.
struct RpcAnswer {
  Json id;  ///< the request id to echo, with its JSON type; null when it cannot be read
  MethodOutcome outcome;
};

/// Runs the checks of a JSON-RPC request in the configured order and executes it when all
/// pass. Never throws: an unexpected fault becomes -32603. Not thread-safe.
class RpcDispatcher {
 public:
  RpcDispatcher(const MockConfig& config, const Profile& profile, TaskService& tasks,
                RateLimiter& limiter, const Clock& clock)
      : config_(config), profile_(profile), tasks_(tasks), limiter_(limiter), clock_(clock) {}

  RpcAnswer dispatch(const protocol::Headers& headers, std::string_view body);

  /// Whether message/stream and tasks/resubscribe are served: exactly when the card says
  /// streaming (never in Magisterium's profile, which does not list them at all).
  void setStreaming(bool streaming) { streaming_ = streaming; }

 private:
  struct Call;

  std::optional<RpcError> run(Check check, Call& call);
  MethodOutcome execute(const Call& call);

  const MockConfig& config_;
  const Profile& profile_;
  bool streaming_ = false;
  TaskService& tasks_;
  RateLimiter& limiter_;
  const Clock& clock_;
};

}  // namespace agentvcr::sim::a2a
