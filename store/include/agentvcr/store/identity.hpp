#pragma once

// What identifies a session beyond its row id, which changes with every copy: a UUID minted
// once, the node that recorded it and the agentvcr version that did (docs/schema.md,
// "Identity").

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace agentvcr::store {

/// The version of this agentvcr build ("0.1.0").
const char* agentvcrVersion();

/// A fresh random RFC 4122 UUID (version 4) as 36 lower-case characters.
std::string mintUuid();

/// The node a session is recorded on when `--node` does not name one: this machine's host name,
/// or `unknown` when it has none.
std::string localNodeName();

/// True for a uuid as text: hexadecimal digits of either case in groups of 8, 4, 4, 4 and 12,
/// joined by dashes.
bool isUuid(std::string_view text);

/// `uuid` as agentvcr spells every uuid it compares, looks up, lists or ships: in lower case, as
/// mintUuid() mints them and PostgreSQL prints them. An archive written by an older or a foreign
/// tool may spell them in upper case; one session must not become two. Text that is not a uuid
/// comes back unchanged.
std::string canonicalUuid(std::string_view uuid);

/// The first eight hex digits of `uuid`, as `agentvcr ls` and the viewer show it.
std::string shortUuid(std::string_view uuid);

/// How a user names a session: its whole uuid, or its first 8 characters or more (`ls` shows 8),
/// in either case. Returns them in lower case, as agentvcr writes uuids, or nullopt for anything
/// else: empty, shorter than 8, longer than a uuid, a character no uuid has in its place (a
/// wildcard, a space).
std::optional<std::string> uuidPrefix(std::string_view text);

/// The lowest and the highest uuid that start with `prefix` (as uuidPrefix() gives it): the
/// sessions it names lie between them, which a uuid column's index finds without a pattern.
std::pair<std::string, std::string> uuidBounds(std::string_view prefix);

}  // namespace agentvcr::store
