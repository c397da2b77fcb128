#include "agentvcr/replay/stamped_a2a_answer.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;
using protocol::OrderedJson;

/// How a2a::restampIds() writes JSON: compact, invalid UTF-8 replaced.
template <class AnyJson>
std::string restampedText(const AnyJson& value) {
  return value.dump(-1, ' ', false, AnyJson::error_handler_t::replace);
}

/// The `id` of a request object, null when it has none (as a2a::restampIds() reads it).
const Json& callIdOf(const Json& request) {
  return protocol::memberOrNull(request, "id");
}

}  // namespace

StampedRpcResponse::StampedRpcResponse(const OrderedJson& response, const Json& recorded_request) {
  if (!response.is_array()) {
    writeObject(response, Id{});
    return;
  }
  // A batch's answers may come in any order: each recorded id names the live id at the
  // position of the first recorded call that had it. Without a recorded batch nothing is
  // restamped.
  text_.write("[");
  bool first = true;
  for (const OrderedJson& element : response) {
    if (!first) {
      text_.write(",");
    }
    first = false;
    std::optional<Id> id;
    if (recorded_request.is_array() && element.is_object() && element.contains("id")) {
      const Json recorded_id = Json::parse(element["id"].dump());
      for (std::size_t i = 0; i < recorded_request.size(); ++i) {
        if (callIdOf(recorded_request[i]) == recorded_id) {
          id = Id{i, restampedText(element["id"])};
          break;
        }
      }
    }
    writeObject(element, std::move(id));
  }
  text_.write("]");
}

void StampedRpcResponse::writeObject(const OrderedJson& object, std::optional<Id> id) {
  if (!id || !object.is_object() || !object.contains("id")) {
    text_.write(restampedText(object));
    return;
  }
  text_.write("{");
  bool first = true;
  for (const auto& [name, value] : object.items()) {
    if (!first) {
      text_.write(",");
    }
    first = false;
    text_.write(restampedText(OrderedJson(name)));
    text_.write(":");
    if (name == "id") {
      text_.hole(ids_.size());
    } else {
      text_.write(restampedText(value));
    }
  }
  text_.write("}");
  ids_.push_back(std::move(*id));
}

void StampedRpcResponse::appendTo(std::string& out, const Json& live_request) const {
  std::vector<std::string> values;
  values.reserve(ids_.size());
  for (const Id& id : ids_) {
    if (!id.position) {
      values.push_back(restampedText(callIdOf(live_request)));
    } else if (live_request.is_array() && *id.position < live_request.size()) {
      values.push_back(restampedText(callIdOf(live_request[*id.position])));
    } else {
      values.push_back(id.recorded);  // the live request has no call there: left as recorded
    }
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

protocol::HttpReply StampedA2aAnswer::replyTo(const Json& live_request) const {
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
