#include "agentvcr/sim/magma/env_payload.hpp"

#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::sim::magma {

std::string formatInfosLine(const RobotReport& report) {
  return report.robot + ": " + report.tool + (report.succeeded ? " succeed" : " failed") +
         " with message: " + report.message;
}

nlohmann::ordered_json buildEnvPayload(const ExecutionReport& report) {
  nlohmann::ordered_json payload = nlohmann::ordered_json::object();
  if (!report.lines.empty()) {
    std::string infos;
    for (const RobotReport& line : report.lines) {
      if (!infos.empty()) {
        infos += '\n';
      }
      infos += formatInfosLine(line);
    }
    payload["infos"] = infos;
    payload["previous_tool_call"] = report.previous_tool_call;
  }
  if (report.failure_reason) {
    payload["failure_reason"] = *report.failure_reason;
  }
  if (payload.empty()) {
    payload["infos"] = "The action has completed.";
    payload["previous_tool_call"] = report.previous_tool_call;
  }
  if (!payload.contains("infos") && !payload.contains("error")) {
    std::string reason = payload.value("failure_reason", std::string());
    payload.erase("failure_reason");
    payload["error"] = reason.empty() ? std::string("The action failed.") : reason;
  }
  return payload;
}

std::string buildEnvContent(const ExecutionReport& report) {
  return protocol::pythonJsonDumps(buildEnvPayload(report), protocol::kPythonDefaultStyle);
}

}  // namespace agentvcr::sim::magma
