#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "agentvcr/sim/a2a/clock.hpp"
#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/wire.hpp"

namespace agentvcr::sim::a2a {

/// The params of message/send and message/stream (v1.0: SendMessage, SendStreamingMessage),
/// checked.
struct SendParams {
  Json message;       ///< the user's message as sent, in the store's (v0.3) shape
  std::string query;  ///< its text parts, joined with "\n"
  std::optional<std::string> skill_id;
  std::optional<std::string> context_id;      ///< an empty string counts as absent
  std::optional<std::string> task_id;         ///< likewise
  std::optional<std::size_t> history_length;  ///< configuration.historyLength, when read
  /// Wait for a terminal or interrupted task: v0.3 `configuration.blocking` (true unless
  /// false), v1.0 `configuration.returnImmediately` inverted.
  bool blocking = true;
};

/// The params of tasks/get, tasks/cancel and tasks/resubscribe (v1.0: GetTask, CancelTask,
/// SubscribeToTask), checked.
struct TaskIdParams {
  std::string id;
  std::optional<std::size_t> history_length;  ///< tasks/get only
};

/// The params of v1.0 ListTasks, checked.
struct ListTasksParams {
  std::optional<std::string> context_id;
  std::optional<std::string> status;  ///< a TASK_STATE_* name; absent or UNSPECIFIED: any
  std::size_t page_size = 50;         ///< 1 to 100
  std::size_t offset = 0;             ///< where the page starts, read from pageToken
  std::optional<std::size_t> history_length;
  std::optional<TimePoint> status_timestamp_after;
  bool include_artifacts = false;
};

/// Checked params, or the reason they are invalid: the message of a -32602 error.
template <class T>
struct ParamsRead {
  std::optional<T> value;
  std::string error;
};

/// Checks the params of a send.
/// - v0.3 (MessageSendParams, as Magisterium requires): a `message` object with role "user",
///   kind "message", a non-empty messageId, and a non-empty array of valid text, data or file
///   parts.
/// - v1.0 (SendMessageRequest): a `message` with role "ROLE_USER", a non-empty messageId and a
///   non-empty array of parts, each with exactly one of `text`, `raw`, `url` (strings) or
///   `data`. The message is converted to the store's shape.
///
/// In both, contextId, taskId and metadata.skillId must be strings if present, and unknown
/// fields are accepted: kept in the message when `keep_unknown_fields` (Magisterium echoes
/// them), dropped otherwise (knownMessageFields). `configuration` (historyLength; v0.3
/// `blocking`, v1.0 `returnImmediately` and `acceptedOutputModes`) is read only when
/// `read_configuration` is set: Magisterium reserves it.
ParamsRead<SendParams> readSendParams(const std::optional<Json>& params, WireVersion version,
                                      bool read_configuration, bool keep_unknown_fields);

/// Checks TaskIdParams / TaskQueryParams: a string `id`, and with `read_history_length` an
/// optional non-negative integer historyLength.
ParamsRead<TaskIdParams> readTaskIdParams(const std::optional<Json>& params,
                                          bool read_history_length);

/// Checks ListTasksRequest: optional string contextId, a TASK_STATE_* status, pageSize 1 to
/// 100, a pageToken this server issued, a non-negative historyLength, an RFC 3339
/// statusTimestampAfter and a boolean includeArtifacts. Absent params mean all defaults.
ParamsRead<ListTasksParams> readListTasksParams(const std::optional<Json>& params);

/// Params that must be an object when present (`optional`) or always: the methods whose
/// params the mock does not read further (push configs, the extended card).
std::string checkObjectParams(const std::optional<Json>& params, bool optional);

}  // namespace agentvcr::sim::a2a
