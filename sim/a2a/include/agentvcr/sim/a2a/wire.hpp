#pragma once

#include <optional>
#include <string_view>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/sim/a2a/json.hpp"

namespace agentvcr::sim::a2a {

/// The A2A version a request speaks: v0.3 (`message/send`, `kind` fields, lower-case enums) or
/// v1.0 (`SendMessage`, ProtoJSON: no `kind`, `ROLE_USER`, `TASK_STATE_WORKING`).
using protocol::a2a::WireVersion;

/// The version an `A2A-Version` value names: "0.3" or "1.0", a patch number allowed ("1.0.2").
/// nullopt for any other value. A request without the header speaks 0.3 (a2a-v1.md).
std::optional<WireVersion> versionFromText(std::string_view text);

/// A stored message (v0.3 shape) as `version` writes it. v1.0 drops `kind`, spells the role
/// `ROLE_USER`/`ROLE_AGENT` and writes each part as one of `text`, `raw`, `url` or `data`.
/// Members keep their order.
Json messageOut(const Json& message, WireVersion version);

/// A stored artifact (v0.3 shape) as `version` writes it: its parts converted as above.
Json artifactOut(const Json& artifact, WireVersion version);

/// A v1.0 message, already checked, in the shape the store keeps (v0.3): `kind:"message"`,
/// role `user`/`agent`, parts with `kind`; `raw` and `url` become `file.bytes` and
/// `file.uri`, `filename` and `mediaType` become `file.name` and `file.mimeType`.
Json messageFromV10(const Json& message);

/// A caller's message in the store's shape (v0.3) with only the members A2A defines, in the
/// message, its parts and their files: a field the mock does not know is ignored, never kept
/// or echoed (the A2A specification asks receivers to ignore unknown fields).
Json knownMessageFields(const Json& message);

}  // namespace agentvcr::sim::a2a
