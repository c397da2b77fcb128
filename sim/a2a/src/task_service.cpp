#include "agentvcr/sim/a2a/task_service.hpp"

#include <algorithm>

namespace agentvcr::sim::a2a {
namespace {

Json textPart(const std::string& text) {
  return {{"kind", "text"}, {"text", text}};
}

Json dataPart(const Json& data) {
  return {{"kind", "data"}, {"data", data}};
}

/// A result as `version` sends it where several kinds may come: v0.3 says which in `kind`,
/// v1.0 wraps the object in a member named after it (`{"task": …}`).
Json wrapped(const char* member, Json value, WireVersion version) {
  if (version == WireVersion::V03) {
    return value;
  }
  Json wrapper = Json::object();
  wrapper[member] = std::move(value);
  return wrapper;
}

StreamFrame resultFrame(Json result) {
  return StreamFrame{std::move(result), std::nullopt};
}

}  // namespace

std::optional<Task> TaskService::open(const SendParams& params, const Skill& skill,
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
    return *stored;
  }
  Task task;
  task.id = ids_.next();
  task.context_id = params.context_id ? *params.context_id : ids_.next();
  task.skill_id = skill.id;
  task.updated = now;
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
  if (profile_.kind == ProfileKind::Standard) {
    // A message that names a fate starts it; one that names none continues the task's.
    if (std::optional<Fate> asked = fates_.forMessage(message)) {
      task.fate = asked->name;
      task.fate_turns = 0;
      return playFate(task, *asked, std::move(message));
    }
    if (!task.fate.empty()) {
      if (std::optional<Fate> scripted = fates_.named(task.fate)) {
        return playFate(task, *scripted, std::move(message));
      }
    }
  }
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
  task.updated = clock_.now();
  task.status_message.reset();
  if (profile_.interrupts_tasks && task.turns <= skill->input_turns) {
    task.state = TaskState::InputRequired;
    task.status_message = agentMessage(task, skill->progress_text);
    return turn;
  }
  if (answer.failure || answer.rejection) {
    task.state = answer.failure ? TaskState::Failed : TaskState::Rejected;
    task.status_message = agentMessage(task, answer.failure ? *answer.failure : *answer.rejection);
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
  // A standard agent waits for the next message unless the answer finishes the task.
  task.state = profile_.interrupts_tasks && !answer.completes ? TaskState::InputRequired
                                                              : TaskState::Completed;
  return turn;
}

TaskService::Turn TaskService::playFate(Task& task, const Fate& fate, Json message) {
  const FateTurn& scripted = fate.turns[std::min(task.fate_turns, fate.turns.size() - 1)];
  ++task.fate_turns;
  Turn turn;
  turn.fated = scripted;
  if (scripted.message_reply) {
    // A direct reply: a Message in the task's context, and no task to keep.
    Json reply = agentMessage(task, scripted.text);
    if (task.turns == 0) {
      reply.erase("taskId");
    }
    turn.reply = std::move(reply);
    return turn;
  }
  task.history.push_back(std::move(message));
  ++task.turns;
  task.updated = clock_.now();
  task.state = scripted.state;
  task.status_message.reset();
  if (!scripted.text.empty()) {
    task.status_message = agentMessage(task, scripted.text);
  }
  if (!scripted.artifact_parts.empty()) {
    Json artifact = Json::object();
    artifact["artifactId"] = ids_.next();
    artifact["name"] = "answer";
    artifact["parts"] = Json::array();
    for (const Json& part : scripted.artifact_parts) {
      artifact["parts"].push_back(part);
    }
    task.artifacts.push_back(std::move(artifact));
  }
  return turn;
}

void TaskService::fateFrames(const Task& task, const FateTurn& turn, WireVersion version,
                             std::vector<StreamFrame>& frames) {
  Task working = task;
  working.state = TaskState::Working;
  for (int i = 1; i <= turn.updates; ++i) {
    working.status_message =
        agentMessage(task, "Update " + std::to_string(i) + " of " + std::to_string(turn.updates));
    frames.push_back(resultFrame(statusUpdate(working, false, version)));
  }
  if (turn.artifact_parts.empty()) {
    return;
  }
  const Json& artifact = task.artifacts.back();
  if (!turn.chunked) {
    frames.push_back(resultFrame(artifactUpdate(task, artifact, false, true, version)));
    return;
  }
  const Json& parts = artifact["parts"];
  Json piece = artifact;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    piece["parts"] = Json::array({parts[i]});
    frames.push_back(
        resultFrame(artifactUpdate(task, piece, i > 0, i + 1 == parts.size(), version)));
  }
}

