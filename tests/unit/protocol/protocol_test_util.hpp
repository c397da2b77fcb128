#pragma once

// Helpers shared by the protocol unit tests.

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/validation.hpp"

namespace agentvcr::protocol::test {

/// Parses test data that must be valid JSON.
inline Json json(std::string_view text) {
  auto parsed = parseJson(text);
  EXPECT_TRUE(parsed.value.has_value())
      << "bad test JSON at byte " << parsed.error.offset << ": " << parsed.error.message;
  return parsed.value.value_or(Json());
}

/// A loc as a JSON array, keeping the difference between an index (0) and a key ("0").
inline std::string locText(const JsonPath& loc) {
  Json out = Json::array();
  for (const PathElement& element : loc) {
    if (const auto* key = std::get_if<std::string>(&element)) {
      out.push_back(*key);
    } else {
      out.push_back(std::get<std::int64_t>(element));
    }
  }
  return out.dump();
}

/// "type loc" per finding, joined with "; ": the exact type and loc of everything found.
inline std::string summary(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& finding : findings) {
    if (!out.empty()) {
      out += "; ";
    }
    out += finding.type + " " + locText(finding.loc);
  }
  return out;
}

}  // namespace agentvcr::protocol::test
