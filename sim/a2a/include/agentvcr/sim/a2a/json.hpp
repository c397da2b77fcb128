#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace agentvcr::sim::a2a {

/// Every JSON value the mock reads or writes keeps its member order: a client's message is
/// echoed in the client's order, and answers are built in one fixed order, so the same
/// requests always give the same bytes.
using Json = nlohmann::ordered_json;

/// Parses untrusted text without throwing, with the strict rules of protocol::parseJson();
/// nullopt when the text is not one JSON value.
std::optional<Json> parseJsonText(std::string_view text);

/// Compact text of `value`; never throws.
std::string dumpJson(const Json& value);

/// `object`'s members named in `known`, in their order: what a reader that ignores unknown
/// fields keeps.
Json onlyMembers(const Json& object, std::initializer_list<std::string_view> known);

}  // namespace agentvcr::sim::a2a
