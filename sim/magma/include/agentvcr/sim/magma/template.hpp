#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/protocol/json_text.hpp"

/// Variables in script strings. `${NAME}` is replaced by its value; `$$` writes one `$`.
///
/// | variable          | value                                                             |
/// |-------------------|-------------------------------------------------------------------|
/// | `${robot}`        | `attributes.known_robots[0]`; `${robot:N}` the N-th robot           |
/// | `${match:N}`      | group N of the rule's regex (0 = whole match; "" if unmatched)     |
/// | `${content}`      | the instruction content                                           |
/// | `${candidate}`    | the candidate index                                               |
/// | `${attr:PATH}`    | `attributes` at a dotted path; numeric parts index lists, negative |
/// |                   | parts count from the end (`${attr:objects.-1}` = last object)     |
/// | `${outcome:KEY}`  | robot, tool or message of the env line the rule selected          |
/// |                   | (the first line when the rule has no `outcome` filter)            |
/// | `${arg}`          | first argument of that robot's previous_tool_call;                |
/// |                   | `${arg:NAME}` the named argument                                  |
///
/// A string that is exactly one variable takes the variable's JSON value (a list stays a
/// list); elsewhere non-string values are written as compact JSON. An unknown or unresolvable
/// variable makes the expansion fail, and the rule falls through.
namespace agentvcr::sim::magma {

/// What variables can refer to. Pointers may be null; nothing here is owned.
struct TemplateContext {
  std::string_view content;
  const protocol::Json* attributes = nullptr;
  std::vector<std::string> captures;                ///< regex groups, [0] = whole match
  const protocol::RobotOutcome* outcome = nullptr;  ///< the selected env line
  const protocol::Json* outcome_call = nullptr;     ///< {"name","arguments"} of that robot
  std::int64_t candidate_index = 0;
};

/// The value of one variable (the text between `${` and `}`), or nullopt.
std::optional<protocol::Json> resolveVariable(std::string_view name,
                                              const TemplateContext& context);

/// A string with every variable replaced, or nullopt when one does not resolve.
std::optional<std::string> expandText(std::string_view text, const TemplateContext& context);

/// A JSON value with every string expanded recursively (object keys are kept as written).
std::optional<protocol::Json> expandValue(const protocol::Json& value,
                                          const TemplateContext& context);

}  // namespace agentvcr::sim::magma
