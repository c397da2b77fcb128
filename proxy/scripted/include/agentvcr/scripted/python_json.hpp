#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace agentvcr::scripted {

/// Serialises a value exactly as Python's `json.dumps(value, ensure_ascii=...)` does with its
/// default separators (", " and ": "), which is how BENCH writes request bodies and env
/// `content` (magma-protocol.md §11.2, §16):
/// - keys in the value's own order (ordered_json keeps insertion order, like a Python dict);
/// - `ensure_ascii` true: every character outside U+0020..U+007E is written as a lowercase
///   `\uXXXX` escape, astral characters as a surrogate pair; false: raw UTF-8, only the
///   characters JSON requires are escaped (full-history's MODEL memory entries);
/// - the short escapes `\" \\ \n \r \t \b \f`, other control characters as `\u00XX`;
/// - floats as Python's `repr(float)`: shortest round-trip digits, a trailing ".0" on whole
///   numbers, exponent form (`1e+16`, `1e-05`) below 1e-4 and from 1e16 on;
/// - non-finite doubles as Python's default `NaN`/`Infinity`/`-Infinity` (BENCH's
///   `allow_nan=False` would refuse them; nothing in agentvcr produces them).
/// Invalid UTF-8 in a string is written as U+FFFD. Never throws.
std::string pythonJsonDumps(const nlohmann::ordered_json& value, bool ensure_ascii = true);

/// Python's `repr(float)` of a double (used by pythonJsonDumps; exposed for tests).
std::string pythonFloatRepr(double value);

}  // namespace agentvcr::scripted
