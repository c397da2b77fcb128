#pragma once

// How libpq reads a connection string, a postgresql:// URI or its keyword=value form, written
// after its own parser (fe-connect.c: conninfo_uri_parse_options, conninfo_uri_parse_params,
// conninfo_parse), so that what agentvcr masks is what libpq takes for a password
// (uri_secrets.hpp).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentvcr::fleet::detail {

/// A keyword or a value of a connection string, where it is written and what libpq makes of it.
struct ConnectionToken {
  enum class Kind { Keyword, Value };

  Kind kind = Kind::Value;
  /// A keyword's own name, or the keyword a value belongs to (a URI's parts are "user",
  /// "password", "host", "port", "dbname"), as libpq reads it.
  std::string keyword;
  std::string text;       ///< as libpq reads it: percent-decoded, or unquoted and unescaped
  std::size_t begin = 0;  ///< [begin, end): the token as written, a quoted value's quotes included
  std::size_t end = 0;
  /// libpq gives up at this token: an unknown keyword, a keyword without '=', a bad percent
  /// escape, an unclosed quote or bracket. A refused keyword's value follows it.
  bool refused = false;
};

struct ConnectionReading {
  bool uri = false;
  /// Every token, in order. Past a refused token libpq reads no further; the tokens go on as
  /// if it had, so that a password written after a mistake is found too.
  std::vector<ConnectionToken> tokens;
  /// What libpq stores, keyword and value, in the order it stores them (a later value replaces
  /// an earlier one): a URI's hosts and ports are joined by commas, as libpq joins them. Empty
  /// when refused().
  std::vector<std::pair<std::string, std::string>> settings;

  /// True when libpq refuses the string: it then reads nothing of it, not even a password.
  bool refused() const;
  /// The value libpq keeps for `keyword`, or nullopt.
  std::optional<std::string> setting(std::string_view keyword) const;
};

/// Reads `text` as libpq does: a URI when it starts with postgresql:// or postgres://, a
/// keyword=value list otherwise.
ConnectionReading readConnectionString(std::string_view text);

/// True for the keywords whose values libpq treats as secrets (its options displayed as
/// "*": password, sslpassword).
bool isSecretKeyword(std::string_view keyword);

/// True for a keyword libpq knows (requiressl and, in a URI, ssl included).
bool isConnectionKeyword(std::string_view keyword);

/// Reads a keyword=value value at `at` as libpq does: quoted ('it\'s') or unquoted with
/// backslash escapes, the unquoted one ending at white space or at any of `stops`. Returns the
/// value's text and where it ends; `*unclosed` says whether a quote was left open.
std::pair<std::string, std::size_t> readKeywordValue(std::string_view text, std::size_t at,
                                                     std::string_view stops, bool* unclosed);

/// True for the characters libpq's keyword=value parser skips as white space (C's isspace).
bool isConnectionSpace(char c);

}  // namespace agentvcr::fleet::detail
