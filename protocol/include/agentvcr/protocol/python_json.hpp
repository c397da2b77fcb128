#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace agentvcr::protocol {

/// The json.dumps() arguments pythonJsonDumps() reproduces. The default is the compact form of
/// canonical JSON and the FastAPI serialisers: `separators=(",", ":"), ensure_ascii=False`.
struct PythonJsonStyle {
  /// Python's default separators `", "` and `": "` instead of `","` and `":"`.
  bool spaced = false;
  /// `ensure_ascii=True`: every character outside U+0020..U+007E (DEL included) is written as a
  /// lowercase `\uXXXX` escape, characters above U+FFFF as a surrogate pair. When false, raw
  /// UTF-8 is written and only `"`, `\` and control characters are escaped.
  bool ensure_ascii = false;
  /// `allow_nan=True`: non-finite doubles are written as `NaN`, `Infinity`, `-Infinity`, as
  /// Python does by default. When false they are written as `null` (where Python would raise
  /// ValueError), so the text stays valid JSON. Parsed JSON never holds them.
  bool allow_nan = false;

  bool operator==(const PythonJsonStyle&) const = default;
};

/// Python's own defaults, `json.dumps(value)`: how BENCH writes request bodies and env
/// `content` (magma-protocol.md §11.2, §16).
inline constexpr PythonJsonStyle kPythonDefaultStyle{
    .spaced = true, .ensure_ascii = true, .allow_nan = true};

/// The text Python's `json.dumps(value, ...)` writes for the same document with the arguments
/// `style` stands for:
/// - members in the value's iteration order: sorted by UTF-8 bytes (code-point order, i.e.
///   `sort_keys=True`) for nlohmann::json, insertion order (a Python dict's) for ordered_json;
/// - strings with the short escapes `\" \\ \n \r \t \b \f`, other control characters as
///   lowercase `\u00xx`, `/` unescaped; the rest as `style.ensure_ascii` says;
/// - integers with their exact digits; doubles as pythonFloatRepr() writes them, except that
///   non-finite ones follow `style.allow_nan`;
/// - binary values (not JSON) as `null`.
/// Never throws: bytes that are not valid UTF-8 become U+FFFD, one per byte.
std::string pythonJsonDumps(const nlohmann::json& value, PythonJsonStyle style = {});

/// As above, keeping the insertion order of members.
std::string pythonJsonDumps(const nlohmann::ordered_json& value, PythonJsonStyle style = {});

/// The style a JSON text was most likely written in, so that a value taken from it can be
/// written back the same way: `spaced` when the first member separator is `": "`, `ensure_ascii`
/// when the text is pure ASCII and escapes some non-ASCII character as `\uXXXX`. Texts that
/// show neither give the compact, raw-UTF-8 default. `allow_nan` stays false.
PythonJsonStyle detectPythonJsonStyle(std::string_view text);

/// What json.dumps writes for a Python float: `repr(value)`, the shortest digits that round-trip,
/// positional for decimal exponents in [-4, 16) with ".0" on whole numbers (`1.0`,
/// `1000000000000000.0`, `0.0001`), else exponent form (`1e+16`, `1e-05`, `1.5e-07`); `-0.0`
/// keeps its sign. Non-finite values give `NaN`, `Infinity` and `-Infinity`.
std::string pythonFloatRepr(double value);

}  // namespace agentvcr::protocol
