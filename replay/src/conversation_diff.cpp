#include "agentvcr/replay/conversation_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/replay/json_diff.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

/// The member as text: a string as it is, anything else as canonical JSON, "" when absent.
std::string textMember(const Json& object, const char* key) {
  const Json* value = protocol::findMember(object, key);
  if (value == nullptr || value->is_null()) {
    return {};
  }
  return value->is_string() ? value->get<std::string>() : protocol::canonicalJson(*value);
}

std::string candidateText(const Json& candidate) {
  if (!candidate.is_object()) {
    return "invalid candidate " + protocol::canonicalJson(candidate);
  }
  const Json* error = protocol::findMember(candidate, "error");
  const Json* output = protocol::findMember(candidate, "output");
  const bool failed =
      textMember(candidate, "status") == "error" ||
      ((output == nullptr || !output->is_object()) && error != nullptr && error->is_object());
  if (failed) {
    const std::string code = error != nullptr ? textMember(*error, "code") : std::string();
    return code.empty() ? std::string("error") : "error " + code;
  }
  if (output == nullptr || !output->is_object()) {
    return "no output";
  }
  std::vector<std::string> parts;
  if (std::string say = textMember(*output, "say"); !say.empty()) {
    parts.push_back("say: " + say);
  }
  if (const Json* calls = protocol::findMember(*output, "tool_calls");
      calls != nullptr && calls->is_array()) {
    for (const Json& call : *calls) {
      if (!call.is_object()) {
        parts.push_back(protocol::canonicalJson(call));
        continue;
      }
      const std::string robot = textMember(call, "target_robot_name");
      const Json* arguments = protocol::findMember(call, "arguments");
      parts.push_back(
          (robot.empty() ? std::string() : robot + ".") + textMember(call, "name") + "(" +
          (arguments != nullptr ? protocol::canonicalJson(*arguments) : std::string("{}")) + ")");
    }
  }
  if (parts.empty()) {
    return "empty";
  }
  std::string text = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    text.append("; ").append(parts[i]);
  }
  return text;
}

const Json& instructionOf(const DiffStep& step) {
  static const Json kNone = Json::object();
  const Json* instruction = protocol::findMember(step.input, "instruction");
  return instruction != nullptr ? *instruction : kNone;
}

/// What alignment compares: instruction type, content and decision, unambiguously joined.
std::string alignmentKey(const DiffStep& step) {
  const Json& instruction = instructionOf(step);
  const std::string type = textMember(instruction, "type");
  const std::string content = textMember(instruction, "content");
  std::string key;
  key.append(std::to_string(type.size())).append(":").append(type);
  key.append(std::to_string(content.size())).append(":").append(content);
  key.append(decisionText(step));
  return key;
}

/// Pairs (left index, right index) of a longest common subsequence, in order.
struct Alignment {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  bool positional = false;  ///< the middle was too large for the table: nothing matched in it
};

Alignment align(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                std::size_t max_cells) {
  Alignment alignment;
  const std::size_t n_all = a.size();
  const std::size_t m_all = b.size();
  // A common beginning and end belong to some longest common subsequence: set them aside.
  std::size_t prefix = 0;
  while (prefix < n_all && prefix < m_all && a[prefix] == b[prefix]) {
    alignment.pairs.emplace_back(prefix, prefix);
    ++prefix;
  }
  std::size_t suffix = 0;
  while (suffix < n_all - prefix && suffix < m_all - prefix &&
         a[n_all - 1 - suffix] == b[m_all - 1 - suffix]) {
    ++suffix;
  }
  const std::size_t n = n_all - prefix - suffix;
  const std::size_t m = m_all - prefix - suffix;
  if (n > 0 && m > 0) {
    if (n > max_cells / m) {
      alignment.positional = true;
    } else {
      // lcs[i][j]: length of an LCS of a[prefix + i ..] and b[prefix + j ..] (middles only).
      const std::size_t width = m + 1;
      std::vector<std::uint32_t> lcs((n + 1) * width, 0);
      for (std::size_t i = n; i-- > 0;) {
        for (std::size_t j = m; j-- > 0;) {
          lcs[i * width + j] = a[prefix + i] == b[prefix + j]
                                   ? lcs[(i + 1) * width + j + 1] + 1
                                   : std::max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
        }
      }
      std::size_t i = 0;
      std::size_t j = 0;
      while (i < n && j < m) {
        if (a[prefix + i] == b[prefix + j]) {
          alignment.pairs.emplace_back(prefix + i, prefix + j);
          ++i;
          ++j;
        } else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
          ++i;
        } else {
          ++j;
        }
      }
    }
  }
  for (std::size_t k = suffix; k > 0; --k) {
    alignment.pairs.emplace_back(n_all - k, m_all - k);
  }
  return alignment;
}

