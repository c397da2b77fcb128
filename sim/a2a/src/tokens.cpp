#include "agentvcr/sim/a2a/tokens.hpp"

#include <sstream>
#include <vector>

namespace agentvcr::sim::a2a {

const char* planName(Plan plan) {
  switch (plan) {
    case Plan::Free:
      return "free";
    case Plan::Pro:
      return "pro";
    case Plan::Organization:
      return "organization";
    case Plan::Enterprise:
      return "enterprise";
  }
  return "free";
}

std::optional<Plan> planFromName(std::string_view name) {
  for (Plan plan : {Plan::Free, Plan::Pro, Plan::Organization, Plan::Enterprise}) {
    if (name == planName(plan)) {
      return plan;
    }
  }
  return std::nullopt;
}

std::optional<Plan> TokenTable::find(std::string_view token) const {
  auto found = plans_.find(token);
  if (found == plans_.end()) {
    return std::nullopt;
  }
  return found->second;
}

TokensFileLoad parseTokensFile(std::string_view text) {
  TokenTable table;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string word; words >> word;) {
      fields.push_back(word);
    }
    if (fields.empty() || fields[0].front() == '#') {
      continue;
    }
    const std::string where = "line " + std::to_string(number) + ": ";
    if (fields.size() > 2) {
      return {std::nullopt,
              where + "expected TOKEN [PLAN], got " + std::to_string(fields.size()) + " words"};
    }
    auto plan = fields.size() == 2 ? planFromName(fields[1]) : Plan::Pro;
    if (!plan) {
      return {std::nullopt,
              where + "unknown plan '" + fields[1] + "' (free, pro, organization, enterprise)"};
    }
    if (table.find(fields[0])) {
      return {std::nullopt, where + "token '" + fields[0] + "' is given twice"};
    }
    table.add(fields[0], *plan);
  }
  return {std::move(table), {}};
}

}  // namespace agentvcr::sim::a2a
