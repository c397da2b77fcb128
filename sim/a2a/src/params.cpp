#include "agentvcr/sim/a2a/params.hpp"

namespace agentvcr::sim::a2a {
namespace {

/// The reason a part is invalid, or "" when it is valid. Appends its text to `query`.
std::string checkPart(const Json& part, const std::string& where, std::string& query) {
  if (!part.is_object()) {
    return where + " must be an object";
  }
  const auto kind = part.find("kind");
  if (kind == part.end() || !kind->is_string()) {
    return where + ".kind must be \"text\", \"data\" or \"file\"";
  }
  if (*kind == "text") {
    const auto text = part.find("text");
    if (text == part.end() || !text->is_string()) {
      return where + ".text must be a string";
    }
    query += (query.empty() ? "" : "\n") + text->get<std::string>();
    return {};
  }
  if (*kind == "data") {
    const auto data = part.find("data");
    if (data == part.end() || !data->is_object()) {
      return where + ".data must be an object";
    }
    return {};
  }
  if (*kind == "file") {
    const auto file = part.find("file");
    if (file == part.end() || !file->is_object()) {
      return where + ".file must be an object";
    }
    const auto bytes = file->find("bytes");
    const auto uri = file->find("uri");
    const bool has_bytes = bytes != file->end() && bytes->is_string();
    const bool has_uri = uri != file->end() && uri->is_string();
    if (has_bytes == has_uri || (bytes != file->end() && uri != file->end())) {
      return where + ".file must hold exactly one of bytes and uri, as a string";
    }
    return {};
  }
  return where + ".kind must be \"text\", \"data\" or \"file\"";
}

/// Reads an optional id-like string member; "" when valid, else the reason.
std::string optionalString(const Json& object, const char* name, const std::string& where,
                           std::optional<std::string>& out) {
  const auto value = object.find(name);
  if (value == object.end() || value->is_null()) {
    return {};
  }
  if (!value->is_string()) {
    return where + "." + name + " must be a string";
  }
  if (!value->get_ref<const std::string&>().empty()) {
    out = value->get<std::string>();
  }
  return {};
}

/// Reads an optional historyLength member; "" when valid, else the reason.
std::string historyLength(const Json& object, const std::string& where,
                          std::optional<std::size_t>& out) {
  const auto value = object.find("historyLength");
  if (value == object.end() || value->is_null()) {
    return {};
  }
  if (value->is_number_unsigned()) {
    out = static_cast<std::size_t>(value->get<std::uint64_t>());
    return {};
  }
  return where + "historyLength must be a non-negative integer";
}

std::string checkMessage(const Json& message, SendParams& send) {
  if (!message.is_object()) {
    return "message must be an object";
  }
  const auto role = message.find("role");
  if (role == message.end() || *role != "user") {
    return "message.role must be \"user\"";
  }
  const auto kind = message.find("kind");
  if (kind == message.end() || *kind != "message") {
    return "message.kind must be \"message\"";
  }
  const auto message_id = message.find("messageId");
  if (message_id == message.end() || !message_id->is_string() ||
      message_id->get_ref<const std::string&>().empty()) {
    return "message.messageId must be a non-empty string";
  }
  const auto parts = message.find("parts");
  if (parts == message.end() || !parts->is_array() || parts->empty()) {
    return "message.parts must be a non-empty array";
  }
  for (std::size_t i = 0; i < parts->size(); ++i) {
    if (auto problem =
            checkPart((*parts)[i], "message.parts[" + std::to_string(i) + "]", send.query);
        !problem.empty()) {
      return problem;
    }
  }
  for (auto [name, out] :
       {std::pair{"contextId", &send.context_id}, std::pair{"taskId", &send.task_id}}) {
    if (auto problem = optionalString(message, name, "message", *out); !problem.empty()) {
      return problem;
    }
  }
  const auto metadata = message.find("metadata");
  if (metadata != message.end() && !metadata->is_null()) {
    if (!metadata->is_object()) {
      return "message.metadata must be an object";
    }
    const auto skill = metadata->find("skillId");
    if (skill != metadata->end() && !skill->is_null()) {
      if (!skill->is_string()) {
        return "message.metadata.skillId must be a string";
      }
      send.skill_id = skill->get<std::string>();
    }
  }
  return {};
}

}  // namespace

ParamsRead<SendParams> readSendParams(const std::optional<Json>& params, bool read_configuration) {
  if (!params || !params->is_object()) {
    return {std::nullopt, "params must be an object"};
  }
  SendParams send;
  const auto message = params->find("message");
  if (message == params->end()) {
    return {std::nullopt, "message must be an object"};
  }
  if (auto problem = checkMessage(*message, send); !problem.empty()) {
    return {std::nullopt, problem};
  }
  send.message = *message;
  const auto configuration = params->find("configuration");
  if (read_configuration && configuration != params->end() && !configuration->is_null()) {
    if (!configuration->is_object()) {
      return {std::nullopt, "configuration must be an object"};
    }
    if (auto problem = historyLength(*configuration, "configuration.", send.history_length);
        !problem.empty()) {
      return {std::nullopt, problem};
    }
  }
  return {std::move(send), {}};
}

ParamsRead<TaskIdParams> readTaskIdParams(const std::optional<Json>& params,
                                          bool read_history_length) {
  if (!params || !params->is_object()) {
    return {std::nullopt, "params must be an object"};
  }
  const auto id = params->find("id");
  if (id == params->end() || !id->is_string()) {
    return {std::nullopt, "id must be a string"};
  }
  TaskIdParams task{id->get<std::string>(), std::nullopt};
  if (read_history_length) {
    if (auto problem = historyLength(*params, "", task.history_length); !problem.empty()) {
      return {std::nullopt, problem};
    }
  }
  return {std::move(task), {}};
}

}  // namespace agentvcr::sim::a2a
