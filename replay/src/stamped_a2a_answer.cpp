#include "agentvcr/replay/stamped_a2a_answer.hpp"

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::replay {

std::optional<StampedRpcResponse> StampedRpcResponse::of(std::string_view response,
                                                         const protocol::Json& recorded_request,
                                                         std::string_view continuation) {
  const auto ids = protocol::a2a::recordedIdsOf(response, recorded_request);
  if (!ids) {
    return std::nullopt;
  }
  StampedRpcResponse stamped;
  std::size_t from = 0;
  for (const protocol::a2a::RecordedId& id : *ids) {
    stamped.writeText(response.substr(from, id.begin - from), continuation);
    stamped.text_.hole(stamped.ids_.size());
    stamped.ids_.push_back(
        Id{id.position, std::string(response.substr(id.begin, id.end - id.begin))});
    from = id.end;
  }
  stamped.writeText(response.substr(from), continuation);
  return stamped;
}

void StampedRpcResponse::writeText(std::string_view text, std::string_view continuation) {
  if (continuation.empty()) {
    text_.write(text);
    return;
  }
  for (std::size_t line_end = text.find('\n'); line_end != std::string_view::npos;
       line_end = text.find('\n')) {
    text_.write(text.substr(0, line_end + 1));
    text_.write(continuation);
    text.remove_prefix(line_end + 1);
  }
  text_.write(text);
}

void StampedRpcResponse::appendTo(std::string& out, const protocol::Json& live_request) const {
  std::vector<std::string> values;
  values.reserve(ids_.size());
  for (const Id& id : ids_) {
    values.push_back(protocol::a2a::liveIdText(id.position, id.recorded, live_request));
  }
  text_.appendTo(out, [&](std::size_t slot) -> std::string_view { return values[slot]; });
}

std::size_t StampedRpcResponse::bytes() const {
  std::size_t total = text_.bytes();
  for (const Id& id : ids_) {
    total += sizeof(Id) + id.recorded.size();
  }
  return total;
}

protocol::HttpReply StampedA2aAnswer::replyTo(const protocol::Json& live_request) const {
  protocol::HttpReply stamped = reply;
  if (body) {
    body->appendTo(stamped.body, live_request);
  }
  for (const Event& event : events) {
    std::string text = event.before;
    if (event.data) {
      event.data->appendTo(text, live_request);
    }
    text += event.after;
    stamped.stream.push_back(protocol::StreamPiece{event.delay, std::move(text)});
  }
  return stamped;
}

std::size_t StampedA2aAnswer::bytes() const {
  std::size_t total = sizeof(StampedA2aAnswer) + reply.body.size() + (body ? body->bytes() : 0);
  for (const auto& header : reply.headers) {
    total += header.name.size() + header.value.size();
  }
  for (const Event& event : events) {
    total += sizeof(Event) + event.before.size() + event.after.size() +
             (event.data ? event.data->bytes() : 0);
  }
  return total;
}

}  // namespace agentvcr::replay
