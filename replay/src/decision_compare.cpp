#include "agentvcr/replay/decision_compare.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/replay/json_diff.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

std::string stringOf(const Json& value) {
  return value.is_string() ? value.get<std::string>() : std::string{};
}

/// Room for each side of "<a> vs <b>": a report line shows both values, shortened as the viewer
/// shortens them, so that a person sees what differs without opening the archive.
constexpr std::size_t kValueChars = 40;

std::string quoted(const std::string& text) {
  return "\"" + protocol::oneLine(text, kValueChars) + "\"";
}

const Json& toolCalls(const Json& output) {
  return protocol::memberOrNull(protocol::memberOrNull(output, "output"), "tool_calls");
}

std::size_t toolCallCount(const Json& output) {
  const Json& calls = toolCalls(output);
  return calls.is_array() ? calls.size() : 0;
}

SayMatch compareSay(const std::string& recorded, const std::string& live) {
  if (recorded == live) {
    return SayMatch::Equal;
  }
  return normaliseSay(recorded) == normaliseSay(live) ? SayMatch::Normalised : SayMatch::Different;
}

void compareToolCalls(const Json& recorded, const Json& live, const std::string& prefix,
                      std::vector<std::string>& differences) {
  const std::size_t recorded_count = toolCallCount(recorded);
  const std::size_t live_count = toolCallCount(live);
  if (recorded_count != live_count) {
    differences.push_back(prefix + std::to_string(recorded_count) + " tool calls vs " +
                          std::to_string(live_count));
  }
  for (std::size_t i = 0; i < std::min(recorded_count, live_count); ++i) {
    const Json& a = toolCalls(recorded)[i];
    const Json& b = toolCalls(live)[i];
    const std::string call = prefix + "tool call " + std::to_string(i) + " ";
    const std::string name_a = stringOf(protocol::memberOrNull(a, "name"));
    const std::string name_b = stringOf(protocol::memberOrNull(b, "name"));
    if (name_a != name_b) {
      differences.push_back(call + "name " + quoted(name_a) + " vs " + quoted(name_b));
    }
    const std::string robot_a = stringOf(protocol::memberOrNull(a, "target_robot_name"));
    const std::string robot_b = stringOf(protocol::memberOrNull(b, "target_robot_name"));
    if (robot_a != robot_b) {
      differences.push_back(call + "robot " + quoted(robot_a) + " vs " + quoted(robot_b));
    }
    auto paths = differingPaths(protocol::memberOrNull(a, "arguments"),
                                protocol::memberOrNull(b, "arguments"), 4);
    for (const auto& path : paths.paths) {
      differences.push_back(call + "arguments differ at " + (path.empty() ? "/" : path));
    }
  }
}

CandidateComparison compareCandidate(std::int64_t index, const Json* recorded, const Json* live) {
  CandidateComparison result;
  result.candidate_index = index;
  const std::string prefix = "candidate " + std::to_string(index) + ": ";
  if (recorded == nullptr || live == nullptr) {
    result.match = false;
    result.say = SayMatch::Different;
    result.differences.push_back(prefix + (recorded == nullptr ? "only live" : "missing live"));
    return result;
  }
  auto& differences = result.differences;
  const std::string status_a = stringOf(protocol::memberOrNull(*recorded, "status"));
  const std::string status_b = stringOf(protocol::memberOrNull(*live, "status"));
  if (status_a != status_b) {
    differences.push_back(prefix + "status " + quoted(status_a) + " vs " + quoted(status_b));
  }
  const std::string kind_a = decisionKind(*recorded);
  const std::string kind_b = decisionKind(*live);
  if (kind_a != kind_b) {
    differences.push_back(prefix + "kind " + kind_a + " vs " + kind_b);
  }
  if (status_a == "error" || status_b == "error") {
    const std::string code_a =
        stringOf(protocol::memberOrNull(protocol::memberOrNull(*recorded, "error"), "code"));
    const std::string code_b =
        stringOf(protocol::memberOrNull(protocol::memberOrNull(*live, "error"), "code"));
    if (code_a != code_b) {
      differences.push_back(prefix + "error code " + quoted(code_a) + " vs " + quoted(code_b));
    }
  } else {
    const std::string say_a =
        stringOf(protocol::memberOrNull(protocol::memberOrNull(*recorded, "output"), "say"));
    const std::string say_b =
        stringOf(protocol::memberOrNull(protocol::memberOrNull(*live, "output"), "say"));
    result.say = compareSay(say_a, say_b);
    if (result.say == SayMatch::Different) {
      differences.push_back(prefix + "say " + quoted(say_a) + " vs " + quoted(say_b));
    }
    compareToolCalls(*recorded, *live, prefix, differences);
  }
  result.match = differences.empty();
  return result;
}

