#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/sim/a2a/json.hpp"

namespace agentvcr::sim::a2a {

/// Which server the mock plays (docs/a2a-protocol.md §6.1).
enum class ProfileKind {
  Magisterium,  ///< Magisterium's endpoint: synchronous skills, its own error codes, auth, quotas
  Standard,     ///< a plain A2A v0.3 server: working tasks, cancel, continuation, streaming
};

/// "magisterium" or "standard".
const char* profileName(ProfileKind kind);
std::optional<ProfileKind> profileFromName(std::string_view name);

/// A condition the mock reports. Each profile names it with its own code and message.
enum class Fault {
  ParseError,
  InvalidRequest,
  MethodNotFound,
  InvalidParams,  ///< the detail is the message
  InternalError,
  TaskNotFound,
  TaskNotCancelable,          ///< cancel of a terminal task
  TaskTerminal,               ///< a follow-up message naming a terminal task
  SkillNotFound,              ///< Magisterium only
  RateLimited,                ///< Magisterium only; HTTP 429
  Unauthorized,               ///< Magisterium only; HTTP 401
  PlanRequired,               ///< Magisterium only; HTTP 403
  PushNotSupported,           ///< standard only
  UnsupportedOperation,       ///< standard only
  ContentTypeNotSupported,    ///< standard only
  ExtendedCardNotConfigured,  ///< standard only
};

/// A JSON-RPC error with the HTTP status it travels with.
struct RpcError {
  int http_status = 200;
  int code = 0;
  std::string message;
  std::optional<Json> data;
};

/// Everything that differs between the two profiles, in one place.
struct Profile {
  ProfileKind kind = ProfileKind::Magisterium;
  std::string card_version;          ///< the card's protocolVersion
  std::string preferred_card_path;   ///< both card paths are served; this one is advertised
  std::vector<std::string> methods;  ///< JSON-RPC methods answered; any other is -32601
  bool checks_auth = false;          ///< Bearer tokens (401), plans (403)
  bool checks_quota = false;         ///< per-token rate limits on message/send (429)
  bool routes_skills = false;        ///< unknown skillId is an error rather than the default skill
  bool checks_content_type = false;  ///< a non-JSON Content-Type is -32005
  bool honours_send_configuration = false;  ///< message/send's configuration.historyLength
  bool allows_working_tasks = false;

  bool answers(std::string_view method) const;

  /// The code, message and HTTP status this profile uses for `fault`. `detail` is the message
  /// of InvalidParams and names the task or method where the profile's message does.
  RpcError error(Fault fault, std::string_view detail = {}) const;
};

/// Magisterium's profile; `card_version` is "0.2.6" (reported for the live card) or "0.3.0".
Profile magisteriumProfile(std::string card_version = "0.3.0");

/// The A2A v0.3 specification's profile.
Profile standardProfile();

}  // namespace agentvcr::sim::a2a