DiffRow onlyRow(RowKind kind, std::optional<std::size_t> left, std::optional<std::size_t> right) {
  DiffRow row;
  row.kind = kind;
  row.left = left;
  row.right = right;
  return row;
}

/// differingPaths over {"candidates", "depth", "input"} of both steps, without building them.
JsonDifferences stepDifferences(const DiffStep& a, const DiffStep& b, std::size_t limit) {
  JsonDifferences out;
  const auto add = [&](const std::string& prefix, const Json& x, const Json& y) {
    if (out.truncated) {
      return;
    }
    JsonDifferences part = differingPaths(x, y, limit - out.paths.size());
    for (std::string& path : part.paths) {
      out.paths.push_back(prefix + path);
    }
    out.truncated = part.truncated;
  };
  add("/candidates", a.candidates, b.candidates);
  add("/depth", Json(a.depth), Json(b.depth));
  add("/input", a.input, b.input);
  return out;
}

// --- the summary ---

std::string plural(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string stepText(const DiffStep& step) {
  const Json& instruction = instructionOf(step);
  return textMember(instruction, "type") + " \"" +
         protocol::oneLine(textMember(instruction, "content"), 60) + "\" -> " +
         protocol::oneLine(decisionText(step), 80);
}

/// What a difference at `path` is about, and how much it explains a divergence (lower first).
struct Aspect {
  int rank = 2;
  std::string text;  ///< "the memory differs"
};

Aspect aspectOf(const std::string& path) {
  std::vector<std::string_view> tokens;
  std::string_view rest(path);
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    const std::size_t end = rest.find('/');
    tokens.push_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  const auto at = [&tokens](std::size_t i) {
    return i < tokens.size() ? tokens[i] : std::string_view();
  };
  if (at(0) == "depth") {
    return {2, "the depth differs"};
  }
  if (at(0) == "input") {
    const std::string_view field = at(1);
    if (field == "instruction") {
      return {0, "the instruction differs"};
    }
    if (field == "memory") {
      return {2, "the memory differs"};
    }
    if (field == "tools") {
      return {2, "the tools differ"};
    }
    if (field == "attributes") {
      return {2, "the attributes differ"};
    }
    if (field == "num_outputs" || field == "extra_keys") {
      return {2, std::string(field) + " differs"};
    }
    return {2, "the input differs"};
  }
  const std::string_view field = at(2);
  if (tokens.size() < 3 || field == "output" || field == "error" || field == "status") {
    return {1, "the decision differs"};
  }
  if (field == "memory") {
    return {2, "the memory differs"};
  }
  if (field == "internal_steps") {
    return {2, "the internal steps differ"};
  }
  return {2, "the candidates differ"};
}

/// The value at a difference path of one step, as short canonical JSON; "absent" when the step
/// has nothing there.
std::string valueAt(const DiffStep& step, const std::string& path) {
  const auto under = [&path](std::string_view prefix) {
    return path.compare(0, prefix.size(), prefix) == 0 &&
           (path.size() == prefix.size() || path[prefix.size()] == '/');
  };
  const Json* base = nullptr;
  std::string rest;
  if (under("/depth")) {
    return std::to_string(step.depth);
  }
  if (under("/candidates")) {
    base = &step.candidates;
    rest = path.substr(11);
  } else if (under("/input")) {
    base = &step.input;
    rest = path.substr(6);
  } else {
    return "absent";
  }
  try {
    return protocol::oneLine(protocol::canonicalJson(base->at(Json::json_pointer(rest))), 60);
  } catch (const Json::exception&) {
    return "absent";
  }
}

std::string changeText(const DiffRow& row, const DiffStep& left, const DiffStep& right) {
  if (row.differences.empty()) {
    return "the steps differ";
  }
  std::size_t chosen = 0;
  Aspect aspect = aspectOf(row.differences[0]);
  for (std::size_t i = 1; i < row.differences.size() && aspect.rank > 0; ++i) {
    Aspect candidate = aspectOf(row.differences[i]);
    if (candidate.rank < aspect.rank) {
      aspect = std::move(candidate);
      chosen = i;
    }
  }
  const std::string& path = row.differences[chosen];
  std::string text = aspect.text;
  if (path != "/depth") {
    text += " at " + path;
  }
  text += " (" + valueAt(left, path) + " vs " + valueAt(right, path) + ")";
  const std::size_t others = row.differences.size() - 1;
  if (row.differences_truncated) {
    text += ", and at least " + std::to_string(others + 1) + " other paths differ";
  } else if (others > 0) {
    text += ", and " + plural(others, "other path differs", "other paths differ");
  }
  return text;
}

std::string summaryOf(const ConversationDiff& diff, const std::vector<DiffStep>& left,
                      const std::vector<DiffStep>& right) {
  std::string summary;
  if (diff.aligned_by_position) {
    summary = "too long to align by content (" + std::to_string(left.size()) + " and " +
              plural(right.size(), "step", "steps") + "), steps paired by position: ";
  }
  if (left.empty() && right.empty()) {
    return summary + "identical (no steps)";
  }
  if (left.empty()) {
    return summary + "left has no steps, right has " + plural(right.size(), "step", "steps");
  }
  if (right.empty()) {
    return summary + "right has no steps, left has " + plural(left.size(), "step", "steps");
  }
  if (!diff.first_divergence) {
    return summary + "identical (" + plural(left.size(), "step", "steps") + ")";
  }
  const std::size_t first = *diff.first_divergence;
  const DiffRow& row = diff.rows[first];
  // One side goes on where the other stopped.
  if (row.kind == RowKind::LeftOnly || row.kind == RowKind::RightOnly) {
    const bool all_same_kind =
        std::all_of(diff.rows.begin() + static_cast<std::ptrdiff_t>(first), diff.rows.end(),
                    [&row](const DiffRow& r) { return r.kind == row.kind; });
    if (all_same_kind) {
      const bool on_left = row.kind == RowKind::LeftOnly;
      const std::size_t index = on_left ? *row.left : *row.right;
      const char* side = on_left ? "left" : "right";
      return summary + side + " has " +
             plural(diff.rows.size() - first, "more step", "more steps") + " after " +
             plural(first, "identical step", "identical steps") + " (" + side + " step " +
             std::to_string(index + 1) + ": " + stepText(on_left ? left[index] : right[index]) +
             ")";
    }
  }
  switch (row.kind) {
    case RowKind::Changed:
      summary += "diverge at left step " + std::to_string(*row.left + 1) + " / right step " +
                 std::to_string(*row.right + 1) + ": " +
                 changeText(row, left[*row.left], right[*row.right]);
      break;
    case RowKind::LeftOnly:
      summary += "diverge at left step " + std::to_string(*row.left + 1) +
                 ", which the right does not have: " + stepText(left[*row.left]);
      break;
    case RowKind::RightOnly:
      summary += "diverge at right step " + std::to_string(*row.right + 1) +
                 ", which the left does not have: " + stepText(right[*row.right]);
      break;
    case RowKind::Same:
      break;
  }
  const std::size_t differing = static_cast<std::size_t>(
      std::count_if(diff.rows.begin(), diff.rows.end(),
                    [](const DiffRow& r) { return r.kind != RowKind::Same; }));
  const std::size_t same_decision = static_cast<std::size_t>(std::count_if(
      diff.rows.begin(), diff.rows.end(),
      [](const DiffRow& r) { return r.kind == RowKind::Changed && !r.decision_differs; }));
  if (differing > 1) {
    summary += differing == diff.rows.size()
                   ? "; all " + std::to_string(differing) + " rows differ"
                   : "; " + std::to_string(differing) + " of " + std::to_string(diff.rows.size()) +
                         " rows differ";
  }
  // Said apart, so that the count of differing decisions reads as an evaluation counts them.
  if (same_decision > 0) {
    summary += differing > 1
                   ? ", " + std::to_string(same_decision) + " of them with the same decision"
                   : std::string("; same decision");
  }
  return summary;
}

}  // namespace