Task TaskService::workingOn(const Task& task, const Json& message) const {
  Task working = task;
  working.history.push_back(message);
  working.state = TaskState::Working;
  working.status_message.reset();
  working.updated = clock_.now();
  return working;
}

Json TaskService::statusUpdate(const Task& task, bool final, WireVersion version) {
  Json update = Json::object();
  if (version == WireVersion::V03) {
    update["kind"] = "status-update";
  }
  update["taskId"] = task.id;
  update["contextId"] = task.context_id;
  update["status"] = statusJson(task, version);
  if (version == WireVersion::V03) {
    update["final"] = final;  // v1.0 ends the stream instead
  }
  return wrapped("statusUpdate", std::move(update), version);
}

Json TaskService::artifactUpdate(const Task& task, const Json& artifact, bool append, bool last,
                                 WireVersion version) {
  Json update = Json::object();
  if (version == WireVersion::V03) {
    update["kind"] = "artifact-update";
  }
  update["taskId"] = task.id;
  update["contextId"] = task.context_id;
  update["artifact"] = artifactOut(artifact, version);
  update["append"] = append;
  update["lastChunk"] = last;
  return wrapped("artifactUpdate", std::move(update), version);
}

std::optional<std::size_t> TaskService::sendHistoryLength(const SendParams& params) const {
  return profile_.honours_send_configuration ? params.history_length : std::nullopt;
}

MethodOutcome TaskService::send(const SendParams& params, const Skill& skill, WireVersion version) {
  std::optional<RpcError> error;
  std::optional<Task> task = open(params, skill, error);
  if (!task) {
    return MethodOutcome::failed(std::move(*error));
  }
  const Json message = stampedMessage(params, *task);
  const bool immediate = profile_.interrupts_tasks && !params.blocking;
  const Task before = immediate ? workingOn(*task, message) : Task{};
  const Turn turn = play(*task, message, params.query);
  if (turn.internal_error) {
    return MethodOutcome::failed(profile_.error(Fault::InternalError));
  }
  if (turn.reply) {
    return MethodOutcome::ok(wrapped("message", messageOut(*turn.reply, version), version));
  }
  const TaskView view{sendHistoryLength(params), true, version};
  Json answer = wrapped("task", taskJson(immediate ? before : *task, view), version);
  store_.put(std::move(*task), clock_.now());
  return MethodOutcome::ok(std::move(answer));
}

