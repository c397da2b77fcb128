#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/fates.hpp"
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
/// skills' canned answers, and reads, lists and cancels stored tasks. Each answer is written
/// in the version the request spoke. Every state change happens at once, also for a stream or
/// a non-blocking send, whose answers only describe the way there. Not thread-safe.
class TaskService {
 public:
  TaskService(const Profile& profile, const SkillTable& skills, const FateTable& fates,
              TaskStore& store, IdGenerator& ids, const Clock& clock)
      : profile_(profile),
        skills_(skills),
        fates_(fates),
        store_(store),
        ids_(ids),
        clock_(clock) {}

  /// message/send, SendMessage: the task the message starts (with `skill`) or continues
  /// (message.taskId). A caller that does not block gets the task as `working`.
  MethodOutcome send(const SendParams& params, const Skill& skill, WireVersion version);

  /// message/stream, SendStreamingMessage: the same turn as send(), told as events: the Task,
  /// `working`, the artifact chunks, and a final status-update.
  MethodOutcome stream(const SendParams& params, const Skill& skill, WireVersion version);

  MethodOutcome get(const TaskIdParams& params, WireVersion version);

  /// ListTasks (v1.0): the tasks that match, most recently changed first, one page at a time.
  MethodOutcome list(const ListTasksParams& params);

  /// Moves a task that is not terminal to canceled; a terminal one is TaskNotCancelable.
  MethodOutcome cancel(const TaskIdParams& params, WireVersion version);

  /// tasks/resubscribe, SubscribeToTask: the Task and its current status as a final event. A
  /// terminal task is UnsupportedOperation. An unknown task is an error event in v0.3, as SDK
  /// servers send it, and a plain error in v1.0.
  MethodOutcome subscribe(const TaskIdParams& params, WireVersion version);

 private:
  /// What one turn of a skill produced, beyond the task's new state.
  struct Turn {
    bool internal_error = false;
    std::vector<std::string> chunks;  ///< the answer text, answered turns only
    std::optional<Json> data;
    std::string artifact_id;
    /// A scripted fate's turn: `working` updates a stream sends first, whether it added an
    /// artifact (the task's last) and streams it part by part, or the Message it answers with.
    std::optional<FateTurn> fated;
    std::optional<Json> reply;
  };

  /// The task a message starts, or the stored one it continues, or the error that stops it.
  std::optional<Task> open(const SendParams& params, const Skill& skill,
                           std::optional<RpcError>& error);

  /// The user's message as stored: with the task's contextId and taskId.
  static Json stampedMessage(const SendParams& params, const Task& task);

  /// Plays one turn on `message`, changing `task`: of the fate the message or the task scripted,
  /// else of the task's skill.
  Turn play(Task& task, Json message, std::string_view query);

  /// Plays the next turn of `fate` on `message`.
  Turn playFate(Task& task, const Fate& fate, Json message);

  /// The stream frames of a fate's turn between the working update and the final status.
  void fateFrames(const Task& task, const FateTurn& turn, WireVersion version,
                  std::vector<StreamFrame>& frames);

  /// `task` as it looks while the agent works on `message`: what a stream says second and a
  /// non-blocking send answers.
  Task workingOn(const Task& task, const Json& message) const;

  Json agentMessage(const Task& task, const std::string& text);
  static Json statusUpdate(const Task& task, bool final, WireVersion version);
  static Json artifactUpdate(const Task& task, const Json& artifact, bool append, bool last,
                             WireVersion version);

  /// The history length a send answer is cut to.
  std::optional<std::size_t> sendHistoryLength(const SendParams& params) const;

  const Profile& profile_;
  const SkillTable& skills_;
  const FateTable& fates_;
  TaskStore& store_;
  IdGenerator& ids_;
  const Clock& clock_;
};

}  // namespace agentvcr::sim::a2a
