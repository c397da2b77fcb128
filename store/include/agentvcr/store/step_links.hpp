#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

/// Links between the steps of an evaluation run and the recorded steps it re-asked
/// (`step_links`, schema version 6). They let the viewer put a recorded conversation and its
/// re-evaluation side by side, and let merge carry a run over with what it evaluated.
namespace agentvcr::store {

struct StepLink {
  std::int64_t step_id = 0;           ///< the step of the evaluation session
  std::int64_t recorded_step_id = 0;  ///< the recorded step it re-asked
};

/// A recorded conversation and a conversation of an evaluation that re-asked its steps.
struct EvaluationPair {
  std::int64_t recorded_conversation_id = 0;
  std::int64_t evaluated_conversation_id = 0;
};

/// Writes `links` into the archive at `db_path` in one transaction (migrating it first). A
/// step already linked is linked again to the new recorded step. Throws std::runtime_error
/// "[store.links] ..." when a step does not exist or the archive cannot be written; nothing
/// is written then.
void writeStepLinks(const std::string& db_path, const std::vector<StepLink>& links,
                    std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(5000));

}  // namespace agentvcr::store
