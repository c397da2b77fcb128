#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::replay {

/// How two `say` texts compare.
enum class SayMatch {
  Equal,       ///< byte for byte
  Normalised,  ///< equal once whitespace runs are folded to one space, trimmed, and lowercased
  Different,
};

/// "equal", "normalised", "different".
const char* sayMatchName(SayMatch match);

/// `text` with whitespace runs folded to one space, trimmed, ASCII letters lowercased: the form
/// in which a reworded-only-by-spacing-or-case answer still counts as the same.
std::string normaliseSay(std::string_view text);

/// The kind of one output object (AgentOutput JSON): "error" for an error candidate, otherwise
/// "say", "tool_calls", "mixed" (both) or "empty" (neither).
std::string decisionKind(const protocol::Json& output);

/// The outputs (or candidates) of one step by their candidate_index. One without an integer
/// index is slot -1, so that it still takes part in a comparison; empty when `outputs` is not
/// an array.
std::map<std::int64_t, const protocol::Json*> outputsBySlot(const protocol::Json& outputs);

/// One candidate slot compared: the recorded output against the live one with the same
/// candidate_index.
struct CandidateComparison {
  std::int64_t candidate_index = 0;
  bool match = true;
  SayMatch say = SayMatch::Equal;
  /// One sentence per difference, e.g. "candidate 0: tool call 0 robot \"arm1\" vs \"arm2\"".
  std::vector<std::string> differences;
};

/// One recorded step against the live answer to the same input.
struct StepComparison {
  /// Every candidate matches and no tool call breaks the input's declarations.
  bool match = true;
  /// At least one say matched only once normalised.
  bool say_normalised = false;
  std::vector<CandidateComparison> candidates;
  /// Live tool calls naming a tool the input does not declare, or a robot missing from
  /// `attributes.known_robots` (only checked when the input lists known robots).
  std::vector<std::string> tool_findings;

  /// All differences and tool findings, in order: what a report shows.
  std::vector<std::string> allDifferences() const;
};

/// Compares the live outputs of one input with the recorded ones, slot by slot
/// (candidate_index): decision kind, tool names, robots and arguments (numbers by value), say
/// (equal or normalised-equal), status and error code. Memory and internal steps are not
/// compared: they are the agent's own business. `input` is the AgentInput object that was
/// sent; `recorded` and `live` are arrays of AgentOutput objects (ArchiveReader::outputJson,
/// protocol::magma::toJson). Pure; never throws on odd JSON (a missing field reads as absent).
StepComparison compareDecisions(const protocol::Json& input, const protocol::Json& recorded,
                                const protocol::Json& live);

}  // namespace agentvcr::replay