/// Live tool calls checked against what the input declared.
std::vector<std::string> checkToolCalls(const Json& input, const Json& live) {
  std::set<std::string> tools;
  if (const Json& declared = protocol::memberOrNull(input, "tools"); declared.is_array()) {
    for (const Json& tool : declared) {
      tools.insert(stringOf(protocol::memberOrNull(tool, "name")));
    }
  }
  const Json& robots_json =
      protocol::memberOrNull(protocol::memberOrNull(input, "attributes"), "known_robots");
  std::set<std::string> robots;
  if (robots_json.is_array()) {
    for (const Json& robot : robots_json) {
      robots.insert(stringOf(robot));
    }
  }
  std::vector<std::string> findings;
  if (!live.is_array()) {
    return findings;
  }
  for (const Json& output : live) {
    const std::string index =
        std::to_string(protocol::memberOrNull(output, "candidate_index").is_number_integer()
                           ? protocol::memberOrNull(output, "candidate_index").get<std::int64_t>()
                           : 0);
    for (std::size_t i = 0; i < toolCallCount(output); ++i) {
      const Json& call = toolCalls(output)[i];
      const std::string where = "candidate " + index + ": tool call " + std::to_string(i) + " ";
      const std::string name = stringOf(protocol::memberOrNull(call, "name"));
      if (tools.count(name) == 0) {
        findings.push_back(where + "names undeclared tool " + quoted(name));
      }
      const std::string robot = stringOf(protocol::memberOrNull(call, "target_robot_name"));
      if (robots_json.is_array() && robots.count(robot) == 0) {
        findings.push_back(where + "targets unknown robot " + quoted(robot));
      }
    }
  }
  return findings;
}

}  // namespace

std::map<std::int64_t, const Json*> outputsBySlot(const Json& outputs) {
  std::map<std::int64_t, const Json*> slots;
  if (!outputs.is_array()) {
    return slots;
  }
  for (const Json& output : outputs) {
    const Json& index = protocol::memberOrNull(output, "candidate_index");
    slots[index.is_number_integer() ? index.get<std::int64_t>() : -1] = &output;
  }
  return slots;
}

const char* sayMatchName(SayMatch match) {
  switch (match) {
    case SayMatch::Equal:
      return "equal";
    case SayMatch::Normalised:
      return "normalised";
    case SayMatch::Different:
      return "different";
  }
  return "different";
}

std::string normaliseSay(std::string_view text) {
  std::string result;
  bool pending_space = false;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isspace(byte) != 0) {
      pending_space = !result.empty();
      continue;
    }
    if (pending_space) {
      result.push_back(' ');
      pending_space = false;
    }
    result.push_back(static_cast<char>(std::tolower(byte)));
  }
  return result;
}

std::string decisionKind(const Json& output) {
  if (stringOf(protocol::memberOrNull(output, "status")) == "error") {
    return "error";
  }
  const bool says =
      !stringOf(protocol::memberOrNull(protocol::memberOrNull(output, "output"), "say")).empty();
  const bool calls = toolCallCount(output) > 0;
  if (says && calls) {
    return "mixed";
  }
  return says ? "say" : calls ? "tool_calls" : "empty";
}

std::vector<std::string> StepComparison::allDifferences() const {
  std::vector<std::string> all;
  for (const auto& candidate : candidates) {
    all.insert(all.end(), candidate.differences.begin(), candidate.differences.end());
  }
  all.insert(all.end(), tool_findings.begin(), tool_findings.end());
  return all;
}

StepComparison compareDecisions(const Json& input, const Json& recorded, const Json& live) {
  StepComparison result;
  const auto recorded_slots = outputsBySlot(recorded);
  const auto live_slots = outputsBySlot(live);
  std::set<std::int64_t> indexes;
  for (const auto& [index, output] : recorded_slots) {
    indexes.insert(index);
  }
  for (const auto& [index, output] : live_slots) {
    indexes.insert(index);
  }
  for (std::int64_t index : indexes) {
    auto a = recorded_slots.find(index);
    auto b = live_slots.find(index);
    auto candidate = compareCandidate(index, a == recorded_slots.end() ? nullptr : a->second,
                                      b == live_slots.end() ? nullptr : b->second);
    result.match = result.match && candidate.match;
    result.say_normalised = result.say_normalised || candidate.say == SayMatch::Normalised;
    result.candidates.push_back(std::move(candidate));
  }
  result.tool_findings = checkToolCalls(input, live);
  result.match = result.match && result.tool_findings.empty();
  return result;
}

}  // namespace agentvcr::replay
