#include <set>
#include <string>

#include "agentvcr/protocol/lint.hpp"

namespace agentvcr::protocol::lint {
namespace {

/// The parameter names a tool declares. Two conventions exist (magma-protocol.md §12.1):
/// `parameters` (read first, as agents do) or `arguments`, each a map from parameter name to
/// its description; a JSON-Schema style `{"type":"object","properties":{...}}` is read through
/// `properties`. Returns false when the tool declares no readable parameter map.
bool declaredParameters(const Json& tool, std::set<std::string>& names) {
  const Json* declared = nullptr;
  for (const char* key : {"parameters", "arguments"}) {
    auto it = tool.find(key);
    if (it != tool.end() && it->is_object()) {
      declared = &*it;
      break;
    }
  }
  if (declared == nullptr) {
    return false;
  }
  auto properties = declared->find("properties");
  if (declared->value("type", Json()) == "object" && properties != declared->end() &&
      properties->is_object()) {
    declared = &*properties;
  }
  for (const auto& [name, ignored] : declared->items()) {
    names.insert(name);
  }
  return true;
}

const Json* findTool(const Json& tools, const std::string& name) {
  for (const Json& tool : tools) {
    if (tool.is_object() && tool.value("name", Json()) == name) {
      return &tool;
    }
  }
  return nullptr;
}

/// The declared robot names, or null when the input declares none (the rule then does not
/// apply: `known_robots` is added by the runtime, not required by the contract).
const Json* knownRobots(const Json& input) {
  auto attributes = input.find("attributes");
  if (attributes == input.end() || !attributes->is_object()) {
    return nullptr;
  }
  auto robots = attributes->find("known_robots");
  return robots != attributes->end() && robots->is_array() ? &*robots : nullptr;
}

bool contains(const Json& list, const Json& value) {
  for (const Json& item : list) {
    if (item == value) {
      return true;
    }
  }
  return false;
}

void lintToolCall(const Json& input, const Json& call, JsonPath path,
                  std::vector<LintFinding>& findings) {
  auto at = [&path](PathElement key) {
    JsonPath p = path;
    p.push_back(std::move(key));
    return p;
  };
  const Json name = call.value("name", Json());
  const Json tools = input.value("tools", Json::array());
  const Json* tool =
      name.is_string() && tools.is_array() ? findTool(tools, name.get<std::string>()) : nullptr;
  if (name.is_string() && tools.is_array() && tool == nullptr) {
    findings.push_back(
        {kUndeclaredTool, at("name"),
         "Tool '" + name.get<std::string>() + "' is not declared in the input's tools"});
  }
  const Json robot = call.value("target_robot_name", Json());
  if (const Json* robots = knownRobots(input);
      robots != nullptr && robot.is_string() && !contains(*robots, robot)) {
    findings.push_back({kUnknownRobot, at("target_robot_name"),
                        "Robot '" + robot.get<std::string>() +
                            "' is not in attributes.known_robots " + robots->dump()});
  }
  std::set<std::string> parameters;
  auto arguments = call.find("arguments");
  if (tool == nullptr || arguments == call.end() || !arguments->is_object() ||
      !declaredParameters(*tool, parameters)) {
    return;
  }
  for (const auto& [argument, ignored] : arguments->items()) {
    if (parameters.count(argument) == 0) {
      JsonPath p = at("arguments");
      p.emplace_back(argument);
      findings.push_back({kUnknownArgument, std::move(p),
                          "Argument '" + argument + "' is not a declared parameter of tool '" +
                              name.get<std::string>() + "'"});
    }
  }
}

}  // namespace

std::vector<LintFinding> lintCandidate(const Json& input, const Json& output) {
  std::vector<LintFinding> findings;
  if (!input.is_object() || !output.is_object()) {
    return findings;
  }
  auto decision = output.find("output");
  if (decision == output.end() || !decision->is_object()) {
    return findings;
  }
  const Json say = decision->value("say", Json());
  const Json calls = decision->value("tool_calls", Json());
  const bool has_calls = calls.is_array() && !calls.empty();
  // Contract 2.0 accepts the pair but the runtime's decision shape forbids mixing them
  // (magma-protocol.md §6): a mixed answer loses either the words or the actions downstream.
  if (say.is_string() && !say.get<std::string>().empty() && has_calls) {
    findings.push_back(
        {kSayWithToolCalls, {"output", "say"}, "An answer cannot contain both say and tool calls"});
  }
  if (!calls.is_array()) {
    return findings;
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].is_object()) {
      lintToolCall(input, calls[i], {"output", "tool_calls", static_cast<std::int64_t>(i)},
                   findings);
    }
  }
  return findings;
}

}  // namespace agentvcr::protocol::lint
