#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

/// Links between the steps of an evaluation run or a fork and the recorded steps they asked
/// again (`step_links`, schema version 6), and the same for A2A calls (`call_links`, schema
/// version 15). They let the viewer put a recorded conversation and its re-evaluation side by
/// side, and let merge, ship and pull carry a run over with what it evaluated.
namespace agentvcr::store {

struct StepLink {
  std::int64_t step_id = 0;           ///< the step of the evaluation session
  std::int64_t recorded_step_id = 0;  ///< the recorded step it re-asked
};

/// The same for A2A calls (`call_links`, schema version 15): a call that a fork or an evaluation
/// sent again, and the recorded call it continues.
struct CallLink {
  std::int64_t call_id = 0;           ///< the call of the fork or evaluation session
  std::int64_t recorded_call_id = 0;  ///< the recorded call it asked again
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

/// Writes `links` as writeStepLinks does steps'; "[store.links] ..." when a call does not exist.
void writeCallLinks(const std::string& db_path, const std::vector<CallLink>& links,
                    std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(5000));

}  // namespace agentvcr::store
