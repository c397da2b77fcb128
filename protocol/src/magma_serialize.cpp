// Serialisation as the reference FastAPI servers emit it: keys in model order, defaults and
// nulls emitted, compact separators, raw UTF-8 (json.dumps(..., ensure_ascii=False,
// separators=(",", ":"))). Free objects are written with their members sorted by key.

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/magma.hpp"
#include "python_dump.hpp"

namespace agentvcr::protocol::magma {
namespace {

using Ordered = nlohmann::ordered_json;

Ordered orderedOptional(const std::optional<std::string>& text) {
  return text ? Ordered(*text) : Ordered(nullptr);
}

Ordered orderedDecision(const AgentDecision& decision) {
  Ordered calls = Ordered::array();
  for (const ToolCall& call : decision.tool_calls) {
    Ordered item = Ordered::object();
    item["name"] = call.name;
    item["arguments"] = Ordered(call.arguments);
    item["target_robot_name"] = call.target_robot_name;
    calls.push_back(std::move(item));
  }
  Ordered out = Ordered::object();
  out["say"] = decision.say;
  out["tool_calls"] = std::move(calls);
  return out;
}

Ordered orderedError(const AgentError& error) {
  Ordered out = Ordered::object();
  out["code"] = error.code;
  out["message"] = error.message;
  out["component"] = orderedOptional(error.component);
  return out;
}

Ordered orderedOutput(const AgentOutput& output) {
  Ordered out = Ordered::object();
  out["request_id"] = output.request_id;
  out["source_id"] = output.source_id;
  out["candidate_index"] = output.candidate_index;
  out["status"] = output.status == OutputStatus::Completed ? "completed" : "error";
  out["memory"] = Ordered(output.memory);
  out["internal_steps"] = Ordered(output.internal_steps);
  out["output"] = output.output ? orderedDecision(*output.output) : Ordered(nullptr);
  out["error"] = output.error ? orderedError(*output.error) : Ordered(nullptr);
  return out;
}

const char* instructionTypeName(InstructionType type) {
  return type == InstructionType::User ? "user" : "env";
}

}  // namespace

std::string serializeResponse(const AgentResponse& response) {
  std::string out = "[";
  for (std::size_t i = 0; i < response.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    protocol::detail::appendPythonJson(out, orderedOutput(response[i]), PythonJsonStyle{});
  }
  out += ']';
  return out;
}

std::string serializeOutput(const AgentOutput& output) {
  return pythonJsonDumps(orderedOutput(output));
}

std::string serializeInfo(const AgentInfo& info) {
  Ordered capabilities = Ordered::object();
  // The reference agents build {"inference": ..., ...}: inference first, then the rest in
  // byte order (std::map order).
  if (auto inference = info.capabilities.find("inference"); inference != info.capabilities.end()) {
    capabilities["inference"] = inference->second;
  }
  for (const auto& [name, enabled] : info.capabilities) {
    if (name != "inference") {
      capabilities[name] = enabled;
    }
  }
  Ordered out = Ordered::object();
  out["protocol_version"] = info.protocol_version;
  out["agent_id"] = info.agent_id;
  out["agent_version"] = info.agent_version;
  out["specialized_coaching"] = info.specialized_coaching;
  out["coaching_resume"] = info.coaching_resume;
  out["coaching_session_version"] = orderedOptional(info.coaching_session_version);
  out["coaching_unavailable_reason"] = orderedOptional(info.coaching_unavailable_reason);
  out["capabilities"] = std::move(capabilities);
  return pythonJsonDumps(out);
}

std::string serializeHealth(const AgentHealth& health) {
  Ordered out = Ordered::object();
  out["status"] = health.status;
  return pythonJsonDumps(out);
}

Json toJson(const AgentInput& input) {
  return Json{{"id", input.id},
              {"instruction",
               {{"type", instructionTypeName(input.instruction.type)},
                {"content", input.instruction.content}}},
              {"tools", input.tools},
              {"attributes", input.attributes},
              {"memory", input.memory},
              {"num_outputs", input.num_outputs},
              {"extra_keys", input.extra_keys}};
}

Json toJson(const AgentDecision& decision) {
  return Json(orderedDecision(decision));
}

Json toJson(const AgentOutput& output) {
  return Json(orderedOutput(output));
}

}  // namespace agentvcr::protocol::magma
