#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/conversation_diff.hpp"

namespace agentvcr::replay {

enum class LineOp { Same, Removed, Added };

/// One line of a line diff: a line of both texts, of `before` only, or of `after` only.
struct DiffLine {
  LineOp op = LineOp::Same;
  std::string text;

  friend bool operator==(const DiffLine&, const DiffLine&) = default;
};

/// Lines of `before` and `after` in one sequence: unchanged lines, then removed before added
/// within each change. Minimal: the unchanged lines are a longest common subsequence of the two,
/// so removed + added is as small as it can be (Myers' O((N+M)D) algorithm in linear space, over
/// the lines that occur on both sides: fast when the texts are alike, as two memories of one
/// conversation are, or unrelated, and never quadratic in memory). Reading the Same and Removed
/// lines gives `before`, the Same and Added ones `after`.
std::vector<DiffLine> diffLines(const std::vector<std::string>& before,
                                const std::vector<std::string>& after);

/// One line of one side of a side-by-side diff: its index in that side's text, and the text.
struct NumberedLine {
  std::size_t index = 0;
  std::string text;

  friend bool operator==(const NumberedLine&, const NumberedLine&) = default;
};

/// One row of a side-by-side line diff, as a code review shows it: a line of both texts (Same),
/// a removed line facing the added line that took its place (Changed), or a line of one side
/// facing nothing (LeftOnly, RightOnly: the other side shows a filler line).
struct AlignedLine {
  RowKind kind = RowKind::Same;
  std::optional<NumberedLine> left;   ///< the line of `before`; empty for RightOnly
  std::optional<NumberedLine> right;  ///< the line of `after`; empty for LeftOnly

  friend bool operator==(const AlignedLine&, const AlignedLine&) = default;
};

/// `lines` (a diffLines result) as side-by-side rows: within each change, the removed lines are
/// paired in order with the added lines as Changed rows, and the longer run's leftovers become
/// LeftOnly or RightOnly rows. Both sides then have one row per line, so row N of the left pane
/// faces row N of the right one; the left lines read in order give `before`, the right `after`.
std::vector<AlignedLine> sideBySide(const std::vector<DiffLine>& lines);

/// `value` pretty-printed (2-space indent, keys sorted by their UTF-8 bytes, non-ASCII written
/// raw, invalid UTF-8 replaced by U+FFFD) split into lines: what diffLines compares for JSON.
/// A string's line breaks are escaped (`\n`), so every line is one member or element.
std::vector<std::string> prettyJsonLines(const protocol::Json& value);

/// The index of the line of prettyJsonLines(value) where the value at RFC 6901 `pointer`
/// starts (its member line in an object, its element line in an array; 0 for ""), computed
/// without printing. A pointer that addresses nothing in `value` (a missing member, an index
/// past the end or not a number, or malformed escapes) gives the line of the deepest value it
/// does address, so a path that exists on one side of a diff still lands near its place on the
/// other.
std::size_t prettyJsonLineOf(const protocol::Json& value, std::string_view pointer);

}  // namespace agentvcr::replay
