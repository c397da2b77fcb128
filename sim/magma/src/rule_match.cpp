#include "agentvcr/sim/magma/rule_match.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace agentvcr::sim::magma {

namespace {

using protocol::Json;
using protocol::magma::InstructionType;

bool containsText(std::string_view haystack, std::string_view needle, bool ignore_case) {
  if (!ignore_case) {
    return haystack.find(needle) != std::string_view::npos;
  }
  const auto equal = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), equal) !=
         haystack.end();
}

bool outcomeMatches(const OutcomeFilter& filter, const protocol::RobotOutcome& outcome) {
  return (!filter.robot || *filter.robot == outcome.robot) &&
         (!filter.tool || *filter.tool == outcome.tool) &&
         (!filter.succeeded || *filter.succeeded == outcome.succeeded) &&
         (!filter.message_contains ||
          outcome.message.find(*filter.message_contains) != std::string::npos);
}

bool envConditionHolds(EnvCondition condition, const protocol::EnvFeedback& feedback) {
  switch (condition) {
    case EnvCondition::AnyFailure:
      return feedback.anyFailure();
    case EnvCondition::AllSucceeded:
      return feedback.is_json_object && !feedback.anyFailure();
    case EnvCondition::ErrorPresent:
      return feedback.error.has_value() || feedback.failure_reason.has_value();
  }
  return false;
}

/// Regex search that never throws and never recurses over huge subjects.
std::optional<std::vector<std::string>> searchRegex(const std::regex& regex,
                                                    const std::string& subject) {
  if (subject.size() > kMaxRegexSubject) {
    return std::nullopt;
  }
  try {
    std::smatch match;
    if (!std::regex_search(subject, match, regex)) {
      return std::nullopt;
    }
    std::vector<std::string> captures;
    captures.reserve(match.size());
    for (const auto& group : match) {
      captures.push_back(group.matched ? group.str() : std::string());
    }
    return captures;
  } catch (const std::regex_error&) {
    return std::nullopt;  // error_complexity / error_stack: treated as no match
  }
}

bool robotAllowed(const RuleInput& input, const std::string& robot) {
  const auto& robots = input.knownRobots();
  return !robot.empty() &&
         (robots.empty() || std::find(robots.begin(), robots.end(), robot) != robots.end());
}

bool greedy(const Script& script, const protocol::magma::AgentInput& input) {
  if (!script.honour_inference_mode || !input.extra_keys.is_object()) {
    return false;
  }
  const auto it = input.extra_keys.find("inference_mode");
  return it != input.extra_keys.end() && *it == true;
}

TemplateContext makeContext(const RuleInput& input, ConditionMatch match,
                            std::int64_t candidate_index) {
  TemplateContext context;
  context.content = input.input().instruction.content;
  context.attributes = &input.input().attributes;
  context.captures = std::move(match.captures);
  context.candidate_index = candidate_index;
  const auto& feedback = input.feedback();
  if (!feedback) {
    return context;
  }
  std::optional<std::size_t> index = match.outcome_index;
  if (!index && !feedback->outcomes.empty()) {
    index = 0;
  }
  if (index && *index < feedback->outcomes.size()) {
    context.outcome = &feedback->outcomes[*index];
  }
  const Json& calls = feedback->previous_tool_call;
  if (calls.is_object() && !calls.empty()) {
    const auto it = context.outcome != nullptr ? calls.find(context.outcome->robot) : calls.end();
    context.outcome_call = it != calls.end() ? &*it : &calls.begin().value();
  }
  return context;
}

}  // namespace

RuleInput::RuleInput(const protocol::magma::AgentInput& input) : input_(input) {
  if (input.instruction.type == InstructionType::Env) {
    feedback_ = protocol::decodeEnvFeedback(input.instruction.content);
  }
  if (input.tools.is_array()) {
    for (const Json& tool : input.tools) {
      if (tool.is_object()) {
        const auto name = tool.find("name");
        if (name != tool.end() && name->is_string()) {
          tool_names_.insert(name->get<std::string>());
        }
      }
    }
  }
  if (input.attributes.is_object()) {
    const auto robots = input.attributes.find("known_robots");
    if (robots != input.attributes.end() && robots->is_array()) {
      for (const Json& robot : *robots) {
        if (robot.is_string()) {
          known_robots_.push_back(robot.get<std::string>());
        }
      }
    }
  }
  if (input.memory.is_object()) {
    const auto rules = input.memory.find("memory_list");
    if (rules != input.memory.end() && rules->is_array()) {
      for (const Json& rule : *rules) {
        if (rule.is_string()) {
          memory_texts_.push_back(rule.get<std::string>());
        }
      }
    }
    const auto history = input.memory.find("history");
    if (history != input.memory.end() && history->is_array()) {
      for (const Json& entry : *history) {
        if (!entry.is_object()) {
          continue;
        }
        const auto author = entry.find("author");
        const auto content = entry.find("content");
        if (author == entry.end() || content == entry.end() || !content->is_string()) {
          continue;
        }
        if (*author == "USER") {
          memory_texts_.push_back(content->get<std::string>());
          stage_failures_ = 0;
        } else if (*author == "SYSTEM" &&
                   protocol::decodeEnvFeedback(content->get<std::string>()).anyFailure()) {
          ++stage_failures_;
        }
      }
    }
  }
  if (input.instruction.type == InstructionType::User) {
    stage_failures_ = 0;
  } else if (feedback_ && feedback_->anyFailure()) {
    ++stage_failures_;
  }
}

