#include "escaped_values.hpp"

#include <stdexcept>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::fleet::detail {

EscapedValues::EscapedValues(const std::optional<std::string>& escaped) {
  if (!escaped) {
    return;
  }
  const protocol::JsonParseResult parsed = protocol::parseJson(*escaped);
  if (!parsed.value || !parsed.value->is_object()) {
    throw std::runtime_error("[fleet.pull] an escaped column that is not a JSON object");
  }
  for (const auto& [column, hex] : parsed.value->items()) {
    std::optional<std::string> bytes =
        hex.is_string() ? protocol::hexDecode(hex.get<std::string>()) : std::nullopt;
    if (!bytes) {
      throw std::runtime_error("[fleet.pull] the escaped value of " + column + " is not hex");
    }
    bytes_.emplace(column, std::move(*bytes));
  }
}

std::string EscapedValues::exact(std::string_view column, std::string_view stored) const {
  const auto found = bytes_.find(column);
  return found != bytes_.end() ? found->second : std::string(stored);
}

std::optional<std::string> EscapedValues::exact(std::string_view column,
                                                const std::optional<std::string>& stored) const {
  const auto found = bytes_.find(column);
  return found != bytes_.end() ? std::optional(found->second) : stored;
}

}  // namespace agentvcr::fleet::detail
