#include "agentvcr/replay/text_diff.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace agentvcr::replay {
namespace {

using Index = std::ptrdiff_t;

/// Myers' shortest edit script with the linear-space refinement ("An O(ND) Difference Algorithm
/// and Its Variations", 1986, section 4b): find the middle snake of the edit graph, recurse on
/// both sides of it. Lines are compared as interned integers, and a line that does not occur
/// on the other side at all is set aside first: it can be in no common subsequence, so the
/// result stays minimal, and two unrelated texts cost linear time instead of O((N+M)^2).
class LineDiffer {
 public:
  LineDiffer(const std::vector<std::string>& before, const std::vector<std::string>& after)
      : before_(before), after_(after) {
    std::unordered_map<std::string_view, std::uint32_t> ids;
    const auto intern = [&ids](const std::vector<std::string>& lines) {
      std::vector<std::uint32_t> out;
      out.reserve(lines.size());
      for (const std::string& line : lines) {
        out.push_back(ids.try_emplace(line, static_cast<std::uint32_t>(ids.size())).first->second);
      }
      return out;
    };
    const std::vector<std::uint32_t> all_a = intern(before);
    const std::vector<std::uint32_t> all_b = intern(after);
    std::vector<bool> in_a(ids.size(), false);
    std::vector<bool> in_b(ids.size(), false);
    for (const std::uint32_t id : all_a) {
      in_a[id] = true;
    }
    for (const std::uint32_t id : all_b) {
      in_b[id] = true;
    }
    const auto keep = [](const std::vector<std::uint32_t>& all, const std::vector<bool>& other,
                         std::vector<std::uint32_t>& kept, std::vector<std::size_t>& index) {
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (other[all[i]]) {
          kept.push_back(all[i]);
          index.push_back(i);
        }
      }
    };
    keep(all_a, in_b, a_, a_index_);
    keep(all_b, in_a, b_, b_index_);
  }

  std::vector<DiffLine> run() {
    diff(0, 0, static_cast<Index>(a_.size()), static_cast<Index>(b_.size()));
    return assemble();
  }

 private:
  struct Snake {
    Index x0, y0, x1, y1;  ///< from (x0, y0) to (x1, y1): at most one edit, the rest diagonal
  };

  bool eq(Index x, Index y) const {
    return a_[static_cast<std::size_t>(x)] == b_[static_cast<std::size_t>(y)];
  }

  void match(Index x, Index y) { matches_.emplace_back(x, y); }

  // Records the matched lines (the diagonal moves) of the box [left, right) x [top, bottom),
  // in order. Edits are whatever lies between matches.
  void diff(Index left, Index top, Index right, Index bottom) {
    while (left < right && top < bottom && eq(left, top)) {
      match(left++, top++);
    }
    Index end_x = right;
    Index end_y = bottom;
    while (end_x > left && end_y > top && eq(end_x - 1, end_y - 1)) {
      --end_x;
      --end_y;
    }
    if (left < end_x && top < end_y) {
      // Both sides non-empty and their ends differ: at least two edits, so each half has fewer
      // edits than the whole and the recursion ends.
      const Snake snake = middleSnake(left, top, end_x, end_y);
      diff(left, top, snake.x0, snake.y0);
      walk(snake);
      diff(snake.x1, snake.y1, end_x, end_y);
    }
    for (Index x = end_x, y = end_y; x < right; ++x, ++y) {
      match(x, y);
    }
  }

  // Greedy diagonal first, then the one edit, then the rest of the diagonal: any one-edit path
  // between the snake's ends can be taken this way.
  void walk(const Snake& snake) {
    Index x = snake.x0;
    Index y = snake.y0;
    while (x < snake.x1 && y < snake.y1 && eq(x, y)) {
      match(x++, y++);
    }
    if (snake.x1 - x > snake.y1 - y) {
      ++x;
    } else if (snake.y1 - y > snake.x1 - x) {
      ++y;
    }
    while (x < snake.x1 && y < snake.y1) {
      match(x++, y++);
    }
  }

