#include "agentvcr/sim/magma/scripted_agent.hpp"

#include <utility>

#include "agentvcr/protocol/fastapi_errors.hpp"
#include "agentvcr/sim/magma/full_history.hpp"
#include "agentvcr/sim/magma/rule_match.hpp"

namespace agentvcr::sim::magma {

namespace {

using protocol::Json;

protocol::HttpReply jsonReply(int status, std::string body) {
  protocol::HttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  return reply;
}

Json toolNames(const Json& tools) {
  Json names = Json::array();
  if (tools.is_array()) {
    for (const Json& tool : tools) {
      if (tool.is_object() && tool.contains("name") && tool["name"].is_string()) {
        names.push_back(tool["name"]);
      }
    }
  }
  return names;
}

bool nonEmptyString(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() && !it->get_ref<const std::string&>().empty();
}

/// The decision an `extra_keys.coaching` payload asks for (§9.4), or nullopt when invalid.
std::optional<protocol::magma::AgentDecision> coachedDecision(const Json& payload) {
  if (!payload.is_object()) {
    return std::nullopt;
  }
  protocol::magma::AgentDecision decision;
  if (payload.value("kind", Json()) == "replace_say" && payload.size() == 2 &&
      nonEmptyString(payload, "text")) {
    decision.say = payload["text"].get<std::string>();
    return decision;
  }
  if (payload.value("kind", Json()) != "replace_decision" || payload.size() != 2 ||
      !payload.contains("decision") || !payload["decision"].is_object()) {
    return std::nullopt;
  }
  const Json& wanted = payload["decision"];
  for (const auto& [key, value] : wanted.items()) {
    if (key != "say" && key != "tool_calls") {
      return std::nullopt;
    }
  }
  const Json say = wanted.value("say", Json(""));
  const Json calls = wanted.value("tool_calls", Json::array());
  if (!say.is_string() || !calls.is_array()) {
    return std::nullopt;
  }
  decision.say = say.get<std::string>();
  for (const Json& call : calls) {
    if (!call.is_object() || !nonEmptyString(call, "name") ||
        !nonEmptyString(call, "target_robot_name") ||
        !call.value("arguments", Json::object()).is_object()) {
      return std::nullopt;
    }
    decision.tool_calls.push_back({call["name"].get<std::string>(),
                                   call.value("arguments", Json::object()),
                                   call["target_robot_name"].get<std::string>()});
  }
  if (!decision.say.empty() && !decision.tool_calls.empty()) {
    return std::nullopt;  // the mock never mixes say and tool calls (§6)
  }
  return decision;
}

}  // namespace

ScriptedAgent::ScriptedAgent(Script script) : script_(std::move(script)) {}

ScriptedAgent::Load ScriptedAgent::fromJson(const Json& script) {
  Load load;
  ScriptLoad parsed = parseScript(script);
  if (!parsed.script) {
    load.error = std::move(parsed.error);
    return load;
  }
  load.agent.emplace(std::move(*parsed.script));
  return load;
}

ScriptedAgent::Load ScriptedAgent::fromText(std::string_view script_text) {
  Load load;
  ScriptLoad parsed = parseScriptText(script_text);
  if (!parsed.script) {
    load.error = std::move(parsed.error);
    return load;
  }
  load.agent.emplace(std::move(*parsed.script));
  return load;
}

protocol::HttpReply ScriptedAgent::health() const {
  return jsonReply(200, protocol::magma::serializeHealth(protocol::magma::AgentHealth{}));
}

protocol::HttpReply ScriptedAgent::info() const {
  return jsonReply(200, protocol::magma::serializeInfo(script_.info));
}

protocol::HttpReply ScriptedAgent::respond(std::string_view request_body) const {
  if (request_body.empty()) {
    return jsonReply(422, protocol::missingBodyErrorBody());
  }
  protocol::JsonParseResult parsed = protocol::parseJson(request_body);
  if (!parsed.value) {
    return jsonReply(422, protocol::jsonDecodeErrorBody(parsed.error));
  }
  protocol::Parsed<protocol::magma::AgentRequest> request =
      protocol::magma::parseAgentRequest(*parsed.value);
  if (!request.ok()) {
    return jsonReply(422, protocol::validationErrorBody(request.findings));
  }
  std::int64_t total = 0;
  for (std::size_t i = 0; i < request.value->inputs.size(); ++i) {
    const protocol::magma::AgentInput& input = request.value->inputs[i];
    if (auto problem = checkMemoryShape(input, i)) {
      return jsonReply(422, protocol::detailBody(*problem));
    }
    total += input.num_outputs > kMaxCandidatesPerRequest ? kMaxCandidatesPerRequest + 1
                                                          : input.num_outputs;
    if (total > kMaxCandidatesPerRequest) {
      return jsonReply(422, protocol::detailBody("A request may ask for at most " +
                                                 std::to_string(kMaxCandidatesPerRequest) +
                                                 " candidates in total"));
    }
  }
  return jsonReply(200, protocol::magma::serializeResponse(answer(*request.value)));
}

protocol::magma::AgentResponse ScriptedAgent::answer(
    const protocol::magma::AgentRequest& request) const {
  protocol::magma::AgentResponse outputs;
  for (const protocol::magma::AgentInput& input : request.inputs) {
    const RuleInput rule_input(input);  // decoded once for all candidates of the input
    for (std::int64_t k = 0; k < input.num_outputs; ++k) {
      outputs.push_back(candidateFor(request.request_id, rule_input, k));
    }
  }
  return outputs;
}

protocol::magma::AgentOutput ScriptedAgent::candidate(const std::string& request_id,
                                                      const protocol::magma::AgentInput& input,
                                                      std::int64_t candidate_index) const {
  return candidateFor(request_id, RuleInput(input), candidate_index);
}

protocol::magma::AgentOutput ScriptedAgent::candidateFor(const std::string& request_id,
                                                         const RuleInput& rule_input,
                                                         std::int64_t candidate_index) const {
  const protocol::magma::AgentInput& input = rule_input.input();
  protocol::magma::AgentOutput output;
  output.request_id = request_id;
  output.source_id = input.id;
  output.candidate_index = candidate_index;

  const Json messages = promptMessages(input.memory, input.instruction);
  Json input_elements = {{"messages", messages},
                         {"tools", toolNames(input.tools)},
                         {"candidate_index", candidate_index}};
  std::string origin = "model";
  std::optional<protocol::magma::AgentDecision> decision;
  std::optional<protocol::magma::AgentError> error;
  std::string output_raw;

  const auto coaching = input.extra_keys.find("coaching");
  if (script_.coaching_payloads && coaching != input.extra_keys.end()) {
    origin = "coaching";
    decision = coachedDecision(*coaching);
    input_elements["coaching"] = *coaching;
    if (!decision) {
      error = protocol::magma::AgentError{
          "invalid_output", "The coaching payload is not a valid decision.", script_.component};
      output_raw = coaching->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
  } else {
    ChosenDecision chosen = chooseDecision(script_, rule_input, candidate_index);
    input_elements["rule"] = chosen.rule_name;
    input_elements["alternative"] = chosen.alternative;
    if (chosen.kind == ChosenDecision::Kind::Decision) {
      decision = std::move(chosen.decision);
    } else {
      error = std::move(chosen.error);
      output_raw = std::move(chosen.output_raw);
    }
  }

  if (decision) {
    output_raw = modelTurnText(*decision);
    output.status = protocol::magma::OutputStatus::Completed;
    output.memory = appendTurn(input.memory, input.instruction, output_raw);
    output.output = std::move(decision);
  } else {
    output.status = protocol::magma::OutputStatus::Error;
    output.memory = input.memory;
    output.error = std::move(error);
  }
  output.internal_steps = Json::array({Json{{"id", "step-0"},
                                            {"component", script_.component},
                                            {"origin", origin},
                                            {"full_prompt", renderPrompt(messages)},
                                            {"input_elements", std::move(input_elements)},
                                            {"output_raw", std::move(output_raw)}}});
  return output;
}

}  // namespace agentvcr::sim::magma
