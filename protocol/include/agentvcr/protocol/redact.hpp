#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::protocol {

/// "REDACTED-" + 16 hex digits of the stable hash of `secret`: the same secret always gives the
/// same token, so two recordings made with the same key still match; the secret itself never
/// reaches disk.
std::string redactionToken(std::string_view secret);

/// True for headers that carry credentials: Authorization, Proxy-Authorization, Cookie,
/// Set-Cookie, X-Api-Key, Api-Key, and any name containing "token", "secret" or "api-key"
/// (case-insensitive).
bool isSecretHeader(std::string_view name);

/// Replaces the value of every secret header with its redaction token. Returns how many.
/// Idempotent: a value that already is a token is left alone and not counted.
std::size_t redactHeaders(Headers& headers);

/// For a body that may carry credentials (the coaching session config's `backends.*.headers`),
/// returns the body with each such header value replaced by its token, or nullopt when the
/// body holds nothing to redact (then it is stored verbatim).
///
/// Redacted: every value of `backends.<name>.headers` (strings by the token of their text,
/// other JSON by the token of its compact text), and the value of any member named `api_key`,
/// `apiKey`, `token`, `password` or `secret` (exact names) at any depth; null values and values
/// that already are tokens are left alone, so redacting twice changes nothing. The result is
/// compact JSON keeping the sender's key order. A body that is not valid JSON but mentions
/// "headers" or one of those names (any case) is replaced as a whole by its token.
std::optional<std::string> redactCoachingSessionBody(std::string_view body);

}  // namespace agentvcr::protocol
