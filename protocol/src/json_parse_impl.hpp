#pragma once

// The non-throwing, depth-limited JSON parser behind parseJson(), generic over the JSON type so
// that redaction can parse into nlohmann::ordered_json and keep the sender's key order.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/json_text.hpp"
#include "json_fast_parse.hpp"

namespace agentvcr::protocol::detail {

/// Byte offset of the bracket that first nests deeper than `max_depth`, found by a scan that
/// skips string contents. Only called once the SAX parser has reported excessive depth.
std::size_t tooDeepOffset(std::string_view text, std::size_t max_depth);

/// Turns an nlohmann parse error ("[json.exception.parse_error.101] parse error at line 1, ...")
/// into our message and a 0-based byte offset.
JsonSyntaxError syntaxError(std::size_t position, const std::string& what);

/// The exact parser: nlohmann's, through DomBuilder.
template <class JsonT>
std::optional<JsonT> parseJsonExactly(std::string_view text, std::size_t max_depth,
                                      JsonSyntaxError& error);

/// SAX handler that builds the DOM with an explicit stack (no recursion) and refuses to open a
/// container deeper than `max_depth` before anything of it is built.
///
/// A duplicated key keeps its last value (the earlier value is replaced in place), as Python's
/// json module does.
template <class JsonT>
class DomBuilder {
 public:
  using number_integer_t = typename JsonT::number_integer_t;
  using number_unsigned_t = typename JsonT::number_unsigned_t;
  using number_float_t = typename JsonT::number_float_t;
  using string_t = typename JsonT::string_t;
  using binary_t = typename JsonT::binary_t;

  explicit DomBuilder(std::size_t max_depth) : max_depth_(max_depth) {}

  bool null() { return place(JsonT(nullptr)) != nullptr; }

  bool boolean(bool value) { return place(JsonT(value)) != nullptr; }

  bool number_integer(number_integer_t value) { return place(JsonT(value)) != nullptr; }

  bool number_unsigned(number_unsigned_t value) { return place(JsonT(value)) != nullptr; }

  bool number_float(number_float_t value, const string_t& /*lexeme*/) {
    return place(JsonT(value)) != nullptr;
  }

  bool string(string_t& value) { return place(JsonT(std::move(value))) != nullptr; }

  bool binary(binary_t& /*value*/) { return false; }  // never produced by the JSON lexer

  bool start_object(std::size_t /*elements*/) { return open(JsonT::object()); }

  bool end_object() { return close(); }

  bool start_array(std::size_t /*elements*/) { return open(JsonT::array()); }

  bool end_array() { return close(); }

  bool key(string_t& value) {
    key_ = std::move(value);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) {
    error_ = syntaxError(position, error.what());
    return false;
  }

  bool tooDeep() const { return too_deep_; }

  const std::optional<JsonSyntaxError>& error() const { return error_; }

  JsonT takeRoot() { return std::move(root_); }

 private:
  bool open(JsonT container) {
    if (stack_.size() >= max_depth_) {
      too_deep_ = true;
      return false;
    }
    JsonT* placed = place(std::move(container));
    stack_.push_back(placed);
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  JsonT* place(JsonT value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    JsonT& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    JsonT& slot = parent[key_];
    slot = std::move(value);
    return &slot;
  }

  std::size_t max_depth_;
  JsonT root_;
  std::vector<JsonT*> stack_;
  string_t key_;
  bool too_deep_ = false;
  std::optional<JsonSyntaxError> error_;
};

/// parseJson() for Json or OrderedJson: the fast parser when it can, else the exact one.
template <class JsonT>
std::optional<JsonT> parseJsonAs(std::string_view text, std::size_t max_depth,
                                 JsonSyntaxError& error) {
  if (std::optional<JsonT> fast = parseJsonFast<JsonT>(text, max_depth)) {
    return fast;
  }
  return parseJsonExactly<JsonT>(text, max_depth, error);
}

template <class JsonT>
std::optional<JsonT> parseJsonExactly(std::string_view text, std::size_t max_depth,
                                      JsonSyntaxError& error) {
  DomBuilder<JsonT> builder(max_depth);
  bool ok = JsonT::sax_parse(text.data(), text.data() + text.size(), &builder,
                             nlohmann::json::input_format_t::json, /*strict=*/true);
  if (ok) {
    return builder.takeRoot();
  }
  if (builder.tooDeep()) {
    error = JsonSyntaxError{tooDeepOffset(text, max_depth),
                            "nesting deeper than " + std::to_string(max_depth) + " levels"};
  } else if (builder.error()) {
    error = *builder.error();
  } else {
    error = JsonSyntaxError{0, "invalid JSON"};
  }
  return std::nullopt;
}

}  // namespace agentvcr::protocol::detail
