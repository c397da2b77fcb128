#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::store {
class ArchiveReader;
}

namespace agentvcr::replay {

/// One step of a conversation as the diff compares it.
struct DiffStep {
  std::int64_t step_id = 0;
  std::int64_t depth = 0;
  /// The input without "id" (instruction, tools, attributes, memory, num_outputs, extra_keys).
  protocol::Json input = protocol::Json::object();
  /// Array of the outputs without request_id and source_id (candidate_index, status, memory,
  /// internal_steps, output, error).
  protocol::Json candidates = protocol::Json::array();
};

enum class RowKind { Same, Changed, LeftOnly, RightOnly };

/// One row of the side-by-side view.
struct DiffRow {
  RowKind kind = RowKind::Same;
  std::optional<std::size_t> left;  ///< index into the left steps
  std::optional<std::size_t> right;
  /// JSON pointers into {"candidates": ..., "depth": ..., "input": ...} of the two steps that
  /// differ, in document order (json_diff.hpp): filled for Changed rows only.
  std::vector<std::string> differences;
  bool differences_truncated = false;
  /// For a Changed row: the steps' instruction or decision (decisionText) differ. False when
  /// they differ only where a decision does not show, such as memory or internal steps: what
  /// eval ignores, so that its report and this diff count the same steps.
  bool decision_differs = false;
};

struct ConversationDiff {
  std::vector<DiffRow> rows;
  std::optional<std::size_t> first_divergence;  ///< index into rows of the first row not Same
  /// True when the conversations were too long to align (kMaxAlignmentCells): past their common
  /// beginning and end, the steps were paired by position instead. The summary says so.
  bool aligned_by_position = false;
  /// One sentence for people, e.g. "identical (7 steps)", "diverge at left step 3 / right step
  /// 3: the decision differs at /candidates/0/output/tool_calls/0/arguments/id ("sw1" vs
  /// "sw2")", "right has 2 more steps after 7 identical steps (right step 8: ...)". Step numbers
  /// in it count from 1, in tree order.
  std::string summary;
};

/// Above this many cells (unaligned left steps x unaligned right steps, once the common
/// beginning and end are set aside), the LCS table is not built: 5000 x 5000 steps, 100 MB.
inline constexpr std::size_t kMaxAlignmentCells = 5000 * 5000;

/// Aligns two conversations for a side-by-side view or an evaluation.
///
/// Two steps match when their instruction (type and content) and their decisionText() are
/// equal. The matched pairs are a longest common subsequence of the two step lists (the common
/// beginning and end first, then the standard DP table over the rest, at most
/// `max_alignment_cells` cells; beyond that the rest is paired by position). Between two matched
/// pairs, the unmatched steps are paired by position as Changed rows and the leftovers become
/// LeftOnly or RightOnly rows. Any paired row is Same when its steps do not differ at all
/// (depth, input and candidates compared with differingPaths, at most `max_paths_per_row`
/// paths), Changed otherwise: a matched pair whose memory or internal steps differ is Changed,
/// with decision_differs false, and the summary counts such rows apart.
/// Pure: no I/O, never throws on odd JSON (a malformed step just compares as it is).
ConversationDiff diffConversations(const std::vector<DiffStep>& left,
                                   const std::vector<DiffStep>& right,
                                   std::size_t max_paths_per_row = 32,
                                   std::size_t max_alignment_cells = kMaxAlignmentCells);

/// A conversation's steps in tree order (ArchiveReader::steps), read from an archive, as
/// DiffStep. Empty for an unknown conversation; archive errors throw std::runtime_error.
std::vector<DiffStep> diffStepsOf(const store::ArchiveReader& reader, std::int64_t conversation_id);

/// The decision of a step for alignment and display, one part per candidate joined by " | ":
/// a completed candidate is its parts joined by "; ": "say: <text>" when it says something,
/// then "<robot>.<tool>(<arguments as canonical JSON>)" per tool call ("<tool>(...)" without a
/// robot), or "empty" when it has neither; an error candidate is "error <code>". A step without
/// candidates is "no candidates".
std::string decisionText(const DiffStep& step);

}  // namespace agentvcr::replay
