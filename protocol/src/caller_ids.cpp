#include "agentvcr/protocol/caller_ids.hpp"

#include <array>
#include <span>
#include <unordered_set>

#include "agentvcr/protocol/json_text.hpp"
#include "field_checks.hpp"

namespace agentvcr::protocol {
namespace {

constexpr int kOffPath = -1;

/// One place on the way to an id: the members that lead on from it (by name), the place an
/// array element leads to, and the id it holds, if it is one.
struct PathNode {
  struct Member {
    std::string_view name;
    int node = kOffPath;
  };

  std::array<Member, 2> members{};  ///< unused ones have an empty name
  int element = kOffPath;
  bool holds_id = false;
  IdField field = IdField::RequestId;
};

/// `request_id`; `inputs[*].id`.
constexpr std::array<PathNode, 5> kMagmaPaths = {{
    {{{{"request_id", 1}, {"inputs", 2}}}, kOffPath, false, {}},
    {{}, kOffPath, true, IdField::RequestId},
    {{}, 3, false, {}},
    {{{{"id", 4}, {}}}, kOffPath, false, {}},
    {{}, kOffPath, true, IdField::InputId},
}};

/// `id` and `params.message.messageId` of the request object or of each batch element; node 0
/// is the root, which leads to node 1 (the request object) through an array element.
constexpr std::array<PathNode, 6> kJsonRpcPaths = {{
    {{{{"id", 2}, {"params", 3}}}, 1, false, {}},
    {{{{"id", 2}, {"params", 3}}}, kOffPath, false, {}},
    {{}, kOffPath, true, IdField::JsonRpcId},
    {{{{"message", 4}, {}}}, kOffPath, false, {}},
    {{{{"messageId", 5}, {}}}, kOffPath, false, {}},
    {{}, kOffPath, true, IdField::MessageId},
}};

/// The JSON-RPC paths without messageId: the same nodes, `params` leading nowhere.
constexpr std::array<PathNode, 3> kJsonRpcIdPaths = {{
    {{{{"id", 2}, {}}}, 1, false, {}},
    {{{{"id", 2}, {}}}, kOffPath, false, {}},
    {{}, kOffPath, true, IdField::JsonRpcId},
}};

std::span<const PathNode> pathsOf(IdLayout layout) {
  switch (layout) {
    case IdLayout::MagmaRequest:
      return kMagmaPaths;
    case IdLayout::JsonRpc:
      return kJsonRpcIdPaths;
    case IdLayout::JsonRpcAndMessageId:
      return kJsonRpcPaths;
  }
  return kMagmaPaths;
}

bool isWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// Bytes that end a run of plain string content: the closing quote, an escape, a control byte.
constexpr std::array<bool, 256> kStringStops = [] {
  std::array<bool, 256> stops{};
  for (int c = 0; c < 0x20; ++c) {
    stops[c] = true;
  }
  stops['"'] = true;
  stops['\\'] = true;
  return stops;
}();

/// Characters of a number or literal token; what they spell is the parser's business.
bool isScalarChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' ||
         c == '-' || c == '.';
}

/// An open object or array, with where it stands on the paths.
struct Frame {
  bool object = false;
  int node = kOffPath;
  std::size_t element = 0;  ///< the element index its ids belong to
  std::size_t index = 0;    ///< arrays: the element being read
  std::uint8_t seen = 0;    ///< objects on a path: which path members came already
  bool fresh = true;        ///< no item read yet
};

class Scanner {
 public:
  Scanner(std::string_view text, std::span<const PathNode> paths) : text_(text), paths_(paths) {}

  std::optional<std::vector<IdSpan>> run(IdLayout layout) {
    skipWhitespace();
    const char first = peek();
    if (first != '{' && (layout == IdLayout::MagmaRequest || first != '[')) {
      return std::nullopt;
    }
    if (!value(0, 0)) {
      return std::nullopt;
    }
    while (!stack_.empty()) {
      if (!continueContainer()) {
        return std::nullopt;
      }
    }
    skipWhitespace();
    if (at_ != text_.size()) {
      return std::nullopt;
    }
    return std::move(spans_);
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }

  void skipWhitespace() {
    while (at_ < text_.size() && isWhitespace(text_[at_])) {
      ++at_;
    }
  }

  /// Reads a string from its opening quote; `escaped` tells whether it held a backslash.
  bool string(bool& escaped) {
    ++at_;  // the opening quote
    escaped = false;
    while (at_ < text_.size()) {
      // Most bytes are plain content: skip them in a tight loop.
      while (at_ < text_.size() && !kStringStops[static_cast<unsigned char>(text_[at_])]) {
        ++at_;
      }
      if (at_ == text_.size()) {
        break;
      }
      const auto c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        ++at_;
        return true;
      }
      if (c < 0x20) {
        return false;
      }
      if (c == '\\') {
        escaped = true;
        if (++at_ == text_.size() || static_cast<unsigned char>(text_[at_]) < 0x20) {
          return false;
        }
      }
      ++at_;
    }
    return false;
  }

