#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace agentvcr::protocol {

using Json = nlohmann::json;

/// Why a body is not acceptable JSON. `offset` is the 0-based index of the byte where parsing
/// stopped (for excessive depth: the first bracket beyond the limit).
struct JsonSyntaxError {
  std::size_t offset = 0;
  std::string message;
};

/// The result of parseJson(): a value, or the syntax error.
struct JsonParseResult {
  std::optional<Json> value;
  JsonSyntaxError error;  ///< meaningful only when `value` is empty
};

inline constexpr std::size_t kDefaultMaxJsonDepth = 512;

/// Parses untrusted text without throwing. Rejects what the MAGMA contract rejects and a
/// lenient parser would take: NaN/Infinity lexemes, numbers that overflow to infinity (1e400),
/// trailing garbage, invalid UTF-8 and lone surrogate escapes in strings, empty input, and more
/// than `max_depth` nested arrays/objects (checked while parsing, before the container is built,
/// so hostile nesting costs neither stack nor memory).
///
/// Documented choices:
/// - a duplicated key keeps its last value, as Python's json module does;
/// - integers keep their exact value within [-2^63, 2^64-1]; larger ones become doubles
///   (Python keeps them exact; the MAGMA validators then reject them as ids, see validation.hpp);
/// - a leading UTF-8 byte order mark is skipped, as json.loads does on the bytes FastAPI reads.
///
/// Most documents are read by simdjson (about twenty times faster); whatever it refuses or
/// cannot read exactly goes to parseJsonExact(), so the results are the same.
JsonParseResult parseJson(std::string_view text, std::size_t max_depth = kDefaultMaxJsonDepth);

/// The reference parseJson(): nlohmann's parser alone. parseJson() gives the same value or the
/// same error for every input; tests and the fuzz target hold it to that.
JsonParseResult parseJsonExact(std::string_view text, std::size_t max_depth = kDefaultMaxJsonDepth);

/// `text`, a document parseJson() accepts, with each member and element on a line of its own,
/// `indent` spaces deeper per level: only the whitespace between tokens changes. Members stay in
/// the order sent, a name written twice stays twice, numbers, escapes and the rest keep the
/// sender's bytes; nlohmann's dump() would sort the keys and respell them. nullopt when `text` is
/// not JSON. For people reading a body as it went over the wire.
std::optional<std::string> indentJson(std::string_view text, int indent = 2);

using OrderedJson = nlohmann::ordered_json;

/// parseJson() keeping the sender's member order: for bodies that are re-sent after a small
/// change (replay re-stamping a recorded answer) and must otherwise keep their shape.
std::optional<OrderedJson> parseOrderedJson(std::string_view text,
                                            std::size_t max_depth = kDefaultMaxJsonDepth);

/// The member `key` of `object`, or nullptr when `object` is not an object or has no such
/// member: recorded JSON is read as it came, and odd shapes count as absent instead of throwing.
const Json* findMember(const Json& object, std::string_view key);

/// findMember() as a value: the member, or a JSON null when there is none.
const Json& memberOrNull(const Json& object, std::string_view key);

/// Compact dump that never throws: invalid UTF-8 in strings is replaced with U+FFFD.
std::string dumpCompact(const Json& value);

/// Appends `text` as a JSON string literal, as dumpCompact() writes a string: the few escapes
/// JSON needs, the rest raw, each byte that is not valid UTF-8 as U+FFFD (dumpCompact() writes
/// one U+FFFD for a whole cut-short sequence). For writers of small fixed shapes (header
/// lists) that would otherwise build a Json tree only to dump it.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace agentvcr::protocol
