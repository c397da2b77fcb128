#include "agentvcr/sim/a2a/task_service.hpp"

namespace agentvcr::sim::a2a {
namespace {

Json textPart(const std::string& text) {
  return {{"kind", "text"}, {"text", text}};
}

Json dataPart(const Json& data) {
  return {{"kind", "data"}, {"data", data}};
}

StreamFrame resultFrame(Json result) {
  return StreamFrame{std::move(result), std::nullopt};
}

}  // namespace

std::optional<Task> TaskService::open(const SendParams& params, const Skill& skill, bool& continued,
                                      std::optional<RpcError>& error) {
  const TimePoint now = clock_.now();
  if (params.task_id) {
    const Task* stored = store_.find(*params.task_id, now);
    if (stored == nullptr) {
      error = profile_.error(Fault::TaskNotFound, *params.task_id);
      return std::nullopt;
    }
    if (isTerminal(stored->state)) {
      error = profile_.error(Fault::TaskTerminal,
                             "Task " + stored->id + " is in a terminal state (" +
                                 stateName(stored->state) + ") and cannot be modified");
      return std::nullopt;
    }
    if (params.context_id && *params.context_id != stored->context_id) {
      error = profile_.error(Fault::InvalidParams,
                             "message.contextId does not match the contextId of the task");
      return std::nullopt;
    }
    continued = true;
    return *stored;
  }
  Task task;
  task.id = ids_.next();
  task.context_id = params.context_id ? *params.context_id : ids_.next();
  task.skill_id = skill.id;
  task.timestamp = isoTimestamp(now);
  task.created = now;
  return task;
}

Json TaskService::stampedMessage(const SendParams& params, const Task& task) {
  Json message = params.message;
  message["contextId"] = task.context_id;
  message["taskId"] = task.id;
  return message;
}

Json TaskService::agentMessage(const Task& task, const std::string& text) {
  Json message = Json::object();
  message["kind"] = "message";
  message["role"] = "agent";
  message["messageId"] = ids_.next();
  message["parts"] = Json::array({textPart(text)});
  message["contextId"] = task.context_id;
  message["taskId"] = task.id;
  return message;
}

TaskService::Turn TaskService::play(Task& task, Json message, std::string_view query) {
  const Skill* skill = skills_.find(task.skill_id);
  if (skill == nullptr) {
    skill = &skills_.defaultSkill();
  }
  const Answer& answer = skill->answerFor(query);
  Turn turn;
  if (answer.internal_error) {
    turn.internal_error = true;
    return turn;
  }
  task.history.push_back(std::move(message));
  ++task.turns;
  task.timestamp = isoTimestamp(clock_.now());
  task.status_message.reset();
  if (profile_.allows_working_tasks && task.turns <= skill->working_turns) {
    task.state = TaskState::Working;
    task.status_message = agentMessage(task, skill->progress_text);
    return turn;
  }
  if (answer.failure) {
    task.state = TaskState::Failed;
    task.status_message = agentMessage(task, *answer.failure);
    return turn;
  }
  turn.chunks = answer.chunksFor(query);
  turn.data = answer.data;
  turn.artifact_id = ids_.next();
  std::string text;
  for (const std::string& chunk : turn.chunks) {
    text += chunk;
  }
  Json artifact = Json::object();
  artifact["artifactId"] = turn.artifact_id;
  artifact["name"] = skill->artifact_name;
  artifact["parts"] = Json::array({textPart(text)});
  if (turn.data) {
    artifact["parts"].push_back(dataPart(*turn.data));
  }
  task.artifacts.push_back(std::move(artifact));
  task.history.push_back(agentMessage(task, text));
  task.state = TaskState::Completed;
  return turn;
}

Json TaskService::statusUpdate(const Task& task, bool final) const {
  Json update = Json::object();
  update["kind"] = "status-update";
  update["taskId"] = task.id;
  update["contextId"] = task.context_id;
  update["status"] = statusJson(task);
  update["final"] = final;
  return update;
}

Json TaskService::artifactUpdate(const Task& task, const Json& artifact, bool append, bool last) {
  Json update = Json::object();
  update["kind"] = "artifact-update";
  update["taskId"] = task.id;
  update["contextId"] = task.context_id;
  update["artifact"] = artifact;
  update["append"] = append;
  update["lastChunk"] = last;
  return update;
}

std::optional<std::size_t> TaskService::sendHistoryLength(const SendParams& params) const {
  return profile_.honours_send_configuration ? params.history_length : std::nullopt;
}

MethodOutcome TaskService::send(const SendParams& params, const Skill& skill) {
  bool continued = false;
  std::optional<RpcError> error;
  std::optional<Task> task = open(params, skill, continued, error);
  if (!task) {
    return MethodOutcome::failed(std::move(*error));
  }
  if (play(*task, stampedMessage(params, *task), params.query).internal_error) {
    return MethodOutcome::failed(profile_.error(Fault::InternalError));
  }
  Json answer = taskJson(*task, sendHistoryLength(params));
  store_.put(std::move(*task), clock_.now());
  return MethodOutcome::ok(std::move(answer));
}

MethodOutcome TaskService::stream(const SendParams& params, const Skill& skill) {
  bool continued = false;
  std::optional<RpcError> error;
  std::optional<Task> task = open(params, skill, continued, error);
  if (!task) {
    return MethodOutcome::failed(std::move(*error));  // before the stream: a plain JSON error
  }
  std::vector<StreamFrame> frames;
  const Json message = stampedMessage(params, *task);
  Task announced = *task;  // submitted, or still working when continued
  announced.history.push_back(message);
  frames.push_back(resultFrame(taskJson(announced, sendHistoryLength(params))));
  Task working = *task;
  working.state = TaskState::Working;
  working.status_message.reset();
  working.timestamp = isoTimestamp(clock_.now());
  frames.push_back(resultFrame(statusUpdate(working, false)));

  const Turn turn = play(*task, message, params.query);
  if (turn.internal_error) {
    frames.push_back(StreamFrame{std::nullopt, profile_.error(Fault::InternalError)});
    return MethodOutcome::streamed(std::move(frames));
  }
  if (task->state == TaskState::Completed) {
    Json piece = task->artifacts.back();
    for (std::size_t i = 0; i < turn.chunks.size(); ++i) {
      piece["parts"] = Json::array({textPart(turn.chunks[i])});
      const bool last = i + 1 == turn.chunks.size() && !turn.data;
      frames.push_back(resultFrame(artifactUpdate(*task, piece, i > 0, last)));
    }
    if (turn.data) {
      piece["parts"] = Json::array({dataPart(*turn.data)});
      frames.push_back(resultFrame(artifactUpdate(*task, piece, true, true)));
    }
  }
  frames.push_back(resultFrame(statusUpdate(*task, true)));
  store_.put(std::move(*task), clock_.now());
  return MethodOutcome::streamed(std::move(frames));
}

MethodOutcome TaskService::get(const TaskIdParams& params) {
  const Task* task = store_.find(params.id, clock_.now());
  if (task == nullptr) {
    return MethodOutcome::failed(profile_.error(Fault::TaskNotFound, params.id));
  }
  return MethodOutcome::ok(taskJson(*task, params.history_length));
}

MethodOutcome TaskService::cancel(const TaskIdParams& params) {
  const TimePoint now = clock_.now();
  Task* task = store_.find(params.id, now);
  if (task == nullptr) {
    return MethodOutcome::failed(profile_.error(Fault::TaskNotFound, params.id));
  }
  if (isTerminal(task->state)) {
    return MethodOutcome::failed(profile_.error(Fault::TaskNotCancelable, params.id));
  }
  task->state = TaskState::Canceled;
  task->status_message.reset();
  task->timestamp = isoTimestamp(now);
  return MethodOutcome::ok(taskJson(*task));
}

MethodOutcome TaskService::resubscribe(const TaskIdParams& params) {
  const Task* task = store_.find(params.id, clock_.now());
  if (task == nullptr) {
    return MethodOutcome::streamed(
        {StreamFrame{std::nullopt, profile_.error(Fault::TaskNotFound, params.id)}});
  }
  return MethodOutcome::streamed(
      {resultFrame(taskJson(*task)), resultFrame(statusUpdate(*task, true))});
}

}  // namespace agentvcr::sim::a2a
