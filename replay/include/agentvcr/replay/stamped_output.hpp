#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/replay/holed_text.hpp"

namespace agentvcr::replay {

/// One recorded /v1/responses output, written out once in its agent's style, with a hole where
/// each replay writes the caller's `request_id` and one where it writes the input's `source_id`.
/// Replaying it is then a copy of the text around the two values, not a copy of a JSON tree and
/// a fresh serialisation: the same bytes pythonJsonDumps() gives for the output restamped (the
/// two members keep their recorded places; a missing `request_id` or `source_id` is added at
/// the end, `request_id` first).
class StampedOutput {
 public:
  /// `output` must be a JSON object.
  StampedOutput(const nlohmann::ordered_json& output, protocol::PythonJsonStyle style);

  /// The recorded `source_id` (0 when it was not an integer).
  std::int64_t recordedSourceId() const { return recorded_source_id_; }

  /// Appends the output with `request_id_json` (a JSON string, written in the output's style)
  /// and `source_id`.
  void appendTo(std::string& out, std::string_view request_id_json, std::int64_t source_id) const;

  /// Text bytes held, for cache budgets.
  std::size_t bytes() const { return text_.bytes(); }

 private:
  enum Slot : std::size_t { kRequestIdSlot, kSourceIdSlot };

  HoledText text_;  ///< the output with both values left out
  std::int64_t recorded_source_id_ = 0;
};

}  // namespace agentvcr::replay