  /// Starts the value at the cursor: a scalar is read whole, a container is opened. `node` is
  /// its place on the paths (kOffPath when it is on none).
  bool value(int node, std::size_t element) {
    const std::size_t begin = at_;
    const bool is_id = node != kOffPath && paths_[node].holds_id;
    const char c = peek();
    if (c == '{' || c == '[') {
      if (is_id) {
        return false;
      }
      ++at_;
      stack_.push_back(Frame{c == '{', node, element});
      return true;  // its items are read by continueContainer(), so nesting costs no stack
    }
    if (c == '"') {
      bool escaped = false;
      if (!string(escaped)) {
        return false;
      }
    } else {
      while (at_ < text_.size() && isScalarChar(text_[at_])) {
        ++at_;
      }
      if (at_ == begin) {
        return false;
      }
    }
    if (is_id) {
      spans_.push_back(IdSpan{begin, at_, paths_[node].field, element});
    }
    return true;
  }

  /// In the innermost container, after its opening bracket or one of its items: its end, or
  /// the next item (after a comma unless it is the first).
  bool continueContainer() {
    skipWhitespace();
    Frame& frame = stack_.back();
    const char c = peek();
    if (c == (frame.object ? '}' : ']')) {
      ++at_;
      stack_.pop_back();
      return true;
    }
    if (frame.fresh) {
      frame.fresh = false;
    } else {
      if (c != ',') {
        return false;
      }
      ++at_;
      skipWhitespace();
      if (!frame.object) {
        ++frame.index;
      }
    }
    return frame.object ? member() : element();
  }

  bool element() {
    const Frame& frame = stack_.back();
    const int node = frame.node == kOffPath ? kOffPath : paths_[frame.node].element;
    return value(node, node == kOffPath ? frame.element : frame.index);
  }

  bool member() {
    if (peek() != '"') {
      return false;
    }
    const std::size_t name_begin = at_;
    bool escaped = false;
    if (!string(escaped)) {
      return false;
    }
    const std::string_view name = text_.substr(name_begin + 1, at_ - name_begin - 2);
    skipWhitespace();
    if (peek() != ':') {
      return false;
    }
    ++at_;
    skipWhitespace();
    Frame& frame = stack_.back();
    int node = kOffPath;
    if (frame.node != kOffPath) {
      if (escaped) {
        return false;  // it might spell a path name
      }
      const auto& members = paths_[frame.node].members;
      for (std::size_t m = 0; m < members.size(); ++m) {
        if (!members[m].name.empty() && members[m].name == name) {
          const auto bit = static_cast<std::uint8_t>(1U << m);
          if ((frame.seen & bit) != 0) {
            return false;
          }
          frame.seen |= bit;
          node = members[m].node;
        }
      }
    }
    return value(node, frame.element);
  }

  std::string_view text_;
  std::span<const PathNode> paths_;
  std::size_t at_ = 0;
  std::vector<Frame> stack_;
  std::vector<IdSpan> spans_;
};

/// The value of an id, read by the parser that reads whole requests, so that it means the same
/// to both.
std::optional<Json> idValue(std::string_view text, const IdSpan& span) {
  return parseJson(text.substr(span.begin, span.end - span.begin)).value;
}

}  // namespace

std::optional<std::vector<IdSpan>> findCallerIds(std::string_view text, IdLayout layout) {
  return Scanner(text, pathsOf(layout)).run(layout);
}

std::string maskIds(std::string_view text, const std::vector<IdSpan>& spans) {
  std::string masked;
  masked.reserve(text.size());
  std::size_t from = 0;
  for (const IdSpan& span : spans) {
    masked.append(text.substr(from, span.begin - from));
    masked.push_back('\0');
    from = span.end;
  }
  masked.append(text.substr(from));
  return masked;
}

std::optional<MagmaCallerIds> readMagmaCallerIds(std::string_view text,
                                                 const std::vector<IdSpan>& spans) {
  MagmaCallerIds ids;
  bool has_request_id = false;
  std::unordered_set<std::int64_t> seen;
  for (const IdSpan& span : spans) {
    auto value = idValue(text, span);
    if (!value) {
      return std::nullopt;
    }
    if (span.field == IdField::RequestId) {
      if (!value->is_string() || value->get_ref<const std::string&>().empty()) {
        return std::nullopt;
      }
      ids.request_id = std::move(value->get_ref<std::string&>());
      has_request_id = true;
    } else {
      const auto id = detail::asInt64(*value);
      if (!id || !seen.insert(*id).second) {
        return std::nullopt;
      }
      ids.input_ids.push_back(*id);
    }
  }
  if (!has_request_id) {
    return std::nullopt;
  }
  return ids;
}

std::optional<Json> jsonRpcIdsOnly(std::string_view text, const std::vector<IdSpan>& spans,
                                   std::optional<std::size_t> batch_size) {
  Json request = batch_size ? Json::array() : Json::object();
  if (batch_size) {
    for (std::size_t i = 0; i < *batch_size; ++i) {
      request.push_back(Json::object());
    }
  }
  for (const IdSpan& span : spans) {
    auto value = idValue(text, span);
    if (!value || (batch_size && span.element >= *batch_size)) {
      return std::nullopt;
    }
    if (span.field == IdField::JsonRpcId) {
      (batch_size ? request[span.element] : request)["id"] = std::move(*value);
    }
  }
  return request;
}

}  // namespace agentvcr::protocol
