#include "agentvcr/sim/a2a/fates.hpp"

#include <charconv>

namespace agentvcr::sim::a2a {
namespace {

constexpr std::string_view kIdMarker = "fate-";
constexpr std::string_view kTextMarker = "[fate:";
constexpr int kMaxStreamUpdates = 100;

std::optional<TaskState> stateFromName(std::string_view name) {
  if (name == "completed") {
    return TaskState::Completed;
  }
  if (name == "input-required") {
    return TaskState::InputRequired;
  }
  if (name == "failed") {
    return TaskState::Failed;
  }
  if (name == "rejected") {
    return TaskState::Rejected;
  }
  return std::nullopt;
}

/// One turn of fates.json, or why it is not one.
std::optional<FateTurn> readTurn(const Json& turn, std::string& error) {
  if (!turn.is_object()) {
    error = "a turn must be an object";
    return std::nullopt;
  }
  FateTurn out;
  const std::string state = turn.value("state", std::string("completed"));
  const auto parsed = stateFromName(state);
  if (!parsed) {
    error = "unknown state '" + state + "' (completed, input-required, failed or rejected)";
    return std::nullopt;
  }
  out.state = *parsed;
  if (turn.contains("text") && !turn["text"].is_string()) {
    error = "text must be a string";
    return std::nullopt;
  }
  out.text = turn.value("text", std::string());
  if (turn.contains("artifact")) {
    if (!turn["artifact"].is_array() || turn["artifact"].empty()) {
      error = "artifact must be a non-empty array of parts";
      return std::nullopt;
    }
    for (const Json& part : turn["artifact"]) {
      if (!part.is_object() || !part.contains("kind")) {
        error = "an artifact part must be a v0.3 part, with its kind";
        return std::nullopt;
      }
      out.artifact_parts.push_back(part);
    }
  }
  out.chunked = turn.value("chunked", false);
  out.message_reply = turn.value("message", false);
  out.updates = turn.value("updates", 0);
  if (out.updates < 0 || out.updates > kMaxStreamUpdates) {
    error = "updates must be 0 to " + std::to_string(kMaxStreamUpdates);
    return std::nullopt;
  }
  if (out.message_reply && (!out.artifact_parts.empty() || out.state != TaskState::Completed)) {
    error = "a message reply has no state and no artifact";
    return std::nullopt;
  }
  return out;
}

/// `stream-N`: N working updates, then a completed task with one text artifact.
std::optional<Fate> streamFate(std::string_view name) {
  constexpr std::string_view kPrefix = "stream-";
  if (!name.starts_with(kPrefix)) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(kPrefix.size());
  int updates = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), updates);
  if (error != std::errc() || end != digits.data() + digits.size() || updates < 1 ||
      updates > kMaxStreamUpdates) {
    return std::nullopt;
  }
  FateTurn turn;
  turn.updates = updates;
  turn.text = "Streamed " + std::to_string(updates) + " updates";
  turn.artifact_parts.push_back({{"kind", "text"}, {"text", turn.text}});
  return Fate{std::string(name), {turn}};
}

}  // namespace

FateTableLoad FateTable::fromJson(const Json& document) {
  if (!document.is_object() || !document.contains("fates") || !document["fates"].is_array()) {
    return {std::nullopt, "expected {\"fates\": [...]}"};
  }
  FateTable table;
  for (const Json& entry : document["fates"]) {
    const std::string name = entry.is_object() ? entry.value("name", std::string()) : "";
    if (name.empty()) {
      return {std::nullopt, "every fate needs a non-empty name"};
    }
    if (!entry.contains("turns") || !entry["turns"].is_array() || entry["turns"].empty()) {
      return {std::nullopt, "fate '" + name + "': turns must be a non-empty array"};
    }
    Fate fate{name, {}};
    for (const Json& turn : entry["turns"]) {
      std::string error;
      auto read = readTurn(turn, error);
      if (!read) {
        return {std::nullopt, "fate '" + name + "': " + error};
      }
      fate.turns.push_back(std::move(*read));
    }
    table.prefixes_[std::string(kIdMarker) + name] = name;
    for (const Json& prefix : entry.value("prefixes", Json::array())) {
      if (!prefix.is_string() || prefix.get_ref<const std::string&>().empty()) {
        return {std::nullopt, "fate '" + name + "': prefixes must be non-empty strings"};
      }
      table.prefixes_[prefix.get<std::string>()] = name;
    }
    table.fates_[name] = std::move(fate);
  }
  return {std::move(table), {}};
}

std::optional<Fate> FateTable::named(std::string_view name) const {
  if (auto found = fates_.find(name); found != fates_.end()) {
    return found->second;
  }
  return streamFate(name);
}

std::optional<Fate> FateTable::forMessage(const Json& message) const {
  if (!message.is_object()) {
    return std::nullopt;
  }
  // A text marker first: it is the caller's word in the message itself.
  const Json& parts = message.contains("parts") ? message["parts"] : Json::array();
  if (parts.is_array() && !parts.empty() && parts[0].is_object() && parts[0].contains("text") &&
      parts[0]["text"].is_string()) {
    const std::string& text = parts[0]["text"].get_ref<const std::string&>();
    if (text.starts_with(kTextMarker)) {
      const std::size_t end = text.find(']');
      if (end != std::string::npos) {
        return named(std::string_view(text).substr(kTextMarker.size(), end - kTextMarker.size()));
      }
    }
  }
  const std::string message_id = message.value("messageId", std::string());
  if (message_id.empty()) {
    return std::nullopt;
  }
  // The longest prefix of message_id among the table's: in the ordered map, the prefixes of an
  // id come before it, longer after shorter; walk back from the first key above the id.
  for (auto it = prefixes_.upper_bound(message_id); it != prefixes_.begin();) {
    --it;
    if (message_id.starts_with(it->first)) {
      return fates_.at(it->second);
    }
    if (it->first.empty() || it->first[0] != message_id[0]) {
      break;
    }
  }
  if (message_id.starts_with(kIdMarker)) {
    return streamFate(std::string_view(message_id).substr(kIdMarker.size()));
  }
  return std::nullopt;
}

}  // namespace agentvcr::sim::a2a
