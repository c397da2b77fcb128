#include "a2a_evaluator.hpp"

#include <map>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/replay/a2a_compare.hpp"
#include "agentvcr/replay/live_answer.hpp"
#include "agentvcr/store/timing.hpp"
#include "eval_exchange.hpp"

namespace agentvcr::services::detail {
namespace {

using protocol::Json;
namespace a2a = protocol::a2a;

/// The methods evaluation sends again, in both bindings' names: the ones that ask the agent
/// something. tasks/get, tasks/cancel, message/stream and the rest are left out.
bool isSend(const Json& request) {
  const Json& method = protocol::memberOrNull(request, "method");
  return method.is_string() && (method.get<std::string>() == "message/send" ||
                                method.get<std::string>() == "SendMessage");
}

/// `message` with its recorded contextId and taskId replaced by the live agent's.
void useLiveIds(Json& request, const std::map<std::string, std::string>& live_contexts,
                const std::map<std::string, std::string>& live_tasks) {
  if (!request.contains("params") || !request["params"].is_object() ||
      !request["params"].contains("message") || !request["params"]["message"].is_object()) {
    return;
  }
  Json& message = request["params"]["message"];
  auto replace = [&message](const char* key, const std::map<std::string, std::string>& live) {
    if (auto member = message.find(key); member != message.end() && member->is_string()) {
      if (auto found = live.find(member->get<std::string>()); found != live.end()) {
        *member = found->second;
      }
    }
  };
  replace("contextId", live_contexts);
  replace("taskId", live_tasks);
}

std::optional<a2a::Call> liveCall(const PlannedA2aCall& call) {
  const auto calls = a2a::decodeCalls({call.live.method,
                                       call.live.target,
                                       call.a2a_version,
                                       call.live.request_body,
                                       call.live.response_body,
                                       {},
                                       call.live.status});
  if (calls.empty()) {
    return std::nullopt;
  }
  return calls.front();
}

}  // namespace

std::vector<PlannedA2aCall> planA2aCalls(const store::ArchiveReader& reader,
                                         const store::ReplaySelection& selection) {
  std::vector<PlannedA2aCall> planned;
  if (selection.all()) {
    return planned;  // nothing but evaluations in the archive
  }
  std::vector<store::A2aCallRow> calls;
  reader.forEachA2aCall(selection, [&](const store::A2aCallRow& call) { calls.push_back(call); });
  std::map<std::int64_t, std::int64_t> seen_in;  // calls so far of each context's conversation
  for (const store::A2aCallRow& call : calls) {
    if (!call.conversation_id) {
      continue;
    }
    const std::int64_t number = ++seen_in[*call.conversation_id];
    if (call.stream_event_count != 0) {
      continue;
    }
    auto exchange = reader.exchange(call.exchange_id);
    if (!exchange) {
      continue;
    }
    auto request = protocol::parseJson(exchange->request_body);
    if (!request.value || !request.value->is_object() || !isSend(*request.value)) {
      continue;  // a batch, the HTTP+JSON binding, or a method that asks nothing new
    }
    PlannedA2aCall plan;
    plan.report.recorded_session_id = call.session_id;
    plan.report.conversation_id = *call.conversation_id;
    plan.report.context_id = call.context_id.value_or("");
    plan.report.message_number = number;
    plan.report.recorded_call_id = call.id;
    plan.report.recorded_exchange_id = call.exchange_id;
    plan.recorded = call;
    plan.target = exchange->target;
    plan.a2a_version = std::string(protocol::headerValue(exchange->request_headers, "A2A-Version"));
    plan.request = std::move(*request.value);
    plan.request_body = exchange->request_body;
    if (auto agent_ns = store::timingSplit(*exchange).agent) {
      plan.recorded_ms = static_cast<double>(*agent_ns) / 1e6;
    }
    planned.push_back(std::move(plan));
  }
  return planned;
}

void askA2aCalls(const net::Url& agent, std::chrono::milliseconds timeout,
                 std::vector<PlannedA2aCall>& calls,
                 const std::function<void(std::size_t, std::size_t)>& progress,
                 bool first_contact) {
  net::HttpClient client(agent.host, agent.port, timeout);
  // recorded id -> the live agent's, per recorded conversation
  std::map<std::int64_t, std::map<std::string, std::string>> live_contexts;
  std::map<std::int64_t, std::map<std::string, std::string>> live_tasks;
  std::map<std::int64_t, bool> started;
  std::size_t done = 0;
  for (PlannedA2aCall& call : calls) {
    const std::int64_t conversation = call.report.conversation_id;
    std::string body = call.request_body;
    if (started[conversation]) {
      Json request = call.request;
      useLiveIds(request, live_contexts[conversation], live_tasks[conversation]);
      body = protocol::dumpCompact(request);
    }
    started[conversation] = true;
    auto& live = call.live;
    live.client_address = "agentvcr-eval";
    live.method = "POST";
    live.target = agent.base_path + call.target;
    live.request_headers = {{"Content-Type", "application/json"}};
    if (!call.a2a_version.empty()) {
      live.request_headers.push_back({"A2A-Version", call.a2a_version});
    }
    live.request_body = std::move(body);
    live.started_ns = protocol::nowNs();
    live.request_ended_ns = live.started_ns;  // eval is its own caller: nothing to read
    try {
      takeAnswer(live, client.send("POST", live.target, live.request_body, live.request_headers));
    } catch (const net::ClientError& error) {
      if (first_contact && done == 0) {
        throw EvalRefused(agent.toString() + " is not answering: " + error.what());
      }
      call.client_error = error.what();
      takeNoAnswer(live, error.what());
    }
    live.ended_ns = protocol::nowNs();
    if (auto answered = liveCall(call)) {
      if (call.recorded.context_id && answered->context_id) {
        live_contexts[conversation][*call.recorded.context_id] = *answered->context_id;
      }
      if (call.recorded.task_id && answered->task_id) {
        live_tasks[conversation][*call.recorded.task_id] = *answered->task_id;
      }
    }
    if (progress) {
      progress(++done, calls.size());
    }
  }
}

A2aEvalCall judgeA2aCall(const PlannedA2aCall& call) {
  A2aEvalCall judged = call.report;
  if (!call.client_error.empty()) {
    judged.comparison.violations.push_back("no answer: " + call.client_error);
    return judged;
  }
  if (call.live.status < 200 || call.live.status >= 300) {
    judged.comparison.violations.push_back("http " + std::to_string(call.live.status));
    return judged;
  }
  const auto answered = liveCall(call);
  const replay::A2aReply live = answered ? replay::a2aReplyOf(*answered) : replay::A2aReply{};
  judged.comparison = replay::compareA2aReplies(replay::a2aReplyOf(call.recorded), live);
  judged.live_reply = replay::toJson(live);
  if (call.live.upstream_first_byte_ns != 0) {
    judged.live_ms =
        static_cast<double>(call.live.upstream_first_byte_ns - call.live.upstream_sent_ns) / 1e6;
  }
  judged.recorded_ms = call.recorded_ms;
  return judged;
}

}  // namespace agentvcr::services::detail
