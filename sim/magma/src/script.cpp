#include "agentvcr/sim/magma/script.hpp"

#include <initializer_list>
#include <string_view>

namespace agentvcr::sim::magma {

namespace {

using protocol::Json;

/// Reads one script object, recording the first error with its JSON pointer.
class Reader {
 public:
  explicit Reader(std::string& error) : error_(error) {}

  bool fail(const std::string& where, std::string_view what) {
    if (error_.empty()) {
      error_ = (where.empty() ? std::string("/") : where) + ": " + std::string(what);
    }
    return false;
  }

  bool onlyKeys(const Json& object, const std::string& where,
                std::initializer_list<std::string_view> allowed) {
    for (const auto& [key, value] : object.items()) {
      bool known = false;
      for (std::string_view name : allowed) {
        known = known || key == name;
      }
      if (!known) {
        return fail(where + "/" + key, "unknown key");
      }
    }
    return true;
  }

  bool object(const Json& value, const std::string& where) {
    return value.is_object() || fail(where, "expected an object");
  }

  bool string(const Json& object, std::string_view key, const std::string& where, std::string& out,
              bool non_empty = false) {
    const auto it = object.find(key);
    if (it == object.end()) {
      return true;
    }
    if (!it->is_string()) {
      return fail(where + "/" + std::string(key), "expected a string");
    }
    out = it->get<std::string>();
    if (non_empty && out.empty()) {
      return fail(where + "/" + std::string(key), "must not be empty");
    }
    return true;
  }

  bool optionalString(const Json& object, std::string_view key, const std::string& where,
                      std::optional<std::string>& out) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
      return true;
    }
    if (!it->is_string()) {
      return fail(where + "/" + std::string(key), "expected a string or null");
    }
    out = it->get<std::string>();
    return true;
  }

  bool boolean(const Json& object, std::string_view key, const std::string& where, bool& out) {
    const auto it = object.find(key);
    if (it == object.end()) {
      return true;
    }
    if (!it->is_boolean()) {
      return fail(where + "/" + std::string(key), "expected a boolean");
    }
    out = it->get<bool>();
    return true;
  }

 private:
  std::string& error_;
};

bool readInfo(Reader& reader, const Json& value, const std::string& where,
              protocol::magma::AgentInfo& info) {
  if (!reader.object(value, where) ||
      !reader.onlyKeys(
          value, where,
          {"agent_id", "agent_version", "capabilities", "specialized_coaching", "coaching_resume",
           "coaching_session_version", "coaching_unavailable_reason"}) ||
      !reader.string(value, "agent_id", where, info.agent_id, true) ||
      !reader.string(value, "agent_version", where, info.agent_version, true) ||
      !reader.boolean(value, "coaching_resume", where, info.coaching_resume)) {
    return false;
  }
  if (value.contains("coaching_session_version")) {
    info.coaching_session_version.reset();
    if (!reader.optionalString(value, "coaching_session_version", where,
                               info.coaching_session_version)) {
      return false;
    }
  }
  if (value.contains("coaching_unavailable_reason")) {
    info.coaching_unavailable_reason.reset();
    if (!reader.optionalString(value, "coaching_unavailable_reason", where,
                               info.coaching_unavailable_reason)) {
      return false;
    }
  }
  if (const auto it = value.find("specialized_coaching"); it != value.end()) {
    if (!it->is_array()) {
      return reader.fail(where + "/specialized_coaching", "expected a list of strings");
    }
    info.specialized_coaching.clear();
    for (const Json& kind : *it) {
      if (!kind.is_string()) {
        return reader.fail(where + "/specialized_coaching", "expected a list of strings");
      }
      info.specialized_coaching.push_back(kind.get<std::string>());
    }
  }
  if (const auto it = value.find("capabilities"); it != value.end()) {
    if (!it->is_object()) {
      return reader.fail(where + "/capabilities", "expected an object of booleans");
    }
    info.capabilities.clear();
    for (const auto& [name, enabled] : it->items()) {
      if (!enabled.is_boolean()) {
        return reader.fail(where + "/capabilities/" + name, "expected a boolean");
      }
      info.capabilities[name] = enabled.get<bool>();
    }
  }
  return true;
}

bool readOutcome(Reader& reader, const Json& value, const std::string& where,
                 OutcomeFilter& filter) {
  if (!reader.object(value, where) ||
      !reader.onlyKeys(value, where, {"robot", "tool", "succeeded", "message_contains"}) ||
      !reader.optionalString(value, "robot", where, filter.robot) ||
      !reader.optionalString(value, "tool", where, filter.tool) ||
      !reader.optionalString(value, "message_contains", where, filter.message_contains)) {
    return false;
  }
  if (const auto it = value.find("succeeded"); it != value.end()) {
    if (!it->is_boolean()) {
      return reader.fail(where + "/succeeded", "expected a boolean");
    }
    filter.succeeded = it->get<bool>();
  }
  return true;
}