MethodOutcome TaskService::stream(const SendParams& params, const Skill& skill,
                                  WireVersion version) {
  std::optional<RpcError> error;
  std::optional<Task> task = open(params, skill, error);
  if (!task) {
    return MethodOutcome::failed(std::move(*error));  // before the stream: a plain JSON error
  }
  std::vector<StreamFrame> frames;
  const Json message = stampedMessage(params, *task);
  Task announced = *task;  // submitted, or its waiting state when continued
  announced.history.push_back(message);
  const TaskView view{sendHistoryLength(params), true, version};
  frames.push_back(resultFrame(wrapped("task", taskJson(announced, view), version)));
  frames.push_back(resultFrame(statusUpdate(workingOn(*task, message), false, version)));

  const Turn turn = play(*task, message, params.query);
  if (turn.internal_error) {
    frames.push_back(StreamFrame{std::nullopt, profile_.error(Fault::InternalError)});
    return MethodOutcome::streamed(std::move(frames));
  }
  if (turn.reply) {
    // A stream that answers with a Message holds that one event.
    return MethodOutcome::streamed(
        {resultFrame(wrapped("message", messageOut(*turn.reply, version), version))});
  }
  if (turn.fated) {
    fateFrames(*task, *turn.fated, version, frames);
  } else if (!turn.chunks.empty()) {
    Json piece = task->artifacts.back();
    for (std::size_t i = 0; i < turn.chunks.size(); ++i) {
      piece["parts"] = Json::array({textPart(turn.chunks[i])});
      const bool last = i + 1 == turn.chunks.size() && !turn.data;
      frames.push_back(resultFrame(artifactUpdate(*task, piece, i > 0, last, version)));
    }
    if (turn.data) {
      piece["parts"] = Json::array({dataPart(*turn.data)});
      frames.push_back(resultFrame(artifactUpdate(*task, piece, true, true, version)));
    }
  }
  frames.push_back(resultFrame(statusUpdate(*task, true, version)));
  store_.put(std::move(*task), clock_.now());
  return MethodOutcome::streamed(std::move(frames));
}

MethodOutcome TaskService::get(const TaskIdParams& params, WireVersion version) {
  const Task* task = store_.find(params.id, clock_.now());
  if (task == nullptr) {
    return MethodOutcome::failed(profile_.error(Fault::TaskNotFound, params.id));
  }
  return MethodOutcome::ok(taskJson(*task, {params.history_length, true, version}));
}

MethodOutcome TaskService::list(const ListTasksParams& params) {
  std::vector<const Task*> matching;
  for (const Task* task : store_.all(clock_.now())) {
    const bool context = !params.context_id || task->context_id == *params.context_id;
    const bool state = !params.status || *params.status == stateName(task->state, WireVersion::V10);
    const bool recent =
        !params.status_timestamp_after || task->updated > *params.status_timestamp_after;
    if (context && state && recent) {
      matching.push_back(task);
    }
  }
  // Most recently changed first; among equal times, the most recently created first.
  std::reverse(matching.begin(), matching.end());
  std::stable_sort(matching.begin(), matching.end(),
                   [](const Task* a, const Task* b) { return a->updated > b->updated; });
  const std::size_t first = std::min(params.offset, matching.size());
  const std::size_t end = std::min(first + params.page_size, matching.size());
  Json tasks = Json::array();
  for (std::size_t i = first; i < end; ++i) {
    tasks.push_back(taskJson(*matching[i],
                             {params.history_length, params.include_artifacts, WireVersion::V10}));
  }
  Json answer = Json::object();
  answer["tasks"] = std::move(tasks);
  answer["nextPageToken"] = end < matching.size() ? std::to_string(end) : std::string();
  answer["pageSize"] = params.page_size;
  answer["totalSize"] = matching.size();
  return MethodOutcome::ok(std::move(answer));
}

MethodOutcome TaskService::cancel(const TaskIdParams& params, WireVersion version) {
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
  task->updated = now;
  return MethodOutcome::ok(taskJson(*task, {std::nullopt, true, version}));
}

MethodOutcome TaskService::subscribe(const TaskIdParams& params, WireVersion version) {
  const Task* task = store_.find(params.id, clock_.now());
  if (task == nullptr) {
    RpcError unknown = profile_.error(Fault::TaskNotFound, params.id);
    return version == WireVersion::V03
               ? MethodOutcome::streamed({StreamFrame{std::nullopt, std::move(unknown)}})
               : MethodOutcome::failed(std::move(unknown));
  }
  if (isTerminal(task->state)) {
    return MethodOutcome::failed(profile_.error(
        Fault::UnsupportedOperation, "Task " + task->id + " is in a terminal state (" +
                                         stateName(task->state) + "): there is nothing to follow"));
  }
  return MethodOutcome::streamed(
      {resultFrame(wrapped("task", taskJson(*task, {std::nullopt, true, version}), version)),
       resultFrame(statusUpdate(*task, true, version))});
}

}  // namespace agentvcr::sim::a2a
