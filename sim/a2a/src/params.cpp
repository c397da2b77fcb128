#include "agentvcr/sim/a2a/params.hpp"

#include <algorithm>
#include <array>

namespace agentvcr::sim::a2a {
namespace {

constexpr std::array<std::string_view, 9> kV10States = {
    "TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED",      "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",   "TASK_STATE_FAILED",         "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",    "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED",
};

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

/// contextId, taskId and metadata.skillId, common to both versions' messages.
std::string readMessageIds(const Json& message, SendParams& send) {
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

/// The reason a v1.0 part is invalid, or "" when it is valid. Appends its text to `query`.
std::string checkPartV10(const Json& part, const std::string& where, std::string& query) {
  if (!part.is_object()) {
    return where + " must be an object";
  }
  int contents = 0;
  for (const char* member : {"text", "raw", "url", "data"}) {
    contents += part.contains(member) ? 1 : 0;
  }
  if (contents != 1) {
    return where + " must hold exactly one of text, raw, url and data";
  }
  for (const char* member : {"text", "raw", "url", "filename", "mediaType"}) {
    if (part.contains(member) && !part[member].is_string()) {
      return where + "." + member + " must be a string";
    }
  }
  if (part.contains("metadata") && !part["metadata"].is_object()) {
    return where + ".metadata must be an object";
  }
  if (part.contains("text")) {
    query += (query.empty() ? "" : "\n") + part["text"].get<std::string>();
  }
  return {};
}

/// Reads an optional boolean member; "" when valid, else the reason.
std::string optionalBool(const Json& object, const char* name, const std::string& where,
                         std::optional<bool>& out) {
  const auto value = object.find(name);
  if (value == object.end() || value->is_null()) {
    return {};
  }
  if (!value->is_boolean()) {
    return where + name + " must be a boolean";
  }
  out = value->get<bool>();
  return {};
}

/// The `configuration` of a send: historyLength in both versions, then v0.3's `blocking` or
/// v1.0's `returnImmediately` and `acceptedOutputModes`.
std::string readConfiguration(const Json& params, WireVersion version, SendParams& send) {
  const auto configuration = params.find("configuration");
  if (configuration == params.end() || configuration->is_null()) {
    return {};
  }
  if (!configuration->is_object()) {
    return "configuration must be an object";
  }
  if (auto problem = historyLength(*configuration, "configuration.", send.history_length);
      !problem.empty()) {
    return problem;
  }
  std::optional<bool> flag;
  const bool v10 = version == WireVersion::V10;
  if (auto problem = optionalBool(*configuration, v10 ? "returnImmediately" : "blocking",
                                  "configuration.", flag);
      !problem.empty()) {
    return problem;
  }
  if (flag) {
    send.blocking = v10 ? !*flag : *flag;
  }
  const auto modes = configuration->find("acceptedOutputModes");
  if (modes != configuration->end() && !modes->is_null()) {
    const bool strings =
        modes->is_array() &&
        std::all_of(modes->begin(), modes->end(), [](const Json& m) { return m.is_string(); });
    if (!strings) {
      return "configuration.acceptedOutputModes must be an array of strings";
    }
  }
  return {};
}

/// Checks the message of a send in `version`'s shape: role `user` and kind `message` in v0.3,
/// role `ROLE_USER` in v1.0; a non-empty messageId; non-empty parts of that version.
std::string checkMessage(const Json& message, WireVersion version, SendParams& send) {
  if (!message.is_object()) {
    return "message must be an object";
  }
  const bool v10 = version == WireVersion::V10;
  const char* user = v10 ? "ROLE_USER" : "user";
  const auto role = message.find("role");
  if (role == message.end() || *role != user) {
    return std::string("message.role must be \"") + user + "\"";
  }
  const auto kind = message.find("kind");
  if (!v10 && (kind == message.end() || *kind != "message")) {
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
  const auto check_part = v10 ? checkPartV10 : checkPart;
  for (std::size_t i = 0; i < parts->size(); ++i) {
    if (auto problem =
            check_part((*parts)[i], "message.parts[" + std::to_string(i) + "]", send.query);
        !problem.empty()) {
      return problem;
    }
  }
  return readMessageIds(message, send);
}

}  // namespace

ParamsRead<SendParams> readSendParams(const std::optional<Json>& params, WireVersion version,
                                      bool read_configuration, bool keep_unknown_fields) {
  if (!params || !params->is_object()) {
    return {std::nullopt, "params must be an object"};
  }
  SendParams send;
  const auto message = params->find("message");
  if (message == params->end()) {
    return {std::nullopt, "message must be an object"};
  }
  if (auto problem = checkMessage(*message, version, send); !problem.empty()) {
    return {std::nullopt, problem};
  }
  if (read_configuration) {
    if (auto problem = readConfiguration(*params, version, send); !problem.empty()) {
      return {std::nullopt, problem};
    }
  }
  send.message = version == WireVersion::V10 ? messageFromV10(*message) : *message;
  if (!keep_unknown_fields) {
    send.message = knownMessageFields(send.message);
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

ParamsRead<ListTasksParams> readListTasksParams(const std::optional<Json>& params) {
  ListTasksParams list;
  if (!params || params->is_null()) {
    return {list, {}};
  }
  if (!params->is_object()) {
    return {std::nullopt, "params must be an object"};
  }
  if (auto problem = optionalString(*params, "contextId", "params", list.context_id);
      !problem.empty()) {
    return {std::nullopt, problem};
  }
  if (const auto status = params->find("status"); status != params->end() && !status->is_null()) {
    if (!status->is_string() || std::find(kV10States.begin(), kV10States.end(),
                                          status->get<std::string>()) == kV10States.end()) {
      return {std::nullopt, "status must be a TASK_STATE_* name"};
    }
    if (*status != "TASK_STATE_UNSPECIFIED") {
      list.status = status->get<std::string>();
    }
  }
  if (const auto size = params->find("pageSize"); size != params->end() && !size->is_null()) {
    if (!size->is_number_integer() || size->get<std::int64_t>() < 1 ||
        size->get<std::int64_t>() > 100) {
      return {std::nullopt, "pageSize must be an integer from 1 to 100"};
    }
    list.page_size = size->get<std::size_t>();
  }
  if (const auto token = params->find("pageToken"); token != params->end() && !token->is_null()) {
    // The tokens this server issues are offsets into the sorted list; anything else is not one.
    const bool offset =
        token->is_string() && !token->get_ref<const std::string&>().empty() &&
        token->get_ref<const std::string&>().size() < 10 &&
        token->get_ref<const std::string&>().find_first_not_of("0123456789") == std::string::npos;
    if (token->is_string() && token->get_ref<const std::string&>().empty()) {
      list.offset = 0;
    } else if (!offset) {
      return {std::nullopt, "pageToken is not one this server issued"};
    } else {
      list.offset = std::stoul(token->get<std::string>());
    }
  }
  if (auto problem = historyLength(*params, "", list.history_length); !problem.empty()) {
    return {std::nullopt, problem};
  }
  if (const auto after = params->find("statusTimestampAfter");
      after != params->end() && !after->is_null()) {
    list.status_timestamp_after =
        after->is_string() ? parseIsoTimestamp(after->get<std::string>()) : std::nullopt;
    if (!list.status_timestamp_after) {
      return {std::nullopt, "statusTimestampAfter must be an RFC 3339 timestamp"};
    }
  }
  std::optional<bool> include;
  if (auto problem = optionalBool(*params, "includeArtifacts", "", include); !problem.empty()) {
    return {std::nullopt, problem};
  }
  list.include_artifacts = include.value_or(false);
  return {std::move(list), {}};
}

std::string checkObjectParams(const std::optional<Json>& params, bool optional) {
  if (!params || params->is_null()) {
    return optional ? std::string() : std::string("params must be an object");
  }
  return params->is_object() ? std::string() : std::string("params must be an object");
}

}  // namespace agentvcr::sim::a2a
