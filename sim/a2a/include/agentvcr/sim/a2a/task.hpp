#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/json.hpp"

namespace agentvcr::sim::a2a {

/// The task states the mock produces. Magisterium's tasks are always Completed or Failed when
/// a client sees them; Submitted, Working and Canceled occur in the standard profile only.
enum class TaskState { Submitted, Working, Completed, Canceled, Failed };

/// The wire name: "submitted", "working", "completed", "canceled", "failed".
const char* stateName(TaskState state);

bool isTerminal(TaskState state);

/// One task as the store keeps it.
struct Task {
  std::string id;
  std::string context_id;
  std::string skill_id;
  TaskState state = TaskState::Submitted;
  std::string timestamp;               ///< of the last status change
  std::optional<Json> status_message;  ///< an agent Message: failure reason or progress
  std::vector<Json> history;           ///< user and agent messages, in order
  std::vector<Json> artifacts;
  int turns = 0;  ///< user messages the task has handled
  TimePoint created;
};

/// The task's `status` object.
Json statusJson(const Task& task);

/// The Task object of the wire, `kind:"task"`, with its history cut to the last
/// `history_length` messages when given (0 gives an empty history).
Json taskJson(const Task& task, std::optional<std::size_t> history_length = std::nullopt);

}  // namespace agentvcr::sim::a2a
