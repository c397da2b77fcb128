#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {

/// One "{robot}: {tool} {succeed|failed} with message: {message}" line of `infos`.
struct RobotOutcome {
  std::string robot;
  std::string tool;
  bool succeeded = false;
  std::string message;
};

/// The decoded `content` of an `env` instruction (magma-protocol.md §11). Parsing is
/// defensive: any key may be missing or of an unexpected type; nothing here throws.
struct EnvFeedback {
  bool is_json_object = false;  ///< false: `raw` is all there is
  std::string raw;
  std::optional<std::string> infos;
  std::optional<std::string> error;
  std::optional<std::string> failure_reason;
  Json previous_tool_call;               ///< null when absent; kept as sent (values may be strings)
  std::vector<RobotOutcome> outcomes;    ///< parsed from `infos`, in line order
  std::vector<std::string> other_lines;  ///< `infos` lines that do not follow the pattern

  /// True when any robot line failed or `error`/`failure_reason` is present.
  bool anyFailure() const;
};

/// Decodes env content. When it parses (parseJson) to a JSON object: `infos`, `error` and
/// `failure_reason` are taken as strings (any other JSON value as its compact text),
/// `previous_tool_call` as sent; `infos` is split on '\n', empty lines are skipped, and each
/// line is parsed as "{robot}: {tool} {succeed|failed} with message: {message}" where the robot
/// runs to the first ": " and the tool to the first outcome marker (an empty message may have
/// lost its trailing space); other lines go to `other_lines`. Otherwise only `raw` is set.
EnvFeedback decodeEnvFeedback(std::string_view content);

/// The decoded feedback as JSON, for storage and display:
/// {"infos":..,"error":..,"failure_reason":..,"previous_tool_call":..,
///  "outcomes":[{"robot","tool","succeeded","message"}],"other_lines":[..]} (absent keys omitted).
Json toJson(const EnvFeedback& feedback);

}  // namespace agentvcr::protocol
