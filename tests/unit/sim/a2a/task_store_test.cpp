#include "agentvcr/sim/a2a/task_store.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agentvcr::sim::a2a {
namespace {

using namespace std::chrono_literals;
using testing::kStart;

Task taskNamed(const std::string& id, TimePoint created) {
  Task task;
  task.id = id;
  task.state = TaskState::Completed;
  task.created = created;
  return task;
}

TEST(TaskStore, KeepsATaskForTwentyFourHoursExactly) {
  TaskStore store;
  store.put(taskNamed("t1", kStart), kStart);
  EXPECT_NE(store.find("t1", kStart), nullptr);
  EXPECT_NE(store.find("t1", kStart + 23h + 59min + 59s), nullptr);
  EXPECT_NE(store.find("t1", kStart + 24h - 1ns), nullptr);
  EXPECT_EQ(store.find("t1", kStart + 24h), nullptr);
  EXPECT_EQ(store.find("t2", kStart), nullptr);
}

TEST(TaskStore, ReplacingKeepsTheCreationTime) {
  TaskStore store;
  store.put(taskNamed("t1", kStart), kStart);
  Task later = taskNamed("t1", kStart + 12h);
  later.state = TaskState::Canceled;
  store.put(later, kStart + 12h);
  ASSERT_NE(store.find("t1", kStart + 12h), nullptr);
  EXPECT_EQ(store.find("t1", kStart + 12h)->state, TaskState::Canceled);
  EXPECT_EQ(store.find("t1", kStart + 24h), nullptr);
}

TEST(TaskStore, DropsExpiredTasksAsNewOnesArrive) {
  TaskStore store(std::chrono::seconds(60));
  store.put(taskNamed("old", kStart), kStart);
  store.put(taskNamed("mid", kStart + 30s), kStart + 30s);
  EXPECT_EQ(store.size(), 2u);
  store.put(taskNamed("new", kStart + 61s), kStart + 61s);
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(store.find("old", kStart), nullptr) << "dropped, even for an earlier clock";
  EXPECT_NE(store.find("mid", kStart + 61s), nullptr);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
