#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "agentvcr/sim/a2a/json.hpp"

namespace agentvcr::sim::a2a {

/// The params of message/send and message/stream, checked.
struct SendParams {
  Json message;       ///< the user's message as sent
  std::string query;  ///< its text parts, joined with "\n"
  std::optional<std::string> skill_id;
  std::optional<std::string> context_id;      ///< an empty string counts as absent
  std::optional<std::string> task_id;         ///< likewise
  std::optional<std::size_t> history_length;  ///< configuration.historyLength, when read
};

/// The params of tasks/get, tasks/cancel and tasks/resubscribe, checked.
struct TaskIdParams {
  std::string id;
  std::optional<std::size_t> history_length;  ///< tasks/get only
};

/// Checked params, or the reason they are invalid: the message of a -32602 error.
template <class T>
struct ParamsRead {
  std::optional<T> value;
  std::string error;
};

/// Checks MessageSendParams as Magisterium requires: a `message` object with role "user",
/// kind "message", a non-empty messageId, and a non-empty array of valid text, data or file
/// parts; optional contextId, taskId and metadata.skillId must be strings. Unknown fields are
/// accepted. `configuration` is read (and its historyLength checked) only when
/// `read_configuration` is set: Magisterium reserves it.
ParamsRead<SendParams> readSendParams(const std::optional<Json>& params, bool read_configuration);

/// Checks TaskIdParams / TaskQueryParams: a string `id`, and with `read_history_length` an
/// optional non-negative integer historyLength.
ParamsRead<TaskIdParams> readTaskIdParams(const std::optional<Json>& params,
                                          bool read_history_length);

}  // namespace agentvcr::sim::a2a
