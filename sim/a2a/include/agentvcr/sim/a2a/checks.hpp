#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentvcr::sim::a2a {

/// The checks a JSON-RPC request passes before it is executed (docs/a2a-protocol.md §6.2).
/// When several faults apply, the first check in the configured order that fails decides the
/// answer. A check that needs something a later check validates (the quota needs the skill)
/// does not apply while that is invalid; the later check then reports it.
enum class Check {
  Parse,     ///< the body is JSON (and, in the standard profile, the Content-Type is JSON)
  Envelope,  ///< jsonrpc "2.0", a string method, an id that is a string, a number or null
  Auth,      ///< a known Bearer token, or none under --no-auth
  Plan,      ///< the token's plan is a paid one
  Method,    ///< the profile answers the method
  Params,    ///< the method's params are valid
  Skill,     ///< message.metadata.skillId names a skill
  Quota,     ///< message/send is within the user's rate limits
};

/// parse, envelope, auth, plan, method, params, skill, quota.
std::vector<Check> defaultCheckOrder();

const char* checkName(Check check);

/// Reads a comma-separated order such as "parse,envelope,method,auth,plan,params,skill,quota";
/// each of the eight checks must appear exactly once. On failure returns nullopt and says why
/// in `error`.
std::optional<std::vector<Check>> parseCheckOrder(std::string_view text, std::string& error);

}  // namespace agentvcr::sim::a2a
