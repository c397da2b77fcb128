#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/wire.hpp"

namespace agentvcr::sim::a2a {

/// Which server the mock plays (docs/a2a-protocol.md §6.1).
enum class ProfileKind {
  Magisterium,  ///< Magisterium's endpoint: synchronous skills, its own error codes, auth, quotas
  Standard,     ///< a spec-following A2A server, v0.3 and v1.0: task lifecycle, streaming
};

/// "magisterium" or "standard".
const char* profileName(ProfileKind kind);
std::optional<ProfileKind> profileFromName(std::string_view name);

/// What a JSON-RPC method asks for, whichever version names it (`message/send` and
/// `SendMessage` are both Send).
enum class Operation {
  Send,
  Stream,
  GetTask,
  ListTasks,  ///< v1.0 only
  Cancel,
  Subscribe,
  PushConfig,  ///< any of the push-notification config methods
  ExtendedCard,
};

/// The operation `method` names in `version`; nullopt for a name that version does not have.
std::optional<Operation> operationOf(std::string_view method, WireVersion version);

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
  VersionNotSupported,        ///< standard only: an A2A-Version the mock does not serve
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
  /// The A2A versions served, selected by the `A2A-Version` header. Magisterium serves v0.3
  /// and reads no header.
  std::vector<WireVersion> versions = {WireVersion::V03};
  bool reads_version_header = false;
  bool accepts_batches = false;  ///< a JSON array is a batch, each element answered on its own
  bool requires_id = true;       ///< a request without `id` is -32600, not answered with id null
  bool checks_auth = false;      ///< Bearer tokens (401), plans (403)
  bool checks_quota = false;     ///< per-token rate limits on message/send (429)
  bool routes_skills = false;    ///< unknown skillId is an error rather than the default skill
  bool checks_content_type = false;         ///< a non-JSON Content-Type is -32005
  bool honours_send_configuration = false;  ///< message/send's configuration.historyLength
  /// A message's fields A2A does not define are dropped, never stored or echoed (Magisterium
  /// echoes them).
  bool ignores_unknown_fields = false;
  /// Tasks wait in input-required between turns, may be continued and canceled, and are
  /// returned `working` to a caller that does not block (a2a-v1.md, "Task lifecycle").
  bool interrupts_tasks = false;

  bool serves(WireVersion version) const;

  /// The operation `method` asks for when this profile answers it in `version`.
  std::optional<Operation> answers(std::string_view method, WireVersion version) const;

  /// The code, message and HTTP status this profile uses for `fault`. `detail` is the message
  /// of InvalidParams and names the task or method where the profile's message does.
  RpcError error(Fault fault, std::string_view detail = {}) const;
};

/// Magisterium's profile; `card_version` is "0.2.6" (reported for the live card) or "0.3.0".
Profile magisteriumProfile(std::string card_version = "0.3.0");

/// The A2A specification's profile, serving `versions` (v0.3, v1.0 or both).
Profile standardProfile(std::vector<WireVersion> versions = {WireVersion::V03, WireVersion::V10});

}  // namespace agentvcr::sim::a2a
