#include "models/a2a_text.hpp"

#include <sstream>

#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

/// Seconds as people write them: "42", "1.5".
std::string secondsText(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

std::string orNone(const std::optional<std::string>& value) {
  return value && !value->empty() ? *value : std::string("(none)");
}

std::string orNone(const std::string& value) {
  return value.empty() ? std::string("(none)") : value;
}

}  // namespace

bool callFailed(const store::A2aCallRow& call) {
  if (call.error_code || call.status >= 400) {
    return true;
  }
  const std::string state = call.task_state_norm.value_or("");
  return state == "failed" || state == "rejected";
}

bool isV10Call(const store::A2aCallRow& call) {
  return call.wire_version == "1.0";
}

std::string callStateText(const store::A2aCallRow& call) {
  if (call.task_state) {
    // "unknown" would hide what an agent with a state of its own sent: that reads as sent.
    return call.task_state_norm && *call.task_state_norm != "unknown" ? *call.task_state_norm
                                                                      : *call.task_state;
  }
  if (call.result_kind == "message") {
    return "message";
  }
  return call.error_code ? "error" : "";
}

std::string callErrorText(const store::A2aCallRow& call) {
  std::string text;
  if (call.error_code) {
    text = std::to_string(*call.error_code);
    if (call.error_message && !call.error_message->empty()) {
      text += " " + oneLine(*call.error_message, 80);
    }
  } else if (call.status >= 400) {
    text = "HTTP " + std::to_string(call.status);
  }
  if (call.retry_after) {
    text += " (retry after " + secondsText(*call.retry_after) + " s)";
  }
  return text;
}

std::string wireWarning(const store::A2aCallRow& call) {
  // Only the agent's refusal tells that the version was wrong: a v1.0 call it answered, with a
  // result or with any other error, was understood.
  if (!isV10Call(call) || (call.error_code != -32601 && call.error_code != -32009)) {
    return {};
  }
  const std::string called = "A2A v1.0 call (method " + call.method.value_or("?") + ")";
  if (call.error_code == -32601) {
    return called +
           " answered -32601 (method not found): it speaks v0.3, as Magisterium does, and "
           "expects message/send, tasks/get, tasks/cancel.";
  }
  return called +
         " answered -32009 (version not supported): the agent does not serve A2A 1.0; call it "
         "as v0.3 (message/send, no A2A-Version header).";
}

std::string callText(const store::A2aCallRow& call) {
  std::ostringstream out;
  out << "A2A call " << call.id << " · exchange " << call.exchange_id << " · wire v"
      << call.wire_version << " · JSON-RPC id " << call.rpc_id.value_or("(none)");
  if (call.position > 0) {
    out << " · position " << call.position << " in a batch";
  }
  out << "\n";
  if (const std::string warning = wireWarning(call); !warning.empty()) {
    out << "⚠ " << warning << "\n";
  }
  out << "\nmethod: " << orNone(call.method) << "\nskill: " << orNone(call.skill_id)
      << "\ntask: " << orNone(call.task_id) << " · context: " << orNone(call.context_id)
      << " · message: " << orNone(call.message_id) << "\nstate: " << orNone(callStateText(call));
  // The column shows the normal state; the spelling the agent sent stays in sight here.
  std::string state_notes;
  if (call.task_state && *call.task_state != callStateText(call)) {
    state_notes = "sent as " + *call.task_state;
  }
  if (call.result_kind) {
    state_notes += (state_notes.empty() ? "" : "; ") + ("result: " + *call.result_kind);
  }
  if (!state_notes.empty()) {
    out << " (" << state_notes << ")";
  }
  out << "\nHTTP status: " << call.status;
  if (call.ended_ns) {
    out << " · latency: " << durationText(*call.ended_ns - call.started_ns);
  }
  if (call.stream_event_count > 0) {
    out << " · " << call.stream_event_count << " stream events";
  }
  out << "\n\n── user text\n"
      << call.request_text.value_or("(no text)") << "\n\n── answer text\n"
      << call.response_text.value_or("(no text)") << "\n";
  if (call.error_code) {
    out << "\n── error\ncode " << *call.error_code << ": " << call.error_message.value_or("")
        << "\n";
    if (call.retry_after) {
      out << "retryAfter: " << secondsText(*call.retry_after) << " s\n";
    }
    if (call.error_data) {
      out << "data:\n" << prettyJson(*call.error_data) << "\n";
    }
  }
  return out.str();
}

std::string artifactsText(const store::A2aCallRow& call) {
  return "artifacts:\n" + (call.artifacts ? prettyJson(*call.artifacts) : "(none)") +
         "\n\nhistory:\n" + (call.history ? prettyJson(*call.history) : "(none)") + "\n";
}

std::string streamEventsText(const store::A2aCallRow& call,
                             const std::vector<store::StreamEventRow>& events) {
  if (events.empty()) {
    return "(not a streamed call: the answer came as one JSON body)";
  }
  const std::int64_t first_ns = events.front().at_ns;
  std::ostringstream out;
  out << events.size() << " events over " << durationText(events.back().at_ns - first_ns)
      << "; offsets after the first event / after the request started\n";
  for (const store::StreamEventRow& event : events) {
    out << "\n━━ event " << event.position << " · " << offsetMsText(event.at_ns - first_ns) << " / "
        << offsetMsText(event.at_ns - call.started_ns);
    if (event.event) {
      out << " · event: " << *event.event;
    }
    if (event.event_id) {
      out << " · id: " << *event.event_id;
    }
    out << "\n" << prettyJson(event.data) << "\n";
  }
  return out.str();
}

}  // namespace agentvcr::viewer
