#include "export_decoded.hpp"

#include <optional>
#include <string>

namespace agentvcr::store::detail {
namespace {

Ordered text(const std::optional<std::string>& value) {
  return value ? Ordered(*value) : Ordered(nullptr);
}

Ordered integer(const std::optional<std::int64_t>& value) {
  return value ? Ordered(*value) : Ordered(nullptr);
}

/// JSON text stored in a column, as JSON again (the text itself if it does not parse).
Ordered jsonText(const std::optional<std::string>& value) {
  if (!value) {
    return nullptr;
  }
  Ordered parsed = Ordered::parse(*value, nullptr, false);
  return parsed.is_discarded() ? Ordered(*value) : parsed;
}

}  // namespace

Ordered streamEventsJson(const ArchiveReader& reader, std::int64_t exchange_id) {
  Ordered events = Ordered::array();
  for (const StreamEventRow& row : reader.streamEvents(exchange_id)) {
    Ordered event = Ordered::object();
    event["position"] = row.position;
    event["at_ns"] = row.at_ns;
    event["event"] = text(row.event);
    event["id"] = text(row.event_id);
    event["data"] = row.data;
    events.push_back(std::move(event));
  }
  return events;
}

Ordered magmaStepsJson(const ArchiveReader& reader, std::int64_t exchange_id) {
  Ordered steps = Ordered::array();
  for (const StepRow& step : reader.stepsOfExchange(exchange_id)) {
    Ordered candidates = Ordered::array();
    for (const CandidateRow& candidate : reader.candidates(step.id)) {
      Ordered c = Ordered::object();
      c["index"] = candidate.candidate_index;
      c["status"] = candidate.status;
      c["decision_kind"] = text(candidate.decision_kind);
      c["say"] = text(candidate.say);
      c["tool_calls"] = jsonText(candidate.tool_calls);
      c["error_code"] = text(candidate.error_code);
      c["error_message"] = text(candidate.error_message);
      candidates.push_back(std::move(c));
    }
    Ordered s = Ordered::object();
    s["position"] = step.position;
    s["source_id"] = step.source_id;
    s["instruction_type"] = step.instruction_type;
    s["instruction_content"] = step.instruction_content;
    s["conversation_id"] = step.conversation_id;
    s["depth"] = step.depth;
    s["candidates"] = std::move(candidates);
    steps.push_back(std::move(s));
  }
  return steps;
}

Ordered envFeedbackJson(const ArchiveReader& reader, std::int64_t exchange_id) {
  Ordered feedback = Ordered::array();
  for (const StepRow& step : reader.stepsOfExchange(exchange_id)) {
    if (step.instruction_type != "env") {
      continue;
    }
    Ordered f = Ordered::object();
    f["position"] = step.position;
    f["source_id"] = step.source_id;
    f["feedback"] = Ordered::parse(
        step.env_feedback.dump(-1, ' ', false, protocol::Json::error_handler_t::replace));
    f["failure"] = step.env_failure ? Ordered(*step.env_failure) : Ordered(nullptr);
    feedback.push_back(std::move(f));
  }
  return feedback;
}

Ordered a2aCallsJson(const ArchiveReader& reader, std::int64_t exchange_id) {
  Ordered calls = Ordered::array();
  for (const A2aCallRow& row : reader.a2aCallsOfExchange(exchange_id)) {
    Ordered c = Ordered::object();
    c["position"] = row.position;
    c["method"] = text(row.method);
    c["rpc_id"] = jsonText(row.rpc_id);
    c["task_id"] = text(row.task_id);
    c["context_id"] = text(row.context_id);
    c["skill_id"] = text(row.skill_id);
    c["task_state"] = text(row.task_state);
    c["task_state_norm"] = text(row.task_state_norm);
    c["result_kind"] = text(row.result_kind);
    c["error_code"] = integer(row.error_code);
    c["error_message"] = text(row.error_message);
    c["conversation_id"] = integer(row.conversation_id);
    calls.push_back(std::move(c));
  }
  return calls;
}

}  // namespace agentvcr::store::detail
