#include "field_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace agentvcr::protocol::detail {
namespace {

constexpr const char* kObjectMessage = "Input should be an object";

/// Records "finite_number" for every non-finite double inside `value` (only possible for
/// values built in code: parseJson rejects NaN and Infinity). Iterative: no depth limit.
void checkFiniteInside(const Json& value, const JsonPath& loc, Findings& findings) {
  struct Pending {
    const Json* value;
    JsonPath loc;
  };

  std::vector<Pending> stack;
  stack.push_back({&value, loc});
  while (!stack.empty()) {
    Pending item = std::move(stack.back());
    stack.pop_back();
    const Json& current = *item.value;
    if (current.is_number_float()) {
      if (!std::isfinite(current.get<double>())) {
        findings.add("finite_number", std::move(item.loc), "Input should be a finite number",
                     current);
      }
    } else if (current.is_object()) {
      for (auto it = current.begin(); it != current.end(); ++it) {
        if (it->is_structured() || it->is_number_float()) {
          stack.push_back({&*it, childPath(item.loc, it.key())});
        }
      }
    } else if (current.is_array()) {
      for (std::size_t i = 0; i < current.size(); ++i) {
        if (current[i].is_structured() || current[i].is_number_float()) {
          stack.push_back({&current[i], childPath(item.loc, i)});
        }
      }
    }
  }
}

}  // namespace

void Findings::add(std::string type, JsonPath loc, std::string msg, Json input) {
  items_.push_back(Finding{std::move(type), std::move(loc), std::move(msg), std::move(input)});
}

void Findings::insertAt(std::size_t position, std::vector<Finding> items) {
  position = std::min(position, items_.size());
  items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(position),
                std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
}

JsonPath childPath(const JsonPath& base, std::string_view key) {
  JsonPath path = base;
  path.emplace_back(std::string(key));
  return path;
}

JsonPath childPath(const JsonPath& base, std::size_t index) {
  JsonPath path = base;
  path.emplace_back(static_cast<std::int64_t>(index));
  return path;
}

ModelReader::ModelReader(const Json& value, JsonPath loc, Findings& findings)
    : loc_(std::move(loc)), findings_(findings), first_finding_(findings.size()) {
  if (value.is_object()) {
    object_ = &value;
  } else {
    findings_.add("model_type", loc_, kObjectMessage, value);
  }
}

const Json* ModelReader::required(std::string_view key) {
  const Json* found = optional(key);
  if (found == nullptr && object_ != nullptr) {
    findings_.add("missing", at(key), "Field required", nullptr);
  }
  return found;
}

const Json* ModelReader::optional(std::string_view key) {
  known_.push_back(key);
  if (object_ == nullptr) {
    return nullptr;
  }
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &*it;
}

void ModelReader::finish() {
  if (object_ == nullptr) {
    return;
  }
  std::vector<Finding> extras;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) == known_.end()) {
      extras.push_back(
          Finding{"extra_forbidden", at(it.key()), "Extra inputs are not permitted", *it});
    }
  }
  findings_.insertAt(first_finding_, std::move(extras));
}

std::optional<std::string> checkString(const Json& value, const JsonPath& loc, Findings& findings,
                                       std::size_t min_length) {
  if (!value.is_string()) {
    findings.add("string_type", loc, "Input should be a valid string", value);
    return std::nullopt;
  }
  const auto& text = value.get_ref<const std::string&>();
  // Only min_length 1 is used by the contract: "non-empty" needs no code-point counting.
  if (text.size() < min_length) {
    findings.add("string_too_short", loc,
                 "String should have at least " + std::to_string(min_length) +
                     (min_length == 1 ? " character" : " characters"),
                 value);
    return std::nullopt;
  }
  return text;
}

