#include "agentvcr/sim/a2a/task.hpp"

#include <algorithm>
#include <cstdint>

namespace agentvcr::sim::a2a {

const char* stateName(TaskState state, WireVersion version) {
  const bool v10 = version == WireVersion::V10;
  switch (state) {
    case TaskState::Submitted:
      return v10 ? "TASK_STATE_SUBMITTED" : "submitted";
    case TaskState::Working:
      return v10 ? "TASK_STATE_WORKING" : "working";
    case TaskState::InputRequired:
      return v10 ? "TASK_STATE_INPUT_REQUIRED" : "input-required";
    case TaskState::Completed:
      return v10 ? "TASK_STATE_COMPLETED" : "completed";
    case TaskState::Canceled:
      return v10 ? "TASK_STATE_CANCELED" : "canceled";
    case TaskState::Failed:
      return v10 ? "TASK_STATE_FAILED" : "failed";
    case TaskState::Rejected:
      return v10 ? "TASK_STATE_REJECTED" : "rejected";
  }
  return v10 ? "TASK_STATE_FAILED" : "failed";
}

bool isTerminal(TaskState state) {
  return state == TaskState::Completed || state == TaskState::Canceled ||
         state == TaskState::Failed || state == TaskState::Rejected;
}

Json statusJson(const Task& task, WireVersion version) {
  Json status = Json::object();
  status["state"] = stateName(task.state, version);
  if (task.status_message) {
    status["message"] = messageOut(*task.status_message, version);
  }
  status["timestamp"] = isoTimestamp(task.updated);
  return status;
}

Json taskJson(const Task& task, const TaskView& view) {
  Json wire = Json::object();
  if (view.version == WireVersion::V03) {
    wire["kind"] = "task";
  }
  wire["id"] = task.id;
  wire["contextId"] = task.context_id;
  wire["status"] = statusJson(task, view.version);
  const std::size_t kept = std::min(task.history.size(), view.history_length.value_or(SIZE_MAX));
  wire["history"] = Json::array();
  for (std::size_t i = task.history.size() - kept; i < task.history.size(); ++i) {
    wire["history"].push_back(messageOut(task.history[i], view.version));
  }
  if (view.artifacts && !task.artifacts.empty()) {
    Json& artifacts = wire["artifacts"] = Json::array();
    for (const Json& artifact : task.artifacts) {
      artifacts.push_back(artifactOut(artifact, view.version));
    }
  }
  wire["metadata"] = {{"skillId", task.skill_id}};
  return wire;
}

}  // namespace agentvcr::sim::a2a
