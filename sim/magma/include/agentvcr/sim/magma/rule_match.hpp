#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/sim/magma/script.hpp"
#include "agentvcr/sim/magma/template.hpp"

namespace agentvcr::sim::magma {

/// Contents longer than this never match a `regex` condition: libstdc++'s regex engine
/// recurses per character and would exhaust the stack on huge inputs.
inline constexpr std::size_t kMaxRegexSubject = 16 * 1024;

/// What rules look at, computed once per input. Holds a reference to the input, which must
/// outlive it.
class RuleInput {
 public:
  explicit RuleInput(const protocol::magma::AgentInput& input);

  const protocol::magma::AgentInput& input() const { return input_; }

  /// The decoded feedback of an env instruction (nullopt for a user instruction).
  const std::optional<protocol::EnvFeedback>& feedback() const { return feedback_; }

  /// `tools[].name` of the input.
  const std::set<std::string>& toolNames() const { return tool_names_; }

  /// `attributes.known_robots` (string items only).
  const std::vector<std::string>& knownRobots() const { return known_robots_; }

  /// Failed env feedbacks since the last USER history entry, this instruction included.
  std::int64_t stageFailures() const { return stage_failures_; }

  /// memory_list rules and USER history contents, where `memory_contains` looks.
  const std::vector<std::string>& memoryTexts() const { return memory_texts_; }

 private:
  const protocol::magma::AgentInput& input_;
  std::optional<protocol::EnvFeedback> feedback_;
  std::set<std::string> tool_names_;
  std::vector<std::string> known_robots_;
  std::int64_t stage_failures_ = 0;
  std::vector<std::string> memory_texts_;
};

/// Why a condition holds: the regex groups and the selected env line.
struct ConditionMatch {
  std::vector<std::string> captures;
  std::optional<std::size_t> outcome_index;  ///< into feedback()->outcomes
};

/// Whether `when` holds for this input. Never throws (a regex that throws does not match).
std::optional<ConditionMatch> matchCondition(const RuleCondition& when, const RuleInput& input);

/// A decision ready to become a candidate.
struct ChosenDecision {
  enum class Kind { Decision, Error };

  Kind kind = Kind::Decision;
  protocol::magma::AgentDecision decision;  ///< say or tool calls, never both
  protocol::magma::AgentError error;
  std::string output_raw;  ///< for an error: the step's raw output
  std::string rule_name;   ///< "default" when no rule applied
  std::size_t alternative = 0;
};

/// Expands one decision for this input, or nullopt when it cannot apply: a variable does not
/// resolve, a tool is not declared in the input's tools, a robot is not in known_robots
/// (when the input lists any), or repeat_previous has nothing to repeat.
std::optional<ChosenDecision> instantiateDecision(const DecisionTemplate& decision,
                                                  const TemplateContext& context,
                                                  const RuleInput& input);

/// The decision of candidate `candidate_index`: the first rule whose condition holds and whose
/// alternative (candidate_index mod n, or 0 in honoured greedy mode) instantiates, else the
/// script's default, else a neutral built-in say.
ChosenDecision chooseDecision(const Script& script, const RuleInput& input,
                              std::int64_t candidate_index);

}  // namespace agentvcr::sim::magma
