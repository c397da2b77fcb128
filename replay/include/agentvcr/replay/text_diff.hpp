#pragma once

#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

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

/// `value` pretty-printed (2-space indent, keys sorted by their UTF-8 bytes, non-ASCII written
/// raw, invalid UTF-8 replaced by U+FFFD) split into lines: what diffLines compares for JSON.
/// A string's line breaks are escaped (`\n`), so every line is one member or element.
std::vector<std::string> prettyJsonLines(const protocol::Json& value);

}  // namespace agentvcr::replay
