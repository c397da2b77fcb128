#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/wire.hpp"

namespace agentvcr::sim::a2a {

/// The task states the mock produces. Magisterium's tasks are always Completed or Failed when
/// a client sees them. In the standard profile a task waits in InputRequired between turns
/// (a2a-v1.md, "Task lifecycle"); Submitted and Working are the states a stream or a
/// non-blocking send reports on the way.
enum class TaskState { Submitted, Working, InputRequired, Completed, Canceled, Failed, Rejected };

/// The wire name: "input-required" in v0.3, "TASK_STATE_INPUT_REQUIRED" in v1.0.
const char* stateName(TaskState state, WireVersion version = WireVersion::V03);

/// Completed, canceled, failed and rejected: no message may change such a task.
bool isTerminal(TaskState state);

/// One task as the store keeps it. Messages and artifacts are kept as v0.3 writes them; a v1.0
/// answer converts them on the way out (wire.hpp), so either version can read any task.
struct Task {
  std::string id;
  std::string context_id;
  std::string skill_id;
  TaskState state = TaskState::Submitted;
  TimePoint updated;                   ///< the last status change: `status.timestamp`
  std::optional<Json> status_message;  ///< an agent Message: failure reason or request for input
  std::vector<Json> history;           ///< user and agent messages, in order
  std::vector<Json> artifacts;
  int turns = 0;  ///< user messages the task has handled
  TimePoint created;
  /// The fate its caller scripted (FateTable), empty for none, and the turns of it played.
  std::string fate;
  std::size_t fate_turns = 0;
};

/// What a Task answer shows of the task.
struct TaskView {
  /// Keep the last N messages of `history` (0: none); all when absent.
  std::optional<std::size_t> history_length;
  bool artifacts = true;
  WireVersion version = WireVersion::V03;
};

/// The task's `status` object.
Json statusJson(const Task& task, WireVersion version = WireVersion::V03);

/// The Task object of the wire: `kind:"task"` and lower-case states in v0.3, ProtoJSON in v1.0.
Json taskJson(const Task& task, const TaskView& view = {});

}  // namespace agentvcr::sim::a2a
