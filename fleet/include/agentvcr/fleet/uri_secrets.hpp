#pragma once

#include <string>
#include <string_view>
#include <vector>

/// Keeping a fleet archive's password out of everything agentvcr prints (docs/fleet.md,
/// "Credentials and transport"). A connection string is a postgresql:// URI or libpq's
/// key=value form; either may carry a password, which libpq quotes back in some of its errors
/// (a URI it cannot parse, whole; the parts it made of a password it did not read as one).
/// Each string is read exactly as libpq reads it, so a password is masked whatever characters
/// it holds; where libpq reads a password otherwise than it was meant ('/' or '@' unencoded in
/// a URI's, a space unquoted in a keyword's), all of what it may be is masked.
namespace agentvcr::fleet {

/// True when `text` names a PostgreSQL archive rather than a file (postgresql:// or postgres://).
bool isPostgresUri(std::string_view text);

/// `uri` with any password (or sslpassword) replaced by `***`: in a URI's user info, in a query
/// parameter, or in a key=value connection string. Malformed ones too.
std::string redactedUri(std::string_view uri);

/// True when `uri` carries a password itself rather than leaving it to libpq's safer sources.
bool carriesPassword(std::string_view uri);

/// What to say when carriesPassword(): the safer places for a password, which libpq reads.
std::string passwordWarning();

/// `message` with `uri` replaced by redactedUri(uri), and every occurrence of the password `uri`
/// carries (as written, percent-decoded, unquoted) replaced by `***`, as are the parts libpq
/// made of it: for any text that may quote a connection string, such as libpq's messages.
std::string scrubbed(std::string_view message, std::string_view uri);

/// `message` with the password of every connection string it quotes masked, whatever the
/// message and wherever the string came from: the last guard before any error is printed.
std::string withoutPasswords(std::string_view message);

/// withoutPasswords() after scrubbed() of each of `arguments` that carries a password: for what
/// a command prints, whose messages may quote any of its arguments (a connection string given
/// where a file was expected, one CLI11 could not place).
std::string withoutPasswords(std::string_view message, const std::vector<std::string>& arguments);

}  // namespace agentvcr::fleet
