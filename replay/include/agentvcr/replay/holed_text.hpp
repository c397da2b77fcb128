#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentvcr::replay {

/// Text written out once with holes where each replay writes values of its own (a caller's
/// ids): replaying it is a copy of the text around the values, not a JSON tree copied and
/// serialised again. Each hole names a slot; one slot may fill several holes.
class HoledText {
 public:
  void write(std::string_view text) { text_ += text; }

  /// A hole here, filled with the value of `slot`.
  void hole(std::size_t slot) { holes_.push_back(Hole{text_.size(), slot}); }

  /// Characters written so far, holes not counted.
  std::size_t size() const { return text_.size(); }

  /// Appends the text with each hole filled by `value_of(slot)` (a string_view).
  template <class ValueOf>
  void appendTo(std::string& out, ValueOf&& value_of) const {
    const std::string_view text(text_);
    std::size_t from = 0;
    for (const Hole& hole : holes_) {
      out += text.substr(from, hole.at - from);
      out += value_of(hole.slot);
      from = hole.at;
    }
    out += text.substr(from);
  }

  /// Bytes held, for cache budgets.
  std::size_t bytes() const { return text_.size() + holes_.size() * sizeof(Hole); }

 private:
  struct Hole {
    std::size_t at = 0;  ///< offset in text_
    std::size_t slot = 0;
  };

  std::string text_;
  std::vector<Hole> holes_;  ///< in text order
};

}  // namespace agentvcr::replay
