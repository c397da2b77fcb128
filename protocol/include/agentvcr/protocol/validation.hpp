#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {

/// One step of a location inside a JSON document: an object key or an array index.
using PathElement = std::variant<std::string, std::int64_t>;
using JsonPath = std::vector<PathElement>;

/// RFC 6901 pointer of a path: {"inputs", 0, "id"} -> "/inputs/0/id".
std::string toJsonPointer(const JsonPath& path);

/// One validation failure, shaped like a FastAPI/Pydantic error so that a 422 body can be
/// built from it: `type` is the stable Pydantic error type ("missing", "extra_forbidden",
/// "int_type", "string_too_short", "greater_than", "literal_error", "value_error", ...),
/// `loc` the path (starting at "body" for request bodies is the caller's business),
/// `msg` a human sentence, `input` the offending value (null when missing).
///
/// Types and messages are Pydantic 2's for JSON input: "model_type" (a typed model that is not
/// an object), "dict_type" (a free object or map that is not an object), "list_type",
/// "string_type", "int_type", "bool_type", "float_type", "finite_number", "missing",
/// "extra_forbidden", "string_too_short", "string_pattern_mismatch", "greater_than",
/// "greater_than_equal", "literal_error", "value_error"; plus "candidate_order" for the
/// response-order rule, which BENCH checks outside the models.
///
/// Differences from Pydantic, all deliberate:
/// - every finding is reported: cross-field rules ("value_error") are checked even when other
///   fields failed, wherever the fields they need are readable (Pydantic skips model validators
///   once a field fails);
/// - a cross-field finding points at the field it is about (e.g. {"inputs", 1, "id"} for a
///   duplicated input id, {i, "output"} for a completed candidate without a decision), where
///   Pydantic reports the enclosing model's loc; only "exactly one of input_step_id/input" keeps
///   the reinjection point's own loc;
/// - integers must fit int64: larger ones (valid Python ints) are "int_type" with the message
///   "Input should be a valid integer, outside the int64 range";
/// - numbers must be finite inside free objects too (magma-protocol.md §3; Pydantic's JsonValue
///   would take them, but parseJson already refuses NaN and Infinity);
/// - extra keys are reported first, as Pydantic does, but in key order rather than input order.
struct Finding {
  std::string type;
  JsonPath loc;
  std::string msg;
  Json input;

  bool operator==(const Finding&) const = default;
};

/// A parsed model, or the reasons it is not one. `value` is set exactly when `findings` is
/// empty.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::vector<Finding> findings;

  bool ok() const { return value.has_value(); }
};

}  // namespace agentvcr::protocol
