#include "agentvcr/sim/a2a/task_store.hpp"

namespace agentvcr::sim::a2a {

void TaskStore::put(Task task, TimePoint now) {
  dropExpired(now);
  auto stored = tasks_.find(task.id);
  if (stored != tasks_.end()) {
    task.created = stored->second.created;
    stored->second = std::move(task);
    return;
  }
  creation_order_.push_back(task.id);
  std::string id = task.id;
  tasks_.emplace(std::move(id), std::move(task));
}

Task* TaskStore::find(const std::string& id, TimePoint now) {
  auto stored = tasks_.find(id);
  if (stored == tasks_.end() || expired(stored->second, now)) {
    return nullptr;
  }
  return &stored->second;
}

std::vector<const Task*> TaskStore::all(TimePoint now) const {
  std::vector<const Task*> live;
  for (const std::string& id : creation_order_) {
    auto stored = tasks_.find(id);
    if (stored != tasks_.end() && !expired(stored->second, now)) {
      live.push_back(&stored->second);
    }
  }
  return live;
}

void TaskStore::dropExpired(TimePoint now) {
  while (!creation_order_.empty()) {
    auto oldest = tasks_.find(creation_order_.front());
    if (oldest != tasks_.end() && !expired(oldest->second, now)) {
      return;
    }
    if (oldest != tasks_.end()) {
      tasks_.erase(oldest);
    }
    creation_order_.pop_front();
  }
}

}  // namespace agentvcr::sim::a2a
