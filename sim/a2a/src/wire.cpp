#include "agentvcr/sim/a2a/wire.hpp"

#include <cctype>

namespace agentvcr::sim::a2a {
namespace {

/// A v0.3 part as v1.0 writes it: the content member first, then metadata, filename and
/// mediaType. v0.3's `kind` and `file` wrapper have no v1.0 counterpart.
Json partToV10(const Json& part) {
  if (!part.is_object()) {
    return part;
  }
  Json out = Json::object();
  const std::string kind = part.value("kind", "");
  if (kind == "text" || kind == "data") {
    if (part.contains(kind)) {
      out[kind] = part[kind];
    }
  } else if (kind == "file" && part.contains("file") && part["file"].is_object()) {
    const Json& file = part["file"];
    if (file.contains("bytes")) {
      out["raw"] = file["bytes"];
    } else if (file.contains("uri")) {
      out["url"] = file["uri"];
    }
    if (file.contains("name")) {
      out["filename"] = file["name"];
    }
    if (file.contains("mimeType")) {
      out["mediaType"] = file["mimeType"];
    }
  }
  if (part.contains("metadata")) {
    out["metadata"] = part["metadata"];
  }
  return out;
}

Json partFromV10(const Json& part) {
  Json out = Json::object();
  if (part.contains("text")) {
    out["kind"] = "text";
    out["text"] = part["text"];
  } else if (part.contains("data")) {
    out["kind"] = "data";
    out["data"] = part["data"];
  } else {
    out["kind"] = "file";
    Json file = Json::object();
    if (part.contains("raw")) {
      file["bytes"] = part["raw"];
    } else {
      file["uri"] = part["url"];
    }
    if (part.contains("filename")) {
      file["name"] = part["filename"];
    }
    if (part.contains("mediaType")) {
      file["mimeType"] = part["mediaType"];
    }
    out["file"] = std::move(file);
  }
  if (part.contains("metadata")) {
    out["metadata"] = part["metadata"];
  }
  return out;
}

/// `object` with its `parts` mapped by `convert`, and without `kind` when `drop_kind`.
template <class Convert>
Json withParts(const Json& object, bool drop_kind, Convert convert) {
  Json out = Json::object();
  for (const auto& [key, value] : object.items()) {
    if (drop_kind && key == "kind") {
      continue;
    }
    if (key == "parts" && value.is_array()) {
      Json& parts = out["parts"] = Json::array();
      for (const Json& part : value) {
        parts.push_back(convert(part));
      }
    } else {
      out[key] = value;
    }
  }
  return out;
}

}  // namespace

std::optional<WireVersion> versionFromText(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  for (auto [prefix, version] : {std::pair{std::string_view("0.3"), WireVersion::V03},
                                 std::pair{std::string_view("1.0"), WireVersion::V10}}) {
    if (text.substr(0, prefix.size()) != prefix) {
      continue;
    }
    const std::string_view patch = text.substr(prefix.size());
    if (patch.empty()) {
      return version;
    }
    if (patch.size() > 1 && patch.front() == '.' &&
        patch.find_first_not_of("0123456789", 1) == std::string_view::npos) {
      return version;
    }
  }
  return std::nullopt;
}

Json messageOut(const Json& message, WireVersion version) {
  if (version == WireVersion::V03 || !message.is_object()) {
    return message;
  }
  Json out = withParts(message, true, partToV10);
  if (out.contains("role")) {
    out["role"] = out["role"] == "agent" ? "ROLE_AGENT" : "ROLE_USER";
  }
  return out;
}

Json artifactOut(const Json& artifact, WireVersion version) {
  if (version == WireVersion::V03 || !artifact.is_object()) {
    return artifact;
  }
  return withParts(artifact, true, partToV10);
}

Json messageFromV10(const Json& message) {
  Json out = Json::object();
  out["kind"] = "message";
  const Json converted = withParts(message, false, partFromV10);
  for (const auto& [key, value] : converted.items()) {
    out[key] = key == "role" ? Json(value == "ROLE_AGENT" ? "agent" : "user") : value;
  }
  return out;
}

Json knownMessageFields(const Json& message) {
  if (!message.is_object()) {
    return message;
  }
  Json out = onlyMembers(message, {"kind", "messageId", "contextId", "taskId", "role", "parts",
                                   "metadata", "extensions", "referenceTaskIds"});
  if (out.contains("parts") && out["parts"].is_array()) {
    for (Json& part : out["parts"]) {
      if (!part.is_object()) {
        continue;
      }
      part = onlyMembers(part, {"kind", "text", "file", "data", "metadata"});
      if (part.contains("file") && part["file"].is_object()) {
        part["file"] = onlyMembers(part["file"], {"bytes", "uri", "name", "mimeType"});
      }
    }
  }
  return out;
}

}  // namespace agentvcr::sim::a2a
