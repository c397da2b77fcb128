#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {

/// The canonical text of a JSON value: keys sorted by their UTF-8 bytes, compact separators,
/// strings with escapes decoded (raw UTF-8; only the escapes JSON requires), integers with
/// their exact digits, doubles in shortest round-trip form. Two values that Python's `json`
/// would load as equal have the same canonical text, whatever their spacing or escaping.
///
/// The text is exactly Python's
/// `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` of the same
/// document: doubles as repr() writes them (`1.0`, `-0.0`, `1e+16`, `1000000000000000.0`,
/// `1e-05`), so 1 and 1.0 stay distinct, and the integer `-0` is `0`. Control characters are
/// escaped as `\n`, `\t`... or `\u00xx`; `/` and non-ASCII are written raw. Never throws:
/// invalid UTF-8 (possible only in values built in code) becomes U+FFFD, and non-finite doubles
/// (likewise) are written as `null`.
std::string canonicalJson(const Json& value);

/// A stable 64-bit hash (XXH3, seed 0) of bytes; the same on every platform and release.
std::uint64_t stableHash(std::string_view bytes);

/// stableHash(canonicalJson(value)).
std::uint64_t canonicalHash(const Json& value);

/// 16 lowercase hex digits.
std::string hashHex(std::uint64_t hash);

/// The value of one hex digit, either case; -1 for any other character.
int hexDigitValue(char c);

/// `bytes` as lowercase hex, two digits a byte.
std::string hexEncode(std::string_view bytes);

/// The bytes that `hex` (two digits a byte, either case) spells; nullopt when it is not hex.
std::optional<std::string> hexDecode(std::string_view hex);

}  // namespace agentvcr::protocol
