#include "agentvcr/replay/json_diff.hpp"

#include <algorithm>
#include <cstdint>

#include "agentvcr/protocol/validation.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

class DiffWalker {
 public:
  explicit DiffWalker(std::size_t limit) : limit_(limit) {}

  void walk(const Json& a, const Json& b) {
    if (result_.truncated) {
      return;
    }
    if (a.is_object() && b.is_object()) {
      walkObjects(a, b);
    } else if (a.is_array() && b.is_array()) {
      walkArrays(a, b);
    } else if (!sameScalar(a, b)) {
      add();
    }
  }

  JsonDifferences take() { return std::move(result_); }

 private:
  // nlohmann::json keeps object members sorted by key, so one merge pass visits the union.
  void walkObjects(const Json& a, const Json& b) {
    auto left = a.begin();
    auto right = b.begin();
    while (left != a.end() || right != b.end()) {
      if (right == b.end() || (left != a.end() && left.key() < right.key())) {
        addAt(left.key());
        ++left;
      } else if (left == a.end() || right.key() < left.key()) {
        addAt(right.key());
        ++right;
      } else {
        path_.emplace_back(left.key());
        walk(left.value(), right.value());
        path_.pop_back();
        ++left;
        ++right;
      }
    }
  }

  void walkArrays(const Json& a, const Json& b) {
    const std::size_t common = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < common; ++i) {
      path_.emplace_back(static_cast<std::int64_t>(i));
      walk(a[i], b[i]);
      path_.pop_back();
    }
    for (std::size_t i = common; i < std::max(a.size(), b.size()); ++i) {
      addAt(static_cast<std::int64_t>(i));
    }
  }

  static bool sameScalar(const Json& a, const Json& b) {
    if (a.is_number() && b.is_number()) {
      return a == b;  // nlohmann compares integers and doubles by value
    }
    return a.type() == b.type() && a == b;
  }

  void addAt(protocol::PathElement element) {
    path_.push_back(std::move(element));
    add();
    path_.pop_back();
  }

  void add() {
    if (result_.paths.size() >= limit_) {
      result_.truncated = true;
      return;
    }
    result_.paths.push_back(protocol::toJsonPointer(path_));
  }

  std::size_t limit_;
  protocol::JsonPath path_;
  JsonDifferences result_;
};

}  // namespace

JsonDifferences differingPaths(const Json& a, const Json& b, std::size_t limit) {
  DiffWalker walker(limit);
  walker.walk(a, b);
  return walker.take();
}

}  // namespace agentvcr::replay
