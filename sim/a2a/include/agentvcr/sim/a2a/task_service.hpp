#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/id_generator.hpp"
#include "agentvcr/sim/a2a/params.hpp"
#include "agentvcr/sim/a2a/profile.hpp"
#include "agentvcr/sim/a2a/skills.hpp"
#include "agentvcr/sim/a2a/task_store.hpp"

namespace agentvcr::sim::a2a {

/// One event of a stream: a result object (Task, status-update, artifact-update) or an error.
struct StreamFrame {
  std::optional<Json> result;
  std::optional<RpcError> error;
};

/// What a method answers: a result, an error, or a stream of events.
struct MethodOutcome {
  std::optional<Json> result;
  std::optional<RpcError> error;
  std::vector<StreamFrame> stream;  ///< the answer is a stream when not empty

  static MethodOutcome ok(Json result) { return {std::move(result), std::nullopt, {}}; }

  static MethodOutcome failed(RpcError error) { return {std::nullopt, std::move(error), {}}; }

  static MethodOutcome streamed(std::vector<StreamFrame> frames) {
    return {std::nullopt, std::nullopt, std::move(frames)};
  }
};

/// Executes the task methods on checked params: creates and continues tasks by playing the
/// skills' canned answers, and reads and cancels stored tasks. Every state change happens at
/// once, also for a stream, whose events are only delivered later. Not thread-safe.
class TaskService {
 public:
  TaskService(const Profile& profile, const SkillTable& skills, TaskStore& store, IdGenerator& ids,
              const Clock& clock)
      : profile_(profile), skills_(skills), store_(store), ids_(ids), clock_(clock) {}

  /// message/send: the task the message starts (with `skill`) or continues (message.taskId).
  MethodOutcome send(const SendParams& params, const Skill& skill);

  /// message/stream: the same turn as send(), told as events: the Task, `working`, the
  /// artifact chunks, and a final status-update.
  MethodOutcome stream(const SendParams& params, const Skill& skill);

  MethodOutcome get(const TaskIdParams& params);
  MethodOutcome cancel(const TaskIdParams& params);

  /// tasks/resubscribe: the Task and its current status as a final event; an unknown task is
  /// an error event, as SDK servers send it.
  MethodOutcome resubscribe(const TaskIdParams& params);

 private:
  /// What one turn of a skill produced, beyond the task's new state.
  struct Turn {
    bool internal_error = false;
    std::vector<std::string> chunks;  ///< the answer text, completed turns only
    std::optional<Json> data;
    std::string artifact_id;
  };

  /// The task a message starts, or the stored one it continues (`continued` set), or the
  /// error that stops it.
  std::optional<Task> open(const SendParams& params, const Skill& skill, bool& continued,
                           std::optional<RpcError>& error);

  /// The user's message as stored: with the task's contextId and taskId.
  static Json stampedMessage(const SendParams& params, const Task& task);

  /// Plays one turn of the task's skill on `message`, changing `task`.
  Turn play(Task& task, Json message, std::string_view query);

  Json agentMessage(const Task& task, const std::string& text);
  Json statusUpdate(const Task& task, bool final) const;
  static Json artifactUpdate(const Task& task, const Json& artifact, bool append, bool last);

  /// The history length a message/send answer is cut to.
  std::optional<std::size_t> sendHistoryLength(const SendParams& params) const;

  const Profile& profile_;
  const SkillTable& skills_;
  TaskStore& store_;
  IdGenerator& ids_;
  const Clock& clock_;
};

}  // namespace agentvcr::sim::a2a