  // Forward paths indexed by diagonal k = x - y (relative to the box), storing x; backward
  // paths indexed by c = k - delta, storing y. They meet within ceil((width + height) / 2) rounds.
  Snake middleSnake(Index left, Index top, Index right, Index bottom) {
    const Index width = right - left;
    const Index height = bottom - top;
    const Index delta = width - height;
    const bool odd = (delta % 2) != 0;
    const Index max = (width + height + 1) / 2;
    const Index offset = max + 1;
    forward_.assign(static_cast<std::size_t>(2 * max + 3), 0);
    backward_.assign(static_cast<std::size_t>(2 * max + 3), 0);
    const auto vf = [&](Index k) -> Index& {
      return forward_[static_cast<std::size_t>(k + offset)];
    };
    const auto vb = [&](Index c) -> Index& {
      return backward_[static_cast<std::size_t>(c + offset)];
    };
    vf(1) = left;
    vb(1) = bottom;
    for (Index d = 0; d <= max; ++d) {
      for (Index k = d; k >= -d; k -= 2) {
        const Index c = k - delta;
        Index x = 0;
        Index px = 0;
        if (k == -d || (k != d && vf(k - 1) < vf(k + 1))) {
          px = x = vf(k + 1);
        } else {
          px = vf(k - 1);
          x = px + 1;
        }
        Index y = top + (x - left) - k;
        const Index py = (d == 0 || x != px) ? y : y - 1;
        while (x < right && y < bottom && eq(x, y)) {
          ++x;
          ++y;
        }
        vf(k) = x;
        if (odd && c >= -(d - 1) && c <= d - 1 && y >= vb(c)) {
          return Snake{px, py, x, y};
        }
      }
      for (Index c = d; c >= -d; c -= 2) {
        const Index k = c + delta;
        Index y = 0;
        Index py = 0;
        if (c == -d || (c != d && vb(c - 1) > vb(c + 1))) {
          py = y = vb(c + 1);
        } else {
          py = vb(c - 1);
          y = py - 1;
        }
        Index x = left + (y - top) + k;
        const Index px = (d == 0 || y != py) ? x : x + 1;
        while (x > left && y > top && eq(x - 1, y - 1)) {
          --x;
          --y;
        }
        vb(c) = y;
        if (!odd && k >= -d && k <= d && x <= vf(k)) {
          return Snake{x, y, px, py};
        }
      }
    }
    return Snake{left, top, right, bottom};  // unreachable: the paths always meet
  }

  // Between two matched lines, the unmatched lines of `before` (removed), then those of
  // `after` (added).
  std::vector<DiffLine> assemble() const {
    std::vector<DiffLine> lines;
    lines.reserve(before_.size() + after_.size() - matches_.size());
    std::size_t x = 0;
    std::size_t y = 0;
    const auto upTo = [&](std::size_t end_x, std::size_t end_y) {
      for (; x < end_x; ++x) {
        lines.push_back({LineOp::Removed, before_[x]});
      }
      for (; y < end_y; ++y) {
        lines.push_back({LineOp::Added, after_[y]});
      }
    };
    for (const auto& [kept_x, kept_y] : matches_) {
      upTo(a_index_[static_cast<std::size_t>(kept_x)], b_index_[static_cast<std::size_t>(kept_y)]);
      lines.push_back({LineOp::Same, before_[x]});
      ++x;
      ++y;
    }
    upTo(before_.size(), after_.size());
    return lines;
  }

  const std::vector<std::string>& before_;
  const std::vector<std::string>& after_;
  std::vector<std::uint32_t> a_;      ///< interned lines of before_ that occur in after_
  std::vector<std::uint32_t> b_;      ///< interned lines of after_ that occur in before_
  std::vector<std::size_t> a_index_;  ///< a_[i] is before_[a_index_[i]]
  std::vector<std::size_t> b_index_;
  std::vector<Index> forward_;
  std::vector<Index> backward_;
  std::vector<std::pair<Index, Index>> matches_;  ///< (index into a_, index into b_), in order
};

/// How many lines `value` takes in prettyJsonLines: one for a scalar or an empty container;
/// otherwise the two bracket lines and the lines of its members or elements.
std::size_t prettyLineCount(const protocol::Json& value) {
  if (!value.is_structured() || value.empty()) {
    return 1;
  }
  std::size_t lines = 2;
  for (const protocol::Json& child : value) {
    lines += prettyLineCount(child);
  }
  return lines;
}

