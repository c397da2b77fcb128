#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentvcr::sim::magma {

/// What one robot reported after a batch of tool calls: one `infos` line.
struct RobotReport {
  std::string robot;
  std::string tool;  ///< the agent's call for that robot, or "action" when there was none
  bool succeeded = false;
  std::string message;
};

/// The result of executing one decision's tool calls, before BENCH turns it into env content.
struct ExecutionReport {
  std::vector<RobotReport> lines;  ///< in robot order; robots without a message are absent
  /// `{robot: {"name":..., "arguments":{...}}}` in robot order, the last call of each robot.
  nlohmann::ordered_json previous_tool_call = nlohmann::ordered_json::object();
  std::optional<std::string> failure_reason;  ///< the executor's failure reason, if any
};

/// The `"{robot}: {tool} {succeed|failed} with message: {message}"` line (§11.2 step 1;
/// the word is literally "succeed").
std::string formatInfosLine(const RobotReport& report);

/// The env payload exactly as BENCH builds it (magma-protocol.md §11.2 steps 1-6): `infos`
/// (the lines joined with "\n") and `previous_tool_call` when any line exists, then
/// `failure_reason`; `{"infos": "The action has completed.", "previous_tool_call": ...}` when
/// nothing was produced; `failure_reason` renamed to `error` (default text "The action
/// failed.") when there is no `infos`. Keys in that insertion order.
nlohmann::ordered_json buildEnvPayload(const ExecutionReport& report);

/// `json.dumps(buildEnvPayload(report))`: the `content` of the next `env` instruction.
std::string buildEnvContent(const ExecutionReport& report);

}  // namespace agentvcr::sim::magma
