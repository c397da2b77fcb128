// The text/event-stream format (WHATWG HTML, "server-sent events"), parsed after the fact.

#include "agentvcr/protocol/sse.hpp"

#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::protocol {

std::vector<SseEvent> parseEventStream(std::string_view body) {
  std::vector<SseEvent> events;
  SseEvent pending;
  bool has_data = false;
  std::size_t pos = 0;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") {
    pos = 3;  // a leading byte order mark is not part of the first field name
  }
  while (pos < body.size()) {
    std::size_t eol = body.find_first_of("\r\n", pos);
    if (eol == std::string_view::npos) {
      break;  // an unterminated last line: the stream was cut
    }
    std::string_view line = body.substr(pos, eol - pos);
    pos = eol + 1;
    if (body[eol] == '\r' && pos < body.size() && body[pos] == '\n') {
      ++pos;
    }
    if (line.empty()) {
      if (has_data) {
        pending.end = pos;
        events.push_back(std::move(pending));
      }
      pending = SseEvent{};
      has_data = false;
      continue;
    }
    if (line.front() == ':') {
      continue;
    }
    std::size_t colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value;
    if (colon != std::string_view::npos) {
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
      }
    }
    if (field == "data") {
      if (has_data) {
        pending.data += '\n';
      }
      pending.data.append(value);
      has_data = true;
    } else if (field == "event") {
      pending.event = std::string(value);
    } else if (field == "id" && value.find('\0') == std::string_view::npos) {
      pending.id = std::string(value);
    }
  }
  return events;
}

bool isEventStreamType(std::string_view content_type) {
  constexpr std::string_view kType = "text/event-stream";
  return equalsIgnoreCase(content_type.substr(0, kType.size()), kType);
}

}  // namespace agentvcr::protocol
