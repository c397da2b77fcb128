#include "agentvcr/sim/a2a/checks.hpp"

#include <algorithm>

namespace agentvcr::sim::a2a {

std::vector<Check> defaultCheckOrder() {
  return {Check::Parse,  Check::Envelope, Check::Auth,  Check::Plan,
          Check::Method, Check::Params,   Check::Skill, Check::Quota};
}

const char* checkName(Check check) {
  switch (check) {
    case Check::Parse:
      return "parse";
    case Check::Envelope:
      return "envelope";
    case Check::Auth:
      return "auth";
    case Check::Plan:
      return "plan";
    case Check::Method:
      return "method";
    case Check::Params:
      return "params";
    case Check::Skill:
      return "skill";
    case Check::Quota:
      return "quota";
  }
  return "parse";
}

std::optional<std::vector<Check>> parseCheckOrder(std::string_view text, std::string& error) {
  const std::vector<Check> all = defaultCheckOrder();
  std::vector<Check> order;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view name = text.substr(start, comma - start);
    auto known =
        std::find_if(all.begin(), all.end(), [&](Check check) { return name == checkName(check); });
    if (known == all.end()) {
      error = "unknown check '" + std::string(name) +
              "' (parse, envelope, auth, plan, method, params, skill, quota)";
      return std::nullopt;
    }
    if (std::find(order.begin(), order.end(), *known) != order.end()) {
      error = "check '" + std::string(name) + "' is named twice";
      return std::nullopt;
    }
    order.push_back(*known);
    start = comma + 1;
  }
  if (order.size() != all.size()) {
    error = "name all eight checks once each";
    return std::nullopt;
  }
  return order;
}

}  // namespace agentvcr::sim::a2a
