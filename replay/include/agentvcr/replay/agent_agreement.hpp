#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

/// How several live agents asked the same recorded inputs compare with one another where they
/// leave the recording (docs/eval.md, Comparing agents). One copy for `agentvcr eval --agent A
/// --agent B ...`, which judges the answers as they arrive, and for the viewer, which judges
/// them again from the stored evaluation sessions.
namespace agentvcr::replay {

/// One agent's judged answer to one recorded step.
struct AgentStepAnswer {
  bool matches_recording = false;  ///< StepVerdict::match(): same decisions, contract kept
  bool kept_contract = false;      ///< no contract violation
  /// The live outputs as they were compared with the recording (StepVerdict::live_outputs).
  protocol::Json outputs = protocol::Json::array();
};

/// One agent's answers, by the id of the recorded step (or A2A call) they answer.
using AgentAnswers = std::map<std::int64_t, AgentStepAnswer>;

/// Two agents, over the recorded steps both answered.
struct PairAgreement {
  std::size_t first = 0;   ///< index of the first agent
  std::size_t second = 0;  ///< index of the second, greater than first
  /// Steps where at least one of the two left the recording: where agreeing says something
  /// that matching the recording does not.
  std::int64_t differing_steps = 0;
  /// Of those, the steps where both kept the contract and made the same decisions, candidate
  /// by candidate as eval compares an answer with the recording.
  std::int64_t agreeing_steps = 0;

  /// agreeing_steps / differing_steps; empty when neither agent left the recording.
  std::optional<double> rate() const;
};

/// Whether two answers to one input make the same decisions: every candidate slot compares
/// equal (compareDecisions), tool declarations aside, which concern each answer alone.
bool sameDecisions(const protocol::Json& first_outputs, const protocol::Json& second_outputs);

/// Whether two agents' outputs to one recorded question say the same thing.
using SameAnswers = bool (*)(const protocol::Json& first, const protocol::Json& second);

/// Every pair of agents (i < j), in order (0,1), (0,2) ... (1,2) ...; two answers agree when
/// `same` says so of their outputs: sameDecisions for MAGMA steps, sameA2aReplies for A2A calls.
std::vector<PairAgreement> pairwiseAgreement(const std::vector<AgentAnswers>& agents,
                                             SameAnswers same = sameDecisions);

}  // namespace agentvcr::replay
