#include "agentvcr/sim/a2a/profile.hpp"

#include <algorithm>

namespace agentvcr::sim::a2a {
namespace {

RpcError withStatus(int http_status, int code, std::string message) {
  return RpcError{http_status, code, std::move(message), std::nullopt};
}

RpcError plain(int code, std::string message) {
  return withStatus(200, code, std::move(message));
}

/// docs/a2a-protocol.md §2.6 and §4.5: Magisterium reuses -32002…-32005 for its own
/// conditions and sends 401, 403 and 429 for them.
RpcError magisteriumError(Fault fault, std::string_view detail) {
  switch (fault) {
    case Fault::ParseError:
      return plain(-32700, "Parse error");
    case Fault::InvalidRequest:
      return plain(-32600, "Invalid Request");
    case Fault::MethodNotFound:
      return plain(-32601, "Method not found");
    case Fault::InvalidParams:
      return plain(-32602, std::string(detail));
    case Fault::TaskNotFound:
      return plain(-32001, "Task not found");
    case Fault::TaskNotCancelable:
    case Fault::TaskTerminal:
      // Only the cancel text is documented; a follow-up to a finished task is the same kind
      // of transition out of a terminal state.
      return plain(-32602, "Invalid state transition");
    case Fault::SkillNotFound:
      return plain(-32002, "Skill not found");
    case Fault::RateLimited:
      return withStatus(429, -32003, "Rate limit exceeded");
    case Fault::Unauthorized:
      return withStatus(401, -32004, "Unauthorized");
    case Fault::PlanRequired:
      return withStatus(403, -32005, "Paid plan required");
    default:
      return plain(-32603, "Internal error");
  }
}

/// The A2A v0.3 codes, with the specification's default messages.
RpcError standardError(Fault fault, std::string_view detail) {
  switch (fault) {
    case Fault::ParseError:
      return plain(-32700, "Parse error");
    case Fault::InvalidRequest:
      return plain(-32600, "Invalid Request");
    case Fault::MethodNotFound:
      return plain(-32601, "Method not found: " + std::string(detail));
    case Fault::InvalidParams:
      return plain(-32602, std::string(detail));
    case Fault::TaskNotFound:
      return plain(-32001, "Task not found: " + std::string(detail));
    case Fault::TaskNotCancelable:
      return plain(-32002, "Task not cancelable: " + std::string(detail));
    case Fault::PushNotSupported:
      return plain(-32003, "Push Notification is not supported");
    case Fault::TaskTerminal:
    case Fault::UnsupportedOperation:
      return plain(-32004, std::string(detail));
    case Fault::ContentTypeNotSupported:
      return plain(-32005, "Incompatible content types");
    case Fault::ExtendedCardNotConfigured:
      return plain(-32007, "Authenticated Extended Card is not configured");
    case Fault::VersionNotSupported:
      return plain(-32009, "A2A version not supported: " + std::string(detail));
    default:
      return plain(-32603, "Internal error");
  }
}

}  // namespace

const char* profileName(ProfileKind kind) {
  return kind == ProfileKind::Magisterium ? "magisterium" : "standard";
}

std::optional<ProfileKind> profileFromName(std::string_view name) {
  if (name == "magisterium") {
    return ProfileKind::Magisterium;
  }
  if (name == "standard") {
    return ProfileKind::Standard;
  }
  return std::nullopt;
}

std::optional<Operation> operationOf(std::string_view method, WireVersion version) {
  static constexpr std::pair<std::string_view, Operation> kOperations[] = {
      {"SendMessage", Operation::Send},
      {"SendStreamingMessage", Operation::Stream},
      {"GetTask", Operation::GetTask},
      {"ListTasks", Operation::ListTasks},
      {"CancelTask", Operation::Cancel},
      {"SubscribeToTask", Operation::Subscribe},
      {"CreateTaskPushNotificationConfig", Operation::PushConfig},
      {"GetTaskPushNotificationConfig", Operation::PushConfig},
      {"ListTaskPushNotificationConfigs", Operation::PushConfig},
      {"DeleteTaskPushNotificationConfig", Operation::PushConfig},
      {"GetExtendedAgentCard", Operation::ExtendedCard},
  };
  // A v0.3 name is looked up by its v1.0 name; one that v0.3 does not have finds nothing.
  const std::string_view v10_name =
      version == WireVersion::V10 ? method : protocol::a2a::v10MethodName(method);
  for (const auto& [name, operation] : kOperations) {
    if (!v10_name.empty() && name == v10_name) {
      return operation;
    }
  }
  return std::nullopt;
}

bool Profile::serves(WireVersion version) const {
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

std::optional<Operation> Profile::answers(std::string_view method, WireVersion version) const {
  if (!serves(version) || std::find(methods.begin(), methods.end(), method) == methods.end()) {
    return std::nullopt;
  }
  return operationOf(method, version);
}

RpcError Profile::error(Fault fault, std::string_view detail) const {
  return kind == ProfileKind::Magisterium ? magisteriumError(fault, detail)
                                          : standardError(fault, detail);
}

Profile magisteriumProfile(std::string card_version) {
  Profile profile;
  profile.kind = ProfileKind::Magisterium;
  profile.card_version = std::move(card_version);
  profile.preferred_card_path = "/.well-known/agent.json";
  profile.methods = {"message/send", "tasks/get", "tasks/cancel"};
  profile.checks_auth = true;
  profile.checks_quota = true;
  profile.routes_skills = true;
  return profile;
}

Profile standardProfile(std::vector<WireVersion> versions) {
  Profile profile;
  profile.kind = ProfileKind::Standard;
  profile.card_version = "0.3.0";
  profile.preferred_card_path = "/.well-known/agent-card.json";
  profile.methods = {"message/send",
                     "message/stream",
                     "tasks/get",
                     "tasks/cancel",
                     "tasks/resubscribe",
                     "tasks/pushNotificationConfig/set",
                     "tasks/pushNotificationConfig/get",
                     "tasks/pushNotificationConfig/list",
                     "tasks/pushNotificationConfig/delete",
                     "agent/getAuthenticatedExtendedCard",
                     "SendMessage",
                     "SendStreamingMessage",
                     "GetTask",
                     "ListTasks",
                     "CancelTask",
                     "SubscribeToTask",
                     "CreateTaskPushNotificationConfig",
                     "GetTaskPushNotificationConfig",
                     "ListTaskPushNotificationConfigs",
                     "DeleteTaskPushNotificationConfig",
                     "GetExtendedAgentCard"};
  profile.versions = std::move(versions);
  profile.reads_version_header = true;
  profile.accepts_batches = true;
  profile.requires_id = false;
  profile.checks_content_type = true;
  profile.honours_send_configuration = true;
  profile.ignores_unknown_fields = true;
  profile.interrupts_tasks = true;
  return profile;
}

}  // namespace agentvcr::sim::a2a
