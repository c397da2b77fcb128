#pragma once

#include <string_view>

namespace agentvcr::protocol {

/// Names the caller's replay scope (docs/replay.md, "Scopes"). It is agentvcr's business, never
/// the agent's: `record` keeps it with the exchange and strips it before the upstream, replay
/// reads it and strips it before a forward.
inline constexpr std::string_view kScopeHeader = "X-Agentvcr-Scope";

/// What a scope name may be, said to a caller whose name breaks it.
inline constexpr std::string_view kScopeNameRule =
    "a scope is named by 1 to 64 letters, digits, '-', '.', '_' or '~'";

/// Said to a caller whose request carries the header twice: which copy is meant cannot be
/// known (a proxy on the way may add one), and a copy left behind would reach the agent.
inline constexpr std::string_view kOneScopeRule =
    "a request names one scope, in one X-Agentvcr-Scope header";

/// True for 1 to 64 letters, digits, '-', '.', '_' or '~': usable as written in a header value
/// and in a URL query.
bool isScopeName(std::string_view name);

}  // namespace agentvcr::protocol