bool readCondition(Reader& reader, const Json& value, const std::string& where,
                   RuleCondition& when) {
  if (!reader.object(value, where) ||
      !reader.onlyKeys(value, where,
                       {"type", "contains", "regex", "ignore_case", "env", "outcome",
                        "memory_contains", "max_stage_failures"}) ||
      !reader.optionalString(value, "contains", where, when.contains) ||
      !reader.optionalString(value, "regex", where, when.regex_source) ||
      !reader.boolean(value, "ignore_case", where, when.ignore_case) ||
      !reader.optionalString(value, "memory_contains", where, when.memory_contains)) {
    return false;
  }
  if (const auto it = value.find("type"); it != value.end()) {
    if (*it == "user") {
      when.type = protocol::magma::InstructionType::User;
    } else if (*it == "env") {
      when.type = protocol::magma::InstructionType::Env;
    } else {
      return reader.fail(where + "/type", "expected \"user\" or \"env\"");
    }
  }
  if (const auto it = value.find("env"); it != value.end()) {
    if (*it == "any_failure") {
      when.env = EnvCondition::AnyFailure;
    } else if (*it == "all_succeeded") {
      when.env = EnvCondition::AllSucceeded;
    } else if (*it == "error_present") {
      when.env = EnvCondition::ErrorPresent;
    } else {
      return reader.fail(where + "/env",
                         "expected \"any_failure\", \"all_succeeded\" or \"error_present\"");
    }
  }
  if (const auto it = value.find("outcome"); it != value.end()) {
    when.outcome.emplace();
    if (!readOutcome(reader, *it, where + "/outcome", *when.outcome)) {
      return false;
    }
  }
  if (const auto it = value.find("max_stage_failures"); it != value.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0) {
      return reader.fail(where + "/max_stage_failures", "expected a non-negative integer");
    }
    when.max_stage_failures = it->get<std::int64_t>();
  }
  if ((when.env || when.outcome) && when.type == protocol::magma::InstructionType::User) {
    return reader.fail(where, "env and outcome conditions need type \"env\"");
  }
  if (when.regex_source) {
    // Start-up only: a bad pattern is a script error, reported as a value.
    try {
      auto flags = std::regex::ECMAScript;
      if (when.ignore_case) {
        flags |= std::regex::icase;
      }
      when.regex.emplace(*when.regex_source, flags);
    } catch (const std::regex_error& error) {
      return reader.fail(where + "/regex", std::string("invalid regex: ") + error.what());
    }
  }
  return true;
}

bool readToolCall(Reader& reader, const Json& value, const std::string& where,
                  ToolCallTemplate& call) {
  if (!reader.object(value, where) ||
      !reader.onlyKeys(value, where, {"name", "arguments", "robot"})) {
    return false;
  }
  if (!value.contains("name")) {
    return reader.fail(where + "/name", "required");
  }
  if (!reader.string(value, "name", where, call.name, true) ||
      !reader.string(value, "robot", where, call.robot, true)) {
    return false;
  }
  if (const auto it = value.find("arguments"); it != value.end()) {
    if (!it->is_object()) {
      return reader.fail(where + "/arguments", "expected an object");
    }
    call.arguments = *it;
  }
  return true;
}

bool readDecision(Reader& reader, const Json& value, const std::string& where,
                  DecisionTemplate& decision) {
  if (!reader.object(value, where) ||
      !reader.onlyKeys(value, where,
                       {"say", "tool_calls", "repeat_previous", "error", "output_raw"})) {
    return false;
  }
  const int kinds = static_cast<int>(value.contains("say")) +
                    static_cast<int>(value.contains("tool_calls")) +
                    static_cast<int>(value.contains("repeat_previous")) +
                    static_cast<int>(value.contains("error"));
  if (kinds != 1) {
    return reader.fail(where,
                       "a decision has exactly one of say, tool_calls, repeat_previous, error");
  }
  if (value.contains("output_raw") && !value.contains("error")) {
    return reader.fail(where + "/output_raw", "only an error decision has output_raw");
  }
  if (value.contains("say")) {
    decision.kind = DecisionTemplate::Kind::Say;
    return reader.string(value, "say", where, decision.say);
  }
  if (value.contains("repeat_previous")) {
    decision.kind = DecisionTemplate::Kind::RepeatPrevious;
    if (value["repeat_previous"] != true) {
      return reader.fail(where + "/repeat_previous", "expected true");
    }
    return true;
  }
  if (value.contains("tool_calls")) {
    decision.kind = DecisionTemplate::Kind::ToolCalls;
    const Json& calls = value["tool_calls"];
    if (!calls.is_array() || calls.empty()) {
      return reader.fail(where + "/tool_calls", "expected a non-empty list");
    }
    for (std::size_t i = 0; i < calls.size(); ++i) {
      ToolCallTemplate call;
      if (!readToolCall(reader, calls[i], where + "/tool_calls/" + std::to_string(i), call)) {
        return false;
      }
      decision.tool_calls.push_back(std::move(call));
    }
    return true;
  }
  decision.kind = DecisionTemplate::Kind::Error;
  const Json& error = value["error"];
  const std::string error_where = where + "/error";
  if (!reader.object(error, error_where) ||
      !reader.onlyKeys(error, error_where, {"code", "message", "component"})) {
    return false;
  }
  if (!error.contains("code") || !error.contains("message")) {
    return reader.fail(error_where, "code and message are required");
  }
  return reader.string(error, "code", error_where, decision.error_code, true) &&
         reader.string(error, "message", error_where, decision.error_message, true) &&
         reader.optionalString(error, "component", error_where, decision.error_component) &&
         reader.string(value, "output_raw", where, decision.output_raw);
}

