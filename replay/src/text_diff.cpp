#include "agentvcr/replay/text_diff.hpp"

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

}  // namespace

std::vector<DiffLine> diffLines(const std::vector<std::string>& before,
                                const std::vector<std::string>& after) {
  return LineDiffer(before, after).run();
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

}  // namespace agentvcr::replay
