#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentvcr::protocol {

/// One server-sent event as the WHATWG event-stream format defines it.
struct SseEvent {
  std::string event;    ///< the `event:` field; empty for the default ("message")
  std::string id;       ///< the `id:` field; empty when the event had none
  std::string data;     ///< the `data:` lines joined with "\n"
  std::size_t end = 0;  ///< offset just past the blank line that dispatched the event
};

/// The events of a `text/event-stream` body, in order. Lines may end in CRLF, LF or CR;
/// comments (`:` lines) and unknown fields are skipped; an event is dispatched by a blank line,
/// so a trailing event without one (a cut stream) is left out, as a browser would. An event
/// with no `data:` line dispatches nothing, as the format says.
std::vector<SseEvent> parseEventStream(std::string_view body);

/// True when a Content-Type value names an event stream.
bool isEventStreamType(std::string_view content_type);

}  // namespace agentvcr::protocol