std::optional<ConditionMatch> matchCondition(const RuleCondition& when, const RuleInput& input) {
  const auto& instruction = input.input().instruction;
  if (when.type && *when.type != instruction.type) {
    return std::nullopt;
  }
  if (when.contains && !containsText(instruction.content, *when.contains, when.ignore_case)) {
    return std::nullopt;
  }
  if (when.memory_contains) {
    const auto& texts = input.memoryTexts();
    const bool found = std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
      return containsText(text, *when.memory_contains, when.ignore_case);
    });
    if (!found) {
      return std::nullopt;
    }
  }
  if (when.max_stage_failures && input.stageFailures() > *when.max_stage_failures) {
    return std::nullopt;
  }
  ConditionMatch match;
  if (when.env || when.outcome) {
    const auto& feedback = input.feedback();
    if (!feedback) {
      return std::nullopt;
    }
    if (when.env && !envConditionHolds(*when.env, *feedback)) {
      return std::nullopt;
    }
    if (when.outcome) {
      const auto& outcomes = feedback->outcomes;
      const auto it = std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& outcome) {
        return outcomeMatches(*when.outcome, outcome);
      });
      if (it == outcomes.end()) {
        return std::nullopt;
      }
      match.outcome_index = static_cast<std::size_t>(it - outcomes.begin());
    }
  }
  if (when.regex) {
    auto captures = searchRegex(*when.regex, instruction.content);
    if (!captures) {
      return std::nullopt;
    }
    match.captures = std::move(*captures);
  }
  return match;
}

std::optional<ChosenDecision> instantiateDecision(const DecisionTemplate& decision,
                                                  const TemplateContext& context,
                                                  const RuleInput& input) {
  ChosenDecision chosen;
  switch (decision.kind) {
    case DecisionTemplate::Kind::Say: {
      auto say = expandText(decision.say, context);
      if (!say) {
        return std::nullopt;
      }
      chosen.decision.say = std::move(*say);
      return chosen;
    }
    case DecisionTemplate::Kind::ToolCalls: {
      for (const ToolCallTemplate& call : decision.tool_calls) {
        auto name = expandText(call.name, context);
        auto robot = expandText(call.robot, context);
        auto arguments = expandValue(call.arguments, context);
        if (!name || !robot || !arguments || !arguments->is_object() ||
            input.toolNames().count(*name) == 0 || !robotAllowed(input, *robot)) {
          return std::nullopt;
        }
        chosen.decision.tool_calls.push_back(
            {std::move(*name), std::move(*arguments), std::move(*robot)});
      }
      return chosen;
    }
    case DecisionTemplate::Kind::RepeatPrevious: {
      const auto& feedback = input.feedback();
      if (!feedback || !feedback->previous_tool_call.is_object()) {
        return std::nullopt;
      }
      for (const auto& [robot, call] : feedback->previous_tool_call.items()) {
        if (!call.is_object() || !call.contains("name") || !call["name"].is_string()) {
          return std::nullopt;
        }
        std::string name = call["name"].get<std::string>();
        Json arguments = call.value("arguments", Json::object());
        if (!arguments.is_object() || input.toolNames().count(name) == 0 ||
            !robotAllowed(input, robot)) {
          return std::nullopt;
        }
        chosen.decision.tool_calls.push_back({std::move(name), std::move(arguments), robot});
      }
      if (chosen.decision.tool_calls.empty()) {
        return std::nullopt;
      }
      return chosen;
    }
    case DecisionTemplate::Kind::Error: {
      auto code = expandText(decision.error_code, context);
      auto message = expandText(decision.error_message, context);
      auto output_raw = expandText(decision.output_raw, context);
      if (!code || !message || !output_raw || code->empty() || message->empty()) {
        return std::nullopt;
      }
      chosen.kind = ChosenDecision::Kind::Error;
      chosen.error.code = std::move(*code);
      chosen.error.message = std::move(*message);
      if (decision.error_component) {
        auto component = expandText(*decision.error_component, context);
        if (!component) {
          return std::nullopt;
        }
        chosen.error.component = std::move(*component);
      }
      chosen.output_raw = std::move(*output_raw);
      return chosen;
    }
  }
  return std::nullopt;
}

ChosenDecision chooseDecision(const Script& script, const RuleInput& input,
                              std::int64_t candidate_index) {
  const bool same_for_all = greedy(script, input.input());
  for (const Rule& rule : script.rules) {
    auto match = matchCondition(rule.when, input);
    if (!match) {
      continue;
    }
    const std::size_t count = rule.alternatives.size();
    const std::size_t alternative =
        same_for_all ? 0 : static_cast<std::size_t>(candidate_index) % count;
    const TemplateContext context = makeContext(input, std::move(*match), candidate_index);
    if (auto chosen = instantiateDecision(rule.alternatives[alternative], context, input)) {
      chosen->rule_name = rule.name;
      chosen->alternative = alternative;
      return std::move(*chosen);
    }
  }
  const TemplateContext context = makeContext(input, ConditionMatch{}, candidate_index);
  if (auto chosen = instantiateDecision(script.fallback, context, input)) {
    chosen->rule_name = "default";
    return std::move(*chosen);
  }
  ChosenDecision neutral;
  neutral.decision.say = "I do not know how to help with that.";
  neutral.rule_name = "default";
  return neutral;
}

}  // namespace agentvcr::sim::magma
