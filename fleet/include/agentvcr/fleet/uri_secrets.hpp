#pragma once

#include <string>
#include <string_view>

/// Keeping a fleet archive's password out of everything agentvcr prints (docs/fleet.md,
/// "Credentials and transport"). A connection string is a postgresql:// URI or libpq's
/// key=value form; either may carry a password, which libpq quotes back in some of its errors
/// (a URI it cannot parse, whole).
namespace agentvcr::fleet {

/// True when `text` names a PostgreSQL archive rather than a file (postgresql:// or postgres://).
bool isPostgresUri(std::string_view text);

/// `uri` with any password replaced by `***`: in a URI's user info, in a `password` query
/// parameter, or in a key=value connection string. Malformed URIs too.
std::string redactedUri(std::string_view uri);

/// True when `uri` carries a password itself rather than leaving it to libpq's safer sources.
bool carriesPassword(std::string_view uri);

/// What to say when carriesPassword(): the safer places for a password, which libpq reads.
std::string passwordWarning();

/// `message` with `uri` replaced by redactedUri(uri), and every occurrence of the password `uri`
/// carries (as written and percent-decoded) replaced by `***`: for any text that may quote a
/// connection string, such as libpq's error messages.
std::string scrubbed(std::string_view message, std::string_view uri);

/// `message` with the password of every connection string it quotes masked, whatever the
/// message and wherever the string came from: the last guard before any error is printed.
std::string withoutPasswords(std::string_view message);

}  // namespace agentvcr::fleet
