#include "agentvcr/protocol/env_feedback.hpp"

namespace agentvcr::protocol {
namespace {

constexpr std::string_view kSucceeded = " succeed with message: ";
constexpr std::string_view kFailed = " failed with message: ";

/// A string member as sent, the compact dump of any other JSON value, nullopt when absent.
std::optional<std::string> textMember(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) {
    return std::nullopt;
  }
  if (it->is_string()) {
    return it->get<std::string>();
  }
  return dumpCompact(*it);
}

/// The marker's position in `rest`, also accepting it without its trailing space at the very
/// end of the line (an empty message whose trailing space was trimmed).
std::size_t findMarker(std::string_view rest, std::string_view marker, std::size_t& length) {
  std::size_t at = rest.find(marker);
  if (at != std::string_view::npos) {
    length = marker.size();
    return at;
  }
  std::string_view trimmed = marker.substr(0, marker.size() - 1);
  if (rest.size() >= trimmed.size() && rest.substr(rest.size() - trimmed.size()) == trimmed) {
    length = trimmed.size();
    return rest.size() - trimmed.size();
  }
  return std::string_view::npos;
}

/// "{robot}: {tool} {succeed|failed} with message: {message}". The robot runs to the first
/// ": ", the tool to the first outcome marker; the message is the rest, whatever it holds.
std::optional<RobotOutcome> parseOutcomeLine(std::string_view line) {
  std::size_t colon = line.find(": ");
  if (colon == std::string_view::npos || colon == 0) {
    return std::nullopt;
  }
  std::string_view rest = line.substr(colon + 2);
  std::size_t success_length = 0;
  std::size_t failure_length = 0;
  std::size_t success = findMarker(rest, kSucceeded, success_length);
  std::size_t failure = findMarker(rest, kFailed, failure_length);
  if (success == std::string_view::npos && failure == std::string_view::npos) {
    return std::nullopt;
  }
  bool succeeded = success < failure;  // npos is the largest value: the first marker wins
  std::size_t at = succeeded ? success : failure;
  std::size_t length = succeeded ? success_length : failure_length;
  if (at == 0) {
    return std::nullopt;  // no tool name
  }
  return RobotOutcome{std::string(line.substr(0, colon)), std::string(rest.substr(0, at)),
                      succeeded, std::string(rest.substr(at + length))};
}

}  // namespace

bool EnvFeedback::anyFailure() const {
  if (error || failure_reason) {
    return true;
  }
  for (const RobotOutcome& outcome : outcomes) {
    if (!outcome.succeeded) {
      return true;
    }
  }
  return false;
}

EnvFeedback decodeEnvFeedback(std::string_view content) {
  EnvFeedback feedback;
  feedback.raw = std::string(content);
  auto parsed = parseJson(content);
  if (!parsed.value || !parsed.value->is_object()) {
    return feedback;
  }
  const Json& object = *parsed.value;
  feedback.is_json_object = true;
  feedback.infos = textMember(object, "infos");
  feedback.error = textMember(object, "error");
  feedback.failure_reason = textMember(object, "failure_reason");
  if (auto it = object.find("previous_tool_call"); it != object.end()) {
    feedback.previous_tool_call = *it;
  }
  if (feedback.infos) {
    std::string_view infos = *feedback.infos;
    std::size_t start = 0;
    while (start <= infos.size()) {
      std::size_t end = infos.find('\n', start);
      if (end == std::string_view::npos) {
        end = infos.size();
      }
      std::string_view line = infos.substr(start, end - start);
      if (!line.empty()) {
        if (auto outcome = parseOutcomeLine(line)) {
          feedback.outcomes.push_back(std::move(*outcome));
        } else {
          feedback.other_lines.emplace_back(line);
        }
      }
      start = end + 1;
    }
  }
  return feedback;
}

Json toJson(const EnvFeedback& feedback) {
  Json out = Json::object();
  if (feedback.infos) {
    out["infos"] = *feedback.infos;
  }
  if (feedback.error) {
    out["error"] = *feedback.error;
  }
  if (feedback.failure_reason) {
    out["failure_reason"] = *feedback.failure_reason;
  }
  if (!feedback.previous_tool_call.is_null()) {
    out["previous_tool_call"] = feedback.previous_tool_call;
  }
  Json outcomes = Json::array();
  for (const RobotOutcome& outcome : feedback.outcomes) {
    outcomes.push_back(Json{{"robot", outcome.robot},
                            {"tool", outcome.tool},
                            {"succeeded", outcome.succeeded},
                            {"message", outcome.message}});
  }
  out["outcomes"] = std::move(outcomes);
  out["other_lines"] = feedback.other_lines;
  return out;
}

}  // namespace agentvcr::protocol
