#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"

/// The script of the scripted MAGMA agent (`agentvcr mock magma --script FILE`).
///
/// A script is one JSON object; unknown keys are rejected everywhere so that typos fail at
/// start-up. The full format, with examples, is in fixtures/demo/README.md:
///
///     {"agent": {"agent_id": "...", "agent_version": "...", "capabilities": {...},
///                "specialized_coaching": [], "coaching_resume": false,
///                "coaching_session_version": null, "coaching_unavailable_reason": "..."},
///      "component": "scripted",          // InternalStep.component
///      "honour_inference_mode": false,   // true: inference_mode=true -> alternative 0 for all
///      "coaching_payloads": false,       // true: obey extra_keys.coaching replace_say/_decision
///      "rules": [{"name": "...", "when": {...}, "then": DECISION}, ...],
///      "default": DECISION}              // a say or an error; used when no rule applies
///
/// `when` (every given key must hold): `type` ("user"|"env"), `contains` (substring of the
/// content), `regex` (ECMAScript, searched in the content; groups become ${match:N}),
/// `ignore_case`, `env` ("any_failure"|"all_succeeded"|"error_present"), `outcome`
/// ({robot, tool, succeeded, message_contains}: some infos line matches them all),
/// `memory_contains` (substring of a memory_list rule or a USER history entry),
/// `max_stage_failures` (failed env feedbacks since the last USER entry, this one included).
///
/// DECISION is one of `{"say": TEXT}`, `{"tool_calls": [{"name", "arguments", "robot"}]}`
/// (robot defaults to "${robot}"), `{"repeat_previous": true}` (re-issue previous_tool_call),
/// `{"error": {"code", "message", "component"}, "output_raw": TEXT}`, or
/// `{"alternatives": [DECISION, ...]}` where candidate k takes alternative k mod n.
/// Strings may hold variables, see template.hpp.
namespace agentvcr::sim::magma {

enum class EnvCondition { AnyFailure, AllSucceeded, ErrorPresent };

/// Selects an `infos` line of env feedback; every given field must match.
struct OutcomeFilter {
  std::optional<std::string> robot;
  std::optional<std::string> tool;
  std::optional<bool> succeeded;
  std::optional<std::string> message_contains;
};

/// The `when` of a rule.
struct RuleCondition {
  std::optional<protocol::magma::InstructionType> type;
  std::optional<std::string> contains;
  std::optional<std::string> regex_source;
  std::optional<std::regex> regex;  ///< compiled from regex_source
  bool ignore_case = false;
  std::optional<EnvCondition> env;
  std::optional<OutcomeFilter> outcome;
  std::optional<std::string> memory_contains;
  std::optional<std::int64_t> max_stage_failures;
};

/// One tool call of a decision; every string may hold variables.
struct ToolCallTemplate {
  std::string name;
  protocol::Json arguments = protocol::Json::object();
  std::string robot = "${robot}";
};

/// One decision of a rule, before variables are expanded.
struct DecisionTemplate {
  enum class Kind { Say, ToolCalls, RepeatPrevious, Error };

  Kind kind = Kind::Say;
  std::string say;
  std::vector<ToolCallTemplate> tool_calls;
  std::string error_code;
  std::string error_message;
  std::optional<std::string> error_component;
  std::string output_raw;  ///< the error candidate's InternalStep.output_raw
};

struct Rule {
  std::string name;
  RuleCondition when;
  std::vector<DecisionTemplate> alternatives;  ///< never empty
};

struct Script {
  protocol::magma::AgentInfo info;
  std::string component = "scripted";
  bool honour_inference_mode = false;
  bool coaching_payloads = false;
  std::vector<Rule> rules;
  DecisionTemplate fallback;  ///< the `default` decision: a say or an error
};

/// A loaded script, or why it is not one (the JSON pointer of the culprit and a sentence).
struct ScriptLoad {
  std::optional<Script> script;
  std::string error;
};

/// The identity used when the script has no `agent` object.
protocol::magma::AgentInfo defaultScriptedInfo();

/// Loads and checks a script document. Never throws.
ScriptLoad parseScript(const protocol::Json& document);

/// parseJson + parseScript.
ScriptLoad parseScriptText(std::string_view text);

}  // namespace agentvcr::sim::magma
