#pragma once

// The fast path of parseJson(): simdjson finds the structure of a document about twenty times
// faster than nlohmann's lexer, and the nlohmann value is built from it. It takes only what it
// reads exactly as the exact parser (json_parse_impl.hpp) would: any document it refuses, or
// that is too deep or too large for it, goes to the exact parser, which gives the same value or
// the error callers rely on (offset, message).

#include <cstddef>
#include <optional>
#include <string_view>

namespace agentvcr::protocol::detail {

/// Documents larger than this go to the exact parser: a parser's buffers grow to the largest
/// document it has read, and every thread that parses keeps one.
inline constexpr std::size_t kFastParseLimit = 1 << 20;

/// `text` parsed into JsonT (Json or OrderedJson), or nullopt when the exact parser must decide:
/// invalid JSON, containers `max_depth` levels deep, numbers beyond 64 bits, a byte order mark,
/// or a document over kFastParseLimit.
template <class JsonT>
std::optional<JsonT> parseJsonFast(std::string_view text, std::size_t max_depth);

}  // namespace agentvcr::protocol::detail
