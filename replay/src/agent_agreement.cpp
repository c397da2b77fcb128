#include "agentvcr/replay/agent_agreement.hpp"

#include <algorithm>

#include "agentvcr/replay/decision_compare.hpp"

namespace agentvcr::replay {

std::optional<double> PairAgreement::rate() const {
  if (differing_steps == 0) {
    return std::nullopt;
  }
  return static_cast<double>(agreeing_steps) / static_cast<double>(differing_steps);
}

bool sameDecisions(const protocol::Json& first_outputs, const protocol::Json& second_outputs) {
  const StepComparison comparison =
      compareDecisions(protocol::Json::object(), first_outputs, second_outputs);
  return std::all_of(comparison.candidates.begin(), comparison.candidates.end(),
                     [](const CandidateComparison& candidate) { return candidate.match; });
}

std::vector<PairAgreement> pairwiseAgreement(const std::vector<AgentAnswers>& agents,
                                             SameAnswers same) {
  std::vector<PairAgreement> pairs;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    for (std::size_t j = i + 1; j < agents.size(); ++j) {
      PairAgreement pair{i, j};
      for (const auto& [step_id, first] : agents[i]) {
        const auto second = agents[j].find(step_id);
        if (second == agents[j].end() ||
            (first.matches_recording && second->second.matches_recording)) {
          continue;
        }
        ++pair.differing_steps;
        if (first.kept_contract && second->second.kept_contract &&
            same(first.outputs, second->second.outputs)) {
          ++pair.agreeing_steps;
        }
      }
      pairs.push_back(pair);
    }
  }
  return pairs;
}

}  // namespace agentvcr::replay
