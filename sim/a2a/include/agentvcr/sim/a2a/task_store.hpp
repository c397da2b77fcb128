#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/task.hpp"

namespace agentvcr::sim::a2a {

/// Tasks by id, each kept for `retention` after it was created (Magisterium: 24 hours), on the
/// mock's clock. Expired tasks are dropped as new ones arrive, so memory stays bounded by the
/// tasks of one retention period. Not thread-safe.
class TaskStore {
 public:
  explicit TaskStore(std::chrono::seconds retention = std::chrono::hours(24))
      : retention_(retention) {}

  /// Stores a new task, or replaces the stored one with the same id (whose creation time then
  /// stays as it was).
  void put(Task task, TimePoint now);

  /// The task, while now < created + retention; nullptr when unknown or expired.
  Task* find(const std::string& id, TimePoint now);

  /// Every task not expired at `now`, in the order they were created.
  std::vector<const Task*> all(TimePoint now) const;

  std::size_t size() const { return tasks_.size(); }

 private:
  bool expired(const Task& task, TimePoint now) const { return now >= task.created + retention_; }

  void dropExpired(TimePoint now);

  std::chrono::seconds retention_;
  std::map<std::string, Task> tasks_;
  /// Ids in creation order, so the oldest tasks are looked at first when dropping.
  std::deque<std::string> creation_order_;
};

}  // namespace agentvcr::sim::a2a