std::string decisionText(const DiffStep& step) {
  if (!step.candidates.is_array() || step.candidates.empty()) {
    return "no candidates";
  }
  std::string text;
  for (const Json& candidate : step.candidates) {
    if (!text.empty()) {
      text += " | ";
    }
    text += candidateText(candidate);
  }
  return text;
}

ConversationDiff diffConversations(const std::vector<DiffStep>& left,
                                   const std::vector<DiffStep>& right,
                                   std::size_t max_paths_per_row, std::size_t max_alignment_cells) {
  // Steps compare by interned key: the table compares integers.
  std::unordered_map<std::string, std::uint32_t> ids;
  const auto keys = [&ids](const std::vector<DiffStep>& steps) {
    std::vector<std::uint32_t> out;
    out.reserve(steps.size());
    for (const DiffStep& step : steps) {
      out.push_back(ids.try_emplace(alignmentKey(step), static_cast<std::uint32_t>(ids.size()))
                        .first->second);
    }
    return out;
  };
  const std::vector<std::uint32_t> left_keys = keys(left);
  const std::vector<std::uint32_t> right_keys = keys(right);
  const Alignment alignment = align(left_keys, right_keys, max_alignment_cells);

  ConversationDiff diff;
  diff.aligned_by_position = alignment.positional;
  const auto paired = [&](std::size_t i, std::size_t j) {
    DiffRow row;
    row.left = i;
    row.right = j;
    JsonDifferences differences = stepDifferences(left[i], right[j], max_paths_per_row);
    if (!differences.paths.empty() || differences.truncated) {
      row.kind = RowKind::Changed;
      row.decision_differs = left_keys[i] != right_keys[j];
      row.differences = std::move(differences.paths);
      row.differences_truncated = differences.truncated;
    }
    diff.rows.push_back(std::move(row));
  };
  std::size_t i = 0;
  std::size_t j = 0;
  // Unmatched steps up to the next matched pair: by position, then what is left of one side.
  const auto gap = [&](std::size_t left_end, std::size_t right_end) {
    for (; i < left_end && j < right_end; ++i, ++j) {
      paired(i, j);
    }
    for (; i < left_end; ++i) {
      diff.rows.push_back(onlyRow(RowKind::LeftOnly, i, std::nullopt));
    }
    for (; j < right_end; ++j) {
      diff.rows.push_back(onlyRow(RowKind::RightOnly, std::nullopt, j));
    }
  };
  for (const auto& [matched_left, matched_right] : alignment.pairs) {
    gap(matched_left, matched_right);
    paired(matched_left, matched_right);
    i = matched_left + 1;
    j = matched_right + 1;
  }
  gap(left.size(), right.size());

  for (std::size_t r = 0; r < diff.rows.size(); ++r) {
    if (diff.rows[r].kind != RowKind::Same) {
      diff.first_divergence = r;
      break;
    }
  }
  diff.summary = summaryOf(diff, left, right);
  return diff;
}

std::vector<DiffStep> diffStepsOf(const store::ArchiveReader& reader,
                                  std::int64_t conversation_id) {
  std::vector<DiffStep> steps;
  for (const store::StepRow& row : reader.steps(conversation_id)) {
    DiffStep step;
    step.step_id = row.id;
    step.depth = row.depth;
    if (std::optional<Json> input = reader.inputJson(row.id)) {
      input->erase("id");
      step.input = std::move(*input);
    }
    for (const store::CandidateRow& candidate : reader.candidates(row.id)) {
      if (std::optional<Json> output = reader.outputJson(candidate.id)) {
        output->erase("request_id");
        output->erase("source_id");
        step.candidates.push_back(std::move(*output));
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace agentvcr::replay
