#pragma once

// Pydantic-style field checks shared by the model parsers (private to agentvcr_protocol).
//
// Each check looks at one JSON value, records a Finding with the Pydantic error type when the
// value does not fit, and returns the converted value (or nullopt). Nothing here throws.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/validation.hpp"

namespace agentvcr::protocol::detail {

/// Collects findings in the order they are found.
class Findings {
 public:
  void add(std::string type, JsonPath loc, std::string msg, Json input);

  /// Inserts findings before the one at `position` (used to put extra keys first).
  void insertAt(std::size_t position, std::vector<Finding> items);

  bool empty() const { return items_.empty(); }

  std::size_t size() const { return items_.size(); }

  std::vector<Finding> take() { return std::move(items_); }

 private:
  std::vector<Finding> items_;
};

/// `base` extended by one key or index.
JsonPath childPath(const JsonPath& base, std::string_view key);
JsonPath childPath(const JsonPath& base, std::size_t index);

/// Reads the fields of one strict model (extra="forbid"). Construction records "model_type"
/// when the value is not an object. Every field the parser asks for is marked as known;
/// finish() then reports the remaining keys as "extra_forbidden". Pydantic reports extra keys
/// before field errors, so finish() inserts them where construction left off.
class ModelReader {
 public:
  ModelReader(const Json& value, JsonPath loc, Findings& findings);

  /// False when the value is not a JSON object (a finding has been recorded).
  bool isObject() const { return object_ != nullptr; }

  /// The value of a required field, or nullptr after recording "missing".
  const Json* required(std::string_view key);

  /// The value of a field with a default, or nullptr when absent.
  const Json* optional(std::string_view key);

  /// The location of a field of this model.
  JsonPath at(std::string_view key) const { return childPath(loc_, key); }

  const JsonPath& loc() const { return loc_; }

  /// Reports unknown keys as "extra_forbidden". Call once, after the last field.
  void finish();

 private:
  const Json* object_ = nullptr;
  JsonPath loc_;
  Findings& findings_;
  std::vector<std::string_view> known_;
  std::size_t first_finding_;
};

std::optional<std::string> checkString(const Json& value, const JsonPath& loc, Findings& findings,
                                       std::size_t min_length = 0);

/// The value as int64 when it is a JSON integer within range; no finding.
std::optional<std::int64_t> asInt64(const Json& value);

/// A string or null (`str | None`): nullopt inside means null. The outer nullopt is a failure.
std::optional<std::optional<std::string>> checkNullableString(const Json& value,
                                                              const JsonPath& loc,
                                                              Findings& findings);

/// Strict integer within int64: booleans, floats (7.0, 1e1) and strings are "int_type";
/// integers outside int64 are "int_type" too (documented in validation.hpp).
std::optional<std::int64_t> checkInt(const Json& value, const JsonPath& loc, Findings& findings);

std::optional<bool> checkBool(const Json& value, const JsonPath& loc, Findings& findings);

/// A finite number; JSON integers are accepted (strict float accepts int).
std::optional<double> checkNumber(const Json& value, const JsonPath& loc, Findings& findings);

/// One of the given strings ("literal_error" otherwise, whatever the JSON type).
std::optional<std::string> checkLiteral(const Json& value, const JsonPath& loc,
                                        std::initializer_list<std::string_view> allowed,
                                        Findings& findings);

/// A free JSON object (`dict[str, JsonValue]`): anything inside, numbers finite.
std::optional<Json> checkFreeObject(const Json& value, const JsonPath& loc, Findings& findings);

/// A list of free JSON objects.
std::optional<Json> checkFreeObjectList(const Json& value, const JsonPath& loc, Findings& findings);

/// Records "list_type" unless `value` is an array.
bool checkArray(const Json& value, const JsonPath& loc, Findings& findings);

/// Records "value_error" with Pydantic's "Value error, " prefix.
void addValueError(Findings& findings, JsonPath loc, std::string_view message, Json input);

/// Literal message: "Input should be 'a', 'b' or 'c'".
std::string literalMessage(std::initializer_list<std::string_view> allowed);

}  // namespace agentvcr::protocol::detail
