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
      text_.write(member_separator);
    }
    text_.write(protocol::pythonJsonDumps(nlohmann::ordered_json(name), style));
    text_.write(name_separator);
  };
  text_.write("{");
  for (const auto& [name, value] : output.items()) {
    openMember(name);
    if (name == kRequestId) {
      has_request_id = true;
      text_.hole(kRequestIdSlot);
    } else if (name == kSourceId) {
      has_source_id = true;
      text_.hole(kSourceIdSlot);
      if (value.is_number_integer()) {
        recorded_source_id_ = value.get<std::int64_t>();
      }
    } else {
      text_.write(protocol::pythonJsonDumps(value, style));
    }
  }
  if (!has_request_id) {
    openMember(std::string(kRequestId));
    text_.hole(kRequestIdSlot);
  }
  if (!has_source_id) {
    openMember(std::string(kSourceId));
    text_.hole(kSourceIdSlot);
  }
  text_.write("}");
}

void StampedOutput::appendTo(std::string& out, std::string_view request_id_json,
                             std::int64_t source_id) const {
  char digits[24];
  const auto written = std::to_chars(std::begin(digits), std::end(digits), source_id);
  const std::string_view source_id_text(digits, static_cast<std::size_t>(written.ptr - digits));
  text_.appendTo(out, [&](std::size_t slot) {
    return slot == kRequestIdSlot ? request_id_json : source_id_text;
  });
}

}  // namespace agentvcr::replay