bool readAlternatives(Reader& reader, const Json& value, const std::string& where,
                      std::vector<DecisionTemplate>& alternatives) {
  if (value.is_object() && value.contains("alternatives")) {
    if (value.size() != 1) {
      return reader.fail(where, "alternatives stand alone");
    }
    const Json& list = value["alternatives"];
    if (!list.is_array() || list.empty()) {
      return reader.fail(where + "/alternatives", "expected a non-empty list");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      DecisionTemplate decision;
      if (!readDecision(reader, list[i], where + "/alternatives/" + std::to_string(i), decision)) {
        return false;
      }
      alternatives.push_back(std::move(decision));
    }
    return true;
  }
  DecisionTemplate decision;
  if (!readDecision(reader, value, where, decision)) {
    return false;
  }
  alternatives.push_back(std::move(decision));
  return true;
}

bool readRule(Reader& reader, const Json& value, const std::string& where, Rule& rule) {
  if (!reader.object(value, where) || !reader.onlyKeys(value, where, {"name", "when", "then"}) ||
      !reader.string(value, "name", where, rule.name)) {
    return false;
  }
  if (!value.contains("then")) {
    return reader.fail(where + "/then", "required");
  }
  if (const auto it = value.find("when"); it != value.end()) {
    if (!readCondition(reader, *it, where + "/when", rule.when)) {
      return false;
    }
  }
  return readAlternatives(reader, value["then"], where + "/then", rule.alternatives);
}

}  // namespace

protocol::magma::AgentInfo defaultScriptedInfo() {
  protocol::magma::AgentInfo info;
  info.agent_id = "agentvcr-scripted";
  info.agent_version = "0.1.0";
  info.coaching_unavailable_reason = "Coaching is not available in the scripted agent";
  info.capabilities = {{"inference", true}, {"coaching", false}};
  return info;
}

ScriptLoad parseScript(const protocol::Json& document) {
  ScriptLoad load;
  Reader reader(load.error);
  Script script;
  script.info = defaultScriptedInfo();
  script.fallback.say = "I do not know how to help with that.";
  if (!reader.object(document, "") ||
      !reader.onlyKeys(document, "",
                       {"agent", "component", "honour_inference_mode", "coaching_payloads", "rules",
                        "default"}) ||
      !reader.string(document, "component", "", script.component, true) ||
      !reader.boolean(document, "honour_inference_mode", "", script.honour_inference_mode) ||
      !reader.boolean(document, "coaching_payloads", "", script.coaching_payloads)) {
    return load;
  }
  if (const auto it = document.find("agent"); it != document.end()) {
    if (!readInfo(reader, *it, "/agent", script.info)) {
      return load;
    }
  }
  if (const auto it = document.find("rules"); it != document.end()) {
    if (!it->is_array()) {
      reader.fail("/rules", "expected a list");
      return load;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      Rule rule;
      const std::string where = "/rules/" + std::to_string(i);
      if (!readRule(reader, (*it)[i], where, rule)) {
        return load;
      }
      if (rule.name.empty()) {
        rule.name = "rule-" + std::to_string(i);
      }
      script.rules.push_back(std::move(rule));
    }
  }
  if (const auto it = document.find("default"); it != document.end()) {
    DecisionTemplate fallback;
    if (!readDecision(reader, *it, "/default", fallback)) {
      return load;
    }
    if (fallback.kind != DecisionTemplate::Kind::Say &&
        fallback.kind != DecisionTemplate::Kind::Error) {
      reader.fail("/default", "the default decision is a say or an error");
      return load;
    }
    script.fallback = std::move(fallback);
  }
  load.script = std::move(script);
  return load;
}

ScriptLoad parseScriptText(std::string_view text) {
  protocol::JsonParseResult parsed = protocol::parseJson(text);
  if (!parsed.value) {
    ScriptLoad load;
    load.error =
        "invalid JSON at byte " + std::to_string(parsed.error.offset) + ": " + parsed.error.message;
    return load;
  }
  return parseScript(*parsed.value);
}

}  // namespace agentvcr::sim::magma