std::optional<std::optional<std::string>> checkNullableString(const Json& value,
                                                              const JsonPath& loc,
                                                              Findings& findings) {
  if (value.is_null()) {
    return std::optional<std::string>{};
  }
  auto text = checkString(value, loc, findings);
  if (!text) {
    return std::nullopt;
  }
  return std::optional<std::string>{std::move(*text)};
}

std::optional<std::int64_t> asInt64(const Json& value) {
  if (value.is_number_unsigned()) {
    auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(number);
  }
  if (value.is_number_integer()) {
    return value.get<std::int64_t>();
  }
  return std::nullopt;
}

std::optional<std::int64_t> checkInt(const Json& value, const JsonPath& loc, Findings& findings) {
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    return value.get<std::int64_t>();
  }
  if (value.is_number_unsigned()) {
    auto number = value.get<std::uint64_t>();
    if (number <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return static_cast<std::int64_t>(number);
    }
    findings.add("int_type", loc, "Input should be a valid integer, outside the int64 range",
                 value);
    return std::nullopt;
  }
  findings.add("int_type", loc, "Input should be a valid integer", value);
  return std::nullopt;
}

std::optional<bool> checkBool(const Json& value, const JsonPath& loc, Findings& findings) {
  if (!value.is_boolean()) {
    findings.add("bool_type", loc, "Input should be a valid boolean", value);
    return std::nullopt;
  }
  return value.get<bool>();
}

std::optional<double> checkNumber(const Json& value, const JsonPath& loc, Findings& findings) {
  if (!value.is_number()) {
    findings.add("float_type", loc, "Input should be a valid number", value);
    return std::nullopt;
  }
  auto number = value.get<double>();
  if (!std::isfinite(number)) {
    findings.add("finite_number", loc, "Input should be a finite number", value);
    return std::nullopt;
  }
  return number;
}

std::string literalMessage(std::initializer_list<std::string_view> allowed) {
  std::string message = "Input should be ";
  std::size_t index = 0;
  for (std::string_view option : allowed) {
    if (index > 0) {
      message += index + 1 == allowed.size() ? " or " : ", ";
    }
    message += '\'';
    message += option;
    message += '\'';
    ++index;
  }
  return message;
}

std::optional<std::string> checkLiteral(const Json& value, const JsonPath& loc,
                                        std::initializer_list<std::string_view> allowed,
                                        Findings& findings) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) {
      return text;
    }
  }
  findings.add("literal_error", loc, literalMessage(allowed), value);
  return std::nullopt;
}

namespace {

/// checkFreeObject() without the copy of an accepted value.
bool isFreeObject(const Json& value, const JsonPath& loc, Findings& findings) {
  if (!value.is_object()) {
    findings.add("dict_type", loc, kObjectMessage, value);
    return false;
  }
  std::size_t before = findings.size();
  checkFiniteInside(value, loc, findings);
  return findings.size() == before;
}

}  // namespace

std::optional<Json> checkFreeObject(const Json& value, const JsonPath& loc, Findings& findings) {
  if (!isFreeObject(value, loc, findings)) {
    return std::nullopt;
  }
  return value;
}

bool checkArray(const Json& value, const JsonPath& loc, Findings& findings) {
  if (!value.is_array()) {
    findings.add("list_type", loc, "Input should be a valid array", value);
    return false;
  }
  return true;
}

std::optional<Json> checkFreeObjectList(const Json& value, const JsonPath& loc,
                                        Findings& findings) {
  if (!checkArray(value, loc, findings)) {
    return std::nullopt;
  }
  bool ok = true;
  for (std::size_t i = 0; i < value.size(); ++i) {
    ok = isFreeObject(value[i], childPath(loc, i), findings) && ok;
  }
  if (!ok) {
    return std::nullopt;
  }
  return value;
}

void addValueError(Findings& findings, JsonPath loc, std::string_view message, Json input) {
  findings.add("value_error", std::move(loc), "Value error, " + std::string(message),
               std::move(input));
}

}  // namespace agentvcr::protocol::detail
