#pragma once

// How export, import and merge carry raw bytes in JSON (docs/schema.md, Export, import and
// merge): a body that is valid UTF-8 is a JSON string, anything else {"base64": "..."}.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::store::detail {

using Ordered = nlohmann::ordered_json;

/// Standard base64 (RFC 4648 §4) with padding.
std::string base64Encode(std::string_view bytes);

/// The bytes of standard padded base64 text; empty when `text` is not that.
std::optional<std::string> base64Decode(std::string_view text);

/// A string when `bytes` is UTF-8, else {"base64": "..."}.
Ordered bodyToJson(const std::string& bytes);

/// The inverse of bodyToJson(); throws std::runtime_error for anything else.
std::string bodyFromJson(const nlohmann::json& body);

/// [[name, value], ...] in recorded order.
Ordered headersToJsonArray(const protocol::Headers& fields);

/// The inverse of headersToJsonArray(); throws std::runtime_error for anything else.
protocol::Headers headersFromJsonArray(const nlohmann::json& array);

}  // namespace agentvcr::store::detail