/// The reference tokens of an RFC 6901 pointer, unescaped, up to the first malformed one (a
/// pointer not starting with '/', or a '~' not followed by '0' or '1').
std::vector<std::string> referenceTokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty() || pointer.front() != '/') {
    return tokens;
  }
  std::size_t start = 1;
  while (true) {
    const std::size_t end = std::min(pointer.find('/', start), pointer.size());
    std::string token;
    for (std::size_t i = start; i < end; ++i) {
      if (pointer[i] != '~') {
        token.push_back(pointer[i]);
      } else if (i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token.push_back(pointer[++i] == '0' ? '~' : '/');
      } else {
        return tokens;
      }
    }
    tokens.push_back(std::move(token));
    if (end == pointer.size()) {
      return tokens;
    }
    start = end + 1;
  }
}

/// The array index `token` names in an array of `size` elements: digits without a leading zero.
std::optional<std::size_t> arrayIndex(const std::string& token, std::size_t size) {
  if (token.empty() || (token.size() > 1 && token.front() == '0') ||
      !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::size_t index = 0;
  for (const char digit : token) {
    index = index * 10 + static_cast<std::size_t>(digit - '0');
    if (index >= size) {
      return std::nullopt;
    }
  }
  return index;
}

}  // namespace

std::vector<DiffLine> diffLines(const std::vector<std::string>& before,
                                const std::vector<std::string>& after) {
  return LineDiffer(before, after).run();
}

std::vector<AlignedLine> sideBySide(const std::vector<DiffLine>& lines) {
  std::vector<AlignedLine> rows;
  rows.reserve(lines.size());
  std::size_t left = 0;
  std::size_t right = 0;
  std::vector<const std::string*> removed;
  std::vector<const std::string*> added;
  const auto alignChange = [&] {
    const std::size_t paired = std::min(removed.size(), added.size());
    for (std::size_t i = 0; i < std::max(removed.size(), added.size()); ++i) {
      AlignedLine row;
      if (i < removed.size()) {
        row.left = NumberedLine{left++, *removed[i]};
      }
      if (i < added.size()) {
        row.right = NumberedLine{right++, *added[i]};
      }
      row.kind = i < paired ? RowKind::Changed : row.left ? RowKind::LeftOnly : RowKind::RightOnly;
      rows.push_back(std::move(row));
    }
    removed.clear();
    added.clear();
  };
  for (const DiffLine& line : lines) {
    switch (line.op) {
      case LineOp::Same:
        alignChange();
        rows.push_back(
            {RowKind::Same, NumberedLine{left++, line.text}, NumberedLine{right++, line.text}});
        break;
      case LineOp::Removed:
        removed.push_back(&line.text);
        break;
      case LineOp::Added:
        added.push_back(&line.text);
        break;
    }
  }
  alignChange();
  return rows;
}

std::vector<std::string> prettyJsonLines(const protocol::Json& value) {
  const std::string text = value.dump(2, ' ', false, protocol::Json::error_handler_t::replace);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::size_t prettyJsonLineOf(const protocol::Json& value, std::string_view pointer) {
  // A member or element starts one line below its container's opening bracket, after the lines
  // of the members or elements printed before it.
  std::size_t line = 0;
  const protocol::Json* at = &value;
  for (const std::string& token : referenceTokens(pointer)) {
    if (at->is_object()) {
      const auto member = at->find(token);
      if (member == at->end()) {
        break;
      }
      line += 1;
      for (auto before = at->begin(); before != member; ++before) {
        line += prettyLineCount(*before);
      }
      at = &*member;
    } else if (at->is_array()) {
      const std::optional<std::size_t> index = arrayIndex(token, at->size());
      if (!index) {
        break;
      }
      line += 1;
      for (std::size_t i = 0; i < *index; ++i) {
        line += prettyLineCount((*at)[i]);
      }
      at = &(*at)[*index];
    } else {
      break;
    }
  }
  return line;
}

}  // namespace agentvcr::replay
