#include "agentvcr/replay/stamped_output.hpp"

#include <charconv>
#include <string_view>

namespace agentvcr::replay {
namespace {

constexpr std::string_view kRequestId = "request_id";
constexpr std::string_view kSourceId = "source_id";

}  // namespace

StampedOutput::StampedOutput(const nlohmann::ordered_json& output,
                             protocol::PythonJsonStyle style) {
  const std::string_view member_separator = style.spaced ? ", " : ",";
  const std::string_view name_separator = style.spaced ? ": " : ":";
  bool has_request_id = false;
  bool has_source_id = false;
  auto openMember = [&](const std::string& name) {
    if (text_.size() > 1) {
      text_ += member_separator;
    }
    text_ += protocol::pythonJsonDumps(nlohmann::ordered_json(name), style);
    text_ += name_separator;
  };
  text_.push_back('{');
  for (const auto& [name, value] : output.items()) {
    openMember(name);
    if (name == kRequestId) {
      has_request_id = true;
      holes_.push_back(Hole{text_.size(), true});
    } else if (name == kSourceId) {
      has_source_id = true;
      holes_.push_back(Hole{text_.size(), false});
      if (value.is_number_integer()) {
        recorded_source_id_ = value.get<std::int64_t>();
      }
    } else {
      text_ += protocol::pythonJsonDumps(value, style);
    }
  }
  if (!has_request_id) {
    openMember(std::string(kRequestId));
    holes_.push_back(Hole{text_.size(), true});
  }
  if (!has_source_id) {
    openMember(std::string(kSourceId));
    holes_.push_back(Hole{text_.size(), false});
  }
  text_ += '}';
}

void StampedOutput::appendTo(std::string& out, std::string_view request_id_json,
                             std::int64_t source_id) const {
  char digits[24];
  const auto written = std::to_chars(std::begin(digits), std::end(digits), source_id);
  const std::string_view source_id_text(digits, static_cast<std::size_t>(written.ptr - digits));
  const std::string_view text(text_);
  std::size_t from = 0;
  for (const Hole& hole : holes_) {
    out += text.substr(from, hole.at - from);
    out += hole.request_id ? request_id_json : source_id_text;
    from = hole.at;
  }
  out += text.substr(from);
}

}  // namespace agentvcr::replay
