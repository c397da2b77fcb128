#include "agentvcr/sim/a2a/task.hpp"

#include <algorithm>
#include <cstdint>

namespace agentvcr::sim::a2a {

const char* stateName(TaskState state) {
  switch (state) {
    case TaskState::Submitted:
      return "submitted";
    case TaskState::Working:
      return "working";
    case TaskState::Completed:
      return "completed";
    case TaskState::Canceled:
      return "canceled";
    case TaskState::Failed:
      return "failed";
  }
  return "failed";
}

bool isTerminal(TaskState state) {
  return state == TaskState::Completed || state == TaskState::Canceled ||
         state == TaskState::Failed;
}

Json statusJson(const Task& task) {
  Json status = Json::object();
  status["state"] = stateName(task.state);
  if (task.status_message) {
    status["message"] = *task.status_message;
  }
  status["timestamp"] = task.timestamp;
  return status;
}

Json taskJson(const Task& task, std::optional<std::size_t> history_length) {
  Json wire = Json::object();
  wire["kind"] = "task";
  wire["id"] = task.id;
  wire["contextId"] = task.context_id;
  wire["status"] = statusJson(task);
  const std::size_t kept = std::min(task.history.size(), history_length.value_or(SIZE_MAX));
  wire["history"] = Json::array();
  for (std::size_t i = task.history.size() - kept; i < task.history.size(); ++i) {
    wire["history"].push_back(task.history[i]);
  }
  if (!task.artifacts.empty()) {
    wire["artifacts"] = task.artifacts;
  }
  wire["metadata"] = {{"skillId", task.skill_id}};
  return wire;
}

}  // namespace agentvcr::sim::a2a
