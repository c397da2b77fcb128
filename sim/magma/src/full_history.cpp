#include "agentvcr/sim/magma/full_history.hpp"

#include <algorithm>
#include <map>

#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::sim::magma {

namespace {

using protocol::Json;
using protocol::magma::InstructionType;

nlohmann::ordered_json callJson(const protocol::magma::ToolCall& call) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["name"] = call.name;
  out["arguments"] = nlohmann::ordered_json(call.arguments);
  return out;
}

const char* roleOf(const Json& author) {
  if (author == "USER") {
    return "user";
  }
  if (author == "SYSTEM") {
    return "env";
  }
  if (author == "MODEL") {
    return "assistant";
  }
  return "unknown";
}

}  // namespace

nlohmann::ordered_json modelTurn(const protocol::magma::AgentDecision& decision) {
  nlohmann::ordered_json turn = nlohmann::ordered_json::object();
  turn["say"] = decision.say;
  std::map<std::string, int> calls_per_robot;
  bool repeats = false;
  for (const auto& call : decision.tool_calls) {
    repeats = repeats || ++calls_per_robot[call.target_robot_name] > 1;
  }
  if (repeats) {
    nlohmann::ordered_json action = nlohmann::ordered_json::array();
    for (const auto& call : decision.tool_calls) {
      nlohmann::ordered_json item = nlohmann::ordered_json::object();
      item[call.target_robot_name] = callJson(call);
      action.push_back(std::move(item));
    }
    turn["action"] = std::move(action);
  } else {
    nlohmann::ordered_json action = nlohmann::ordered_json::object();
    for (const auto& call : decision.tool_calls) {
      action[call.target_robot_name] = callJson(call);
    }
    turn["action"] = std::move(action);
  }
  return turn;
}

std::string modelTurnText(const protocol::magma::AgentDecision& decision) {
  // json.dumps(..., ensure_ascii=False): Python's other defaults, raw UTF-8.
  return protocol::pythonJsonDumps(modelTurn(decision),
                                   {.spaced = true, .ensure_ascii = false, .allow_nan = true});
}

Json appendTurn(const Json& memory, const protocol::magma::Instruction& instruction,
                const std::string& model_text) {
  Json out = memory.is_object() ? memory : Json::object();
  Json& history = out["history"];
  if (!history.is_array()) {
    history = Json::array();
  }
  const char* author = instruction.type == InstructionType::User ? "USER" : "SYSTEM";
  history.push_back({{"author", author}, {"content", instruction.content}});
  history.push_back({{"author", "MODEL"}, {"content", model_text}});
  return out;
}

Json promptMessages(const Json& memory, const protocol::magma::Instruction& instruction) {
  Json messages = Json::array();
  const auto message = [](const char* role, const std::string& content) {
    return Json{{"role", role}, {"content", content}};
  };
  if (memory.is_object()) {
    const auto rules = memory.find("memory_list");
    if (rules != memory.end() && rules->is_array()) {
      for (const Json& rule : *rules) {
        if (rule.is_string()) {
          messages.push_back(message("system", rule.get<std::string>()));
        }
      }
    }
    const auto history = memory.find("history");
    if (history != memory.end() && history->is_array()) {
      for (const Json& entry : *history) {
        if (entry.is_object() && entry.contains("content") && entry["content"].is_string()) {
          messages.push_back(
              message(roleOf(entry.value("author", Json())), entry["content"].get<std::string>()));
        }
      }
    }
  }
  messages.push_back(
      message(instruction.type == InstructionType::User ? "user" : "env", instruction.content));
  return messages;
}

std::string renderPrompt(const Json& messages) {
  std::string prompt;
  for (const Json& message : messages) {
    prompt += message.value("role", std::string());
    prompt += ": ";
    prompt += message.value("content", std::string());
    prompt += '\n';
  }
  prompt += "assistant:";
  return prompt;
}

std::optional<std::string> checkMemoryShape(const protocol::magma::AgentInput& input,
                                            std::size_t index) {
  const std::string where = "inputs[" + std::to_string(index) + "].";
  const Json& memory = input.memory;
  if (const auto history = memory.find("history"); history != memory.end()) {
    if (!history->is_array() || !std::all_of(history->begin(), history->end(),
                                             [](const Json& entry) { return entry.is_object(); })) {
      return where + "memory.history must be a list of objects";
    }
  }
  if (const auto rules = memory.find("memory_list"); rules != memory.end()) {
    if (!rules->is_array() || !std::all_of(rules->begin(), rules->end(),
                                           [](const Json& rule) { return rule.is_string(); })) {
      return where + "memory.memory_list must be a list of strings";
    }
  }
  if (const auto summary = memory.find("summary");
      summary != memory.end() && !summary->is_string()) {
    return where + "memory.summary must be a string";
  }
  if (const auto mode = input.extra_keys.find("inference_mode");
      mode != input.extra_keys.end() && !mode->is_boolean()) {
    return where + "extra_keys.inference_mode must be a boolean";
  }
  return std::nullopt;
}

}  // namespace agentvcr::sim::magma
