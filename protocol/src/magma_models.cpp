// Readers and parsers of the inference models: AgentInput, AgentRequest, AgentDecision,
// ToolCall, AgentError, AgentOutput (magma-core protocol/agent.py).

#include <cstdint>
#include <set>

#include "agentvcr/protocol/magma.hpp"
#include "magma_readers.hpp"

namespace agentvcr::protocol::magma {
namespace detail {
namespace {

using protocol::detail::addValueError;
using protocol::detail::checkArray;
using protocol::detail::checkFreeObject;
using protocol::detail::checkFreeObjectList;
using protocol::detail::checkInt;
using protocol::detail::checkLiteral;
using protocol::detail::checkNullableString;
using protocol::detail::checkString;
using protocol::detail::childPath;
using protocol::detail::ModelReader;

std::optional<Instruction> readInstruction(const Json& value, const JsonPath& loc,
                                           Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  Instruction instruction;
  if (const Json* type = reader.required("type")) {
    if (auto text = checkLiteral(*type, reader.at("type"), {"user", "env"}, findings)) {
      instruction.type = *text == "user" ? InstructionType::User : InstructionType::Env;
    }
  }
  if (const Json* content = reader.required("content")) {
    if (auto text = checkString(*content, reader.at("content"), findings)) {
      instruction.content = std::move(*text);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return instruction;
}

std::optional<ToolCall> readToolCall(const Json& value, const JsonPath& loc, Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  ToolCall call;
  if (const Json* name = reader.required("name")) {
    if (auto text = checkString(*name, reader.at("name"), findings, 1)) {
      call.name = std::move(*text);
    }
  }
  if (const Json* arguments = reader.optional("arguments")) {
    if (auto object = checkFreeObject(*arguments, reader.at("arguments"), findings)) {
      call.arguments = std::move(*object);
    }
  }
  if (const Json* robot = reader.required("target_robot_name")) {
    if (auto text = checkString(*robot, reader.at("target_robot_name"), findings, 1)) {
      call.target_robot_name = std::move(*text);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return call;
}

}  // namespace

std::optional<AgentInput> readAgentInput(const Json& value, const JsonPath& loc,
                                         Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  AgentInput input;
  if (const Json* id = reader.required("id")) {
    if (auto number = checkInt(*id, reader.at("id"), findings)) {
      input.id = *number;
    }
  }
  if (const Json* instruction = reader.required("instruction")) {
    if (auto parsed = readInstruction(*instruction, reader.at("instruction"), findings)) {
      input.instruction = std::move(*parsed);
    }
  }
  if (const Json* tools = reader.optional("tools")) {
    if (auto list = checkFreeObjectList(*tools, reader.at("tools"), findings)) {
      input.tools = std::move(*list);
    }
  }
  if (const Json* attributes = reader.optional("attributes")) {
    if (auto object = checkFreeObject(*attributes, reader.at("attributes"), findings)) {
      input.attributes = std::move(*object);
    }
  }
  if (const Json* memory = reader.optional("memory")) {
    if (auto object = checkFreeObject(*memory, reader.at("memory"), findings)) {
      input.memory = std::move(*object);
    }
  }
  if (const Json* num_outputs = reader.optional("num_outputs")) {
    JsonPath at = reader.at("num_outputs");
    if (auto number = checkInt(*num_outputs, at, findings)) {
      if (*number > 0) {
        input.num_outputs = *number;
      } else {
        findings.add("greater_than", std::move(at), "Input should be greater than 0", *num_outputs);
      }
    }
  }
  if (const Json* extra_keys = reader.optional("extra_keys")) {
    if (auto object = checkFreeObject(*extra_keys, reader.at("extra_keys"), findings)) {
      input.extra_keys = std::move(*object);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return input;
}

std::optional<AgentDecision> readAgentDecision(const Json& value, const JsonPath& loc,
                                               Findings& findings,
                                               const ValidationOptions& options) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  AgentDecision decision;
  if (const Json* say = reader.optional("say")) {
    if (auto text = checkString(*say, reader.at("say"), findings)) {
      decision.say = std::move(*text);
    }
  }
  if (const Json* calls = reader.optional("tool_calls")) {
    JsonPath calls_loc = reader.at("tool_calls");
    if (checkArray(*calls, calls_loc, findings)) {
      for (std::size_t i = 0; i < calls->size(); ++i) {
        if (auto call = readToolCall((*calls)[i], childPath(calls_loc, i), findings)) {
          decision.tool_calls.push_back(std::move(*call));
        }
      }
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  if (options.exclusive_say_and_tool_calls && !decision.say.empty() &&
      !decision.tool_calls.empty()) {
    addValueError(findings, loc, "say and tool_calls are mutually exclusive", value);
    return std::nullopt;
  }
  return decision;
}

std::optional<AgentError> readAgentError(const Json& value, const JsonPath& loc,
                                         Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  AgentError error;
  if (const Json* code = reader.required("code")) {
    if (auto text = checkString(*code, reader.at("code"), findings, 1)) {
      error.code = std::move(*text);
    }
  }
  if (const Json* message = reader.required("message")) {
    if (auto text = checkString(*message, reader.at("message"), findings, 1)) {
      error.message = std::move(*text);
    }
  }
  if (const Json* component = reader.optional("component")) {
    if (auto text = checkNullableString(*component, reader.at("component"), findings)) {
      error.component = std::move(*text);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return error;
}

std::optional<AgentOutput> readAgentOutput(const Json& value, const JsonPath& loc,
                                           Findings& findings, const ValidationOptions& options) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  AgentOutput output;
  if (const Json* request_id = reader.required("request_id")) {
    if (auto text = checkString(*request_id, reader.at("request_id"), findings, 1)) {
      output.request_id = std::move(*text);
    }
  }
  if (const Json* source_id = reader.required("source_id")) {
    if (auto number = checkInt(*source_id, reader.at("source_id"), findings)) {
      output.source_id = *number;
    }
  }
  if (const Json* index = reader.required("candidate_index")) {
    JsonPath at = reader.at("candidate_index");
    if (auto number = checkInt(*index, at, findings)) {
      if (*number >= 0) {
        output.candidate_index = *number;
      } else {
        findings.add("greater_than_equal", std::move(at),
                     "Input should be greater than or equal to 0", *index);
      }
    }
  }
  std::optional<std::string> status;
  if (const Json* status_json = reader.required("status")) {
    status = checkLiteral(*status_json, reader.at("status"), {"completed", "error"}, findings);
    if (status) {
      output.status = *status == "completed" ? OutputStatus::Completed : OutputStatus::Error;
    }
  }
  if (const Json* memory = reader.required("memory")) {
    if (auto object = checkFreeObject(*memory, reader.at("memory"), findings)) {
      output.memory = std::move(*object);
    }
  }
  if (const Json* steps = reader.optional("internal_steps")) {
    if (auto list = checkFreeObjectList(*steps, reader.at("internal_steps"), findings)) {
      output.internal_steps = std::move(*list);
    }
  }
  const Json* decision = reader.optional("output");
  bool has_decision = decision != nullptr && !decision->is_null();
  if (has_decision) {
    output.output = readAgentDecision(*decision, reader.at("output"), findings, options);
  }
  const Json* error = reader.optional("error");
  bool has_error = error != nullptr && !error->is_null();
  if (has_error) {
    output.error = readAgentError(*error, reader.at("error"), findings);
  }
  reader.finish();

  // consistent_status: checked whenever the status itself is valid (Pydantic would wait for
  // every field; we report it alongside other findings).
  if (status == "completed") {
    constexpr const char* kMessage = "Completed candidates require a decision and no error";
    if (!has_decision) {
      addValueError(findings, reader.at("output"), kMessage, nullptr);
    }
    if (has_error) {
      addValueError(findings, reader.at("error"), kMessage, *error);
    }
  } else if (status == "error") {
    constexpr const char* kMessage = "Failed candidates require an error and no decision";
    if (has_decision) {
      addValueError(findings, reader.at("output"), kMessage, *decision);
    }
    if (!has_error) {
      addValueError(findings, reader.at("error"), kMessage, nullptr);
    }
  }
  if (findings.size() != before) {
    return std::nullopt;
  }
  return output;
}

}  // namespace detail

Parsed<AgentInput> parseAgentInput(const Json& body, const ValidationOptions& /*options*/) {
  detail::Findings findings;
  auto input = detail::readAgentInput(body, {}, findings);
  return detail::toParsed(std::move(input), findings);
}

Parsed<AgentRequest> parseAgentRequest(const Json& body, const ValidationOptions& /*options*/) {
  using protocol::detail::addValueError;
  using protocol::detail::childPath;

  detail::Findings findings;
  protocol::detail::ModelReader reader(body, {}, findings);
  AgentRequest request;
  if (const Json* request_id = reader.required("request_id")) {
    if (auto text =
            protocol::detail::checkString(*request_id, reader.at("request_id"), findings, 1)) {
      request.request_id = std::move(*text);
    }
  }
  if (const Json* inputs = reader.required("inputs")) {
    JsonPath inputs_loc = reader.at("inputs");
    if (protocol::detail::checkArray(*inputs, inputs_loc, findings)) {
      std::set<std::int64_t> seen;
      for (std::size_t i = 0; i < inputs->size(); ++i) {
        const Json& item = (*inputs)[i];
        JsonPath item_loc = childPath(inputs_loc, i);
        if (auto input = detail::readAgentInput(item, item_loc, findings)) {
          request.inputs.push_back(std::move(*input));
        }
        // unique_input_ids: every later occurrence of an id is reported at its own "id".
        if (item.is_object()) {
          auto id = item.find("id");
          std::optional<std::int64_t> number;
          if (id != item.end()) {
            number = protocol::detail::asInt64(*id);
          }
          if (number && !seen.insert(*number).second) {
            addValueError(findings, childPath(item_loc, "id"),
                          "Input ids must be unique within a request", *id);
          }
        }
      }
    }
  }
  reader.finish();
  return detail::toParsed(std::optional<AgentRequest>(std::move(request)), findings);
}

}  // namespace agentvcr::protocol::magma
