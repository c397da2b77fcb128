#include "a2a_replayer.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/caller_ids.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/protocol/sse.hpp"
#include "agentvcr/replay/json_diff.hpp"
#include "replies.hpp"

namespace agentvcr::replay::detail {
namespace {

namespace a2a = protocol::a2a;
using protocol::Json;

/// JSON-RPC's code for a failure inside the server: what a client library reports plainly. The
/// data says that replay, not the agent, is speaking.
constexpr int kReplayMissCode = -32603;

Json parsedOrNull(std::string_view body) {
  auto parsed = protocol::parseJson(body);
  return parsed.value ? std::move(*parsed.value) : Json(nullptr);
}

Json idOf(const Json& request) {
  if (request.is_object()) {
    if (auto id = request.find("id"); id != request.end()) {
      return *id;
    }
  }
  return nullptr;
}

std::string methodOf(const Json& request) {
  if (request.is_object()) {
    if (auto method = request.find("method"); method != request.end() && method->is_string()) {
      return method->get<std::string>();
    }
  }
  return "";
}

/// The fields of a recorded event before its data.
std::string eventFields(const store::StreamEventRow& event) {
  std::string text;
  if (event.event) {
    text += "event: " + *event.event + "\n";
  }
  if (event.event_id) {
    text += "id: " + *event.event_id + "\n";
  }
  return text;
}

/// One recorded event written again: its fields, then its data line by line.
std::string eventText(const store::StreamEventRow& event, const std::string& data) {
  std::string text = eventFields(event);
  std::size_t start = 0;
  while (true) {
    std::size_t end = data.find('\n', start);
    text += "data: " + data.substr(start, end - start) + "\n";
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return text + "\n";
}

/// A GET of an agent card path, or a HEAD, which is answered with the GET's header.
bool asksForAgentCard(const protocol::HttpRequest& request) {
  return (request.method == "GET" || request.method == "HEAD") &&
         a2a::isAgentCardPath(request.target);
}

protocol::HttpReply jsonRpcError(int http_status, const Json& id, int code,
                                 const std::string& message, protocol::OrderedJson data) {
  protocol::OrderedJson body;
  body["jsonrpc"] = "2.0";
  body["id"] = protocol::OrderedJson::parse(id.dump());
  body["error"]["code"] = code;
  body["error"]["message"] = message;
  body["error"]["data"] = std::move(data);
  return jsonReply(http_status,
                   body.dump(-1, ' ', false, protocol::Json::error_handler_t::replace));
}

}  // namespace

A2aReplayer::A2aReplayer(ReaderPool& readers, const ReplayOptions& options)
    : readers_(readers), options_(options) {
  readers_.with([&](const store::ArchiveReader& reader) {
    std::vector<store::A2aCallRow> calls;
    reader.forEachA2aCall(options_.selection,
                          [&](const store::A2aCallRow& call) { calls.push_back(call); });
    std::int64_t previous_exchange = 0;
    std::unordered_set<std::string> contexts;
    // Calls seen so far of each conversation: a context, with the calls threaded into it by
    // task id (a tasks/get names no context).
    std::unordered_map<std::int64_t, std::int64_t> seen_in;
    for (const store::A2aCallRow& call : calls) {
      if (call.context_id) {
        contexts.insert(*call.context_id);
      }
      std::optional<std::int64_t> in_context;
      if (call.conversation_id) {
        in_context = seen_in[*call.conversation_id]++;
      }
      if (call.task_id && call.result_kind == "task" && !call.error_code &&
          call.stream_event_count == 0) {
        tasks_[*call.task_id] =
            KnownTask{call.exchange_id, static_cast<std::size_t>(call.position)};
      }
      if (call.exchange_id == previous_exchange) {
        continue;  // the other calls of a batch: the exchange is keyed once
      }
      previous_exchange = call.exchange_id;
      std::optional<store::ExchangeRow> exchange = reader.exchange(call.exchange_id);
      if (!exchange) {
        continue;
      }
      Recorded recorded{call.exchange_id,
                        call.session_id,
                        recordedThinkTime(exchange->started_ns, exchange->upstream_sent_ns,
                                          exchange->upstream_first_byte_ns)
                            .count(),
                        exchange->upstream_first_byte_ns.value_or(exchange->started_ns),
                        parsedOrNull(exchange->request_body),
                        false,
                        in_context};
      recorded.rest = !a2a::isJsonRpc(recorded.request);
      protocol::HttpRequest as_sent{exchange->method, exchange->target, {}, exchange->request_body};
      queues_.add(keyOf(as_sent, recorded.request), recorded_.size(),
                  protocol::headerValue(exchange->request_headers, protocol::kScopeHeader));
      paths_.insert(std::string(protocol::pathOfTarget(exchange->target)));
      recorded_.push_back(std::move(recorded));
    }
    call_count_ = calls.size();
    context_count_ = contexts.size();
    for (const store::ExchangeRow& card :
         reader.exchangesOfRoute(options_.selection, "a2a.agent_card")) {
      if (card.status >= 200 && card.status < 300) {
        cards_[std::string(protocol::pathOfTarget(card.target))] = card.id;
      }
    }
  });
  if (options_.memo_bytes > 0) {
    memo_ = std::make_unique<Memo>(options_.memo_bytes);
    stamped_ =
        std::make_unique<ExchangeCache<StampedA2aAnswer>>(RecordedAnswers::kDefaultKeptBytes);
  }
}

std::optional<MemoStats> A2aReplayer::memoStats() const {
  if (!memo_) {
    return std::nullopt;
  }
  return memo_->stats();
}

std::optional<std::pair<std::uint64_t, Json>> A2aReplayer::remembered(
    const protocol::HttpRequest& request, std::string& masked) {
  const auto layout = options_.a2a_ignore_message_id ? protocol::IdLayout::JsonRpcAndMessageId
                                                     : protocol::IdLayout::JsonRpc;
  // A body-less call (a GET of the HTTP+JSON binding) has no ids to find.
  auto spans = request.body.empty() ? std::optional(std::vector<protocol::IdSpan>{})
                                    : protocol::findCallerIds(request.body, layout);
  if (!spans) {
    return std::nullopt;
  }
  // The key covers the HTTP method and target too. A call of the HTTP+JSON binding names no
  // call id: an `id` in its body is content (a push config's), so nothing is masked.
  const bool rest = a2a::restRouteIn(request.method, protocol::pathOfTarget(request.target),
                                     /*a2a_hint=*/true)
                        .has_value();
  masked = request.method + ' ' + request.target + '\n' +
           (rest ? request.body : protocol::maskIds(request.body, *spans));
  auto entry = memo_->find(masked);
  if (!entry) {
    return std::nullopt;
  }
  auto ids = protocol::jsonRpcIdsOnly(request.body, *spans, entry->batch_size);
  if (!ids) {
    return std::nullopt;
  }
  return std::pair{entry->key, std::move(*ids)};
}

bool A2aReplayer::serves(const protocol::HttpRequest& request) const {
  if (asksForAgentCard(request)) {
    return true;
  }
  if (paths_.count(std::string(protocol::pathOfTarget(request.target))) != 0 ||
      isRestCall(request)) {
    return true;
  }
  if (request.method != "POST") {
    return false;
  }
  auto parsed = protocol::parseJson(request.body);
  return parsed.value && a2a::isJsonRpc(*parsed.value);
}

std::uint64_t A2aReplayer::keyOf(const protocol::HttpRequest& request, const Json& body) const {
  a2a::KeyOptions key_options{options_.a2a_ignore_message_id};
  if (auto route = restRouteOf(request, body)) {
    // Keyed as the JSON-RPC call it stands for, query included (the path alone would mix
    // `GET /tasks?pageSize=1` and `?pageSize=2`).
    return a2a::callKey(request.method, request.target,
                        a2a::restCallObject(*route, request.target, body), key_options);
  }
  if (body.is_array() && !body.empty()) {
    std::string keys = "batch";
    for (const Json& element : body) {
      keys += ":" +
              protocol::hashHex(a2a::callKey(request.method, request.target, element, key_options));
    }
    return protocol::stableHash(keys);
  }
  return a2a::callKey(request.method, request.target, body, key_options);
}

ReplayOutcome A2aReplayer::respond(const protocol::HttpRequest& request, const Forwarder* forward,
                                   std::string_view scope) {
  ReplayOutcome outcome =
      asksForAgentCard(request) ? answerCard(request) : answerCall(request, forward, scope);
  pointCardsHere(request, outcome.reply);
  return outcome;
}

ReplayOutcome A2aReplayer::answerCall(const protocol::HttpRequest& request,
                                      const Forwarder* forward, std::string_view scope) {
  std::string masked;  // the memo's key for this request, once the scan found its ids
  auto memoized = memo_ ? remembered(request, masked) : std::nullopt;
  Json body;  // the request, or only its ids when the memo knew it
  std::uint64_t key = 0;
  if (memoized) {
    key = memoized->first;
    body = std::move(memoized->second);
  } else {
    body = parsedOrNull(request.body);
    key = keyOf(request, body);
    // A body that does not parse is not remembered: its ids may be what fails.
    if (!masked.empty() && (!body.is_null() || request.body.empty())) {
      memo_->insert(std::move(masked),
                    MemoEntry{key, body.is_array() ? std::optional(body.size()) : std::nullopt}, 0);
    }
  }
  std::optional<std::size_t> index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    index = queues_.take(key, scope);
  }
  ReplayOutcome outcome;
  if (index && options_.on_miss == MissPolicy::Forward && forward != nullptr && options_.fork_at &&
      recorded_[*index].in_context && *recorded_[*index].in_context >= *options_.fork_at) {
    // Past the fork point of its context: the live agent answers, as it does a miss, and the
    // stored call is linked to the recorded one it asks again.
    Reasked reasked;
    reasked.a2a_exchange =
        ReaskedExchange{recorded_[*index].exchange_id, recorded_[*index].session_id};
    outcome.reply = forwarded(request, body, *forward, reasked);
    outcome.forwarded = true;
    outcome.forked = 1;
    return outcome;
  }
  if (index) {
    outcome.reply = stamped_ ? stampedAnswer(recorded_[*index])->replyTo(body)
                             : recordedAnswer(recorded_[*index], body);
    outcome.hits = 1;
    return outcome;
  }
  if (memoized) {
    body = parsedOrNull(request.body);  // the rest reads more than the ids
  }
  if (std::optional<protocol::HttpReply> task = knownTaskAnswer(body)) {
    outcome.reply = std::move(*task);
    outcome.hits = 1;
    return outcome;
  }
  return miss(request, body, key, forward);
}

bool A2aReplayer::isRestCall(const protocol::HttpRequest& request) {
  return a2a::restRouteOfRequest(request.method, request.target, request.headers).has_value();
}

std::optional<a2a::RestRoute> A2aReplayer::restRouteOf(const protocol::HttpRequest& request,
                                                       const Json& body) {
  if (a2a::isJsonRpc(body)) {
    return std::nullopt;
  }
  return a2a::restRouteIn(request.method, protocol::pathOfTarget(request.target),
                          /*a2a_hint=*/true);
}

ReplayOutcome A2aReplayer::answerCard(const protocol::HttpRequest& request) {
  ReplayOutcome outcome;
  auto card = cards_.find(std::string(protocol::pathOfTarget(request.target)));
  if (card == cards_.end()) {
    outcome.reply = agentvcrError(404, "replay.a2a.no_card",
                                  "agentvcr replay: no agent card was recorded at this path");
    return outcome;
  }
  auto response = readers_.with(
      [&](const store::ArchiveReader& reader) { return reader.recordedResponse(card->second); });
  if (!response) {
    throw std::runtime_error("[replay.archive] recorded agent card vanished");
  }
  outcome.reply = recordedReply(*response);
  outcome.hits = 1;
  return outcome;
}

void A2aReplayer::pointCardsHere(const protocol::HttpRequest& request, protocol::HttpReply& reply) {
  const a2a::CardCarrier carrier = a2a::cardCarrierOf(request.method, request.target, request.body);
  if (!carrier || reply.status / 100 != 2 || !reply.stream.empty()) {
    return;
  }
  const std::string_view host = protocol::headerValue(request.headers, "Host");
  if (host.empty()) {
    // The local service names the address a connection reached when its request names none:
    // only a caller in the same process gets here, and the card would send it to the agent.
    reply = agentvcrError(400, "replay.a2a.no_host",
                          "agentvcr replay: a request for an agent card must name in Host the "
                          "address it reached, where the card sends the caller next");
    return;
  }
  auto rewrite =
      a2a::rebaseCard(reply.body, carrier, {.from = "", .to = "http://" + std::string(host)});
  if (rewrite.result != a2a::CardRewriteResult::Rewritten) {
    return;
  }
  reply.body = std::move(rewrite.body);
  for (protocol::HeaderField& header : reply.headers) {
    if (protocol::equalsIgnoreCase(header.name, "ETag")) {
      header.value = a2a::rewrittenCardTag(reply.body);  // the agent's names the agent's bytes
    }
  }
}

protocol::HttpReply A2aReplayer::recordedAnswer(const Recorded& recorded,
                                                const Json& live_request) {
  auto response = readers_.with([&](const store::ArchiveReader& reader) {
    return reader.recordedResponse(recorded.exchange_id);
  });
  if (!response) {
    throw std::runtime_error("[replay.archive] recorded exchange " +
                             std::to_string(recorded.exchange_id) + " vanished");
  }
  if (protocol::isEventStreamType(contentTypeOf(response->headers))) {
    return streamedAnswer(recorded, *response, live_request);
  }
  protocol::HttpReply reply = recordedReply(*response);
  if (recorded.rest) {
    reply.hold = paced(std::chrono::nanoseconds(recorded.think_ns), options_.answer_pace);
    return reply;  // the HTTP+JSON binding's answers name no call id
  }
  if (auto restamped = a2a::restampIds(response->body, recorded.request, live_request)) {
    reply.body = std::move(*restamped);
    reply.headers = replayableHeaders(response->headers, /*body_rewritten=*/true);
  }
  reply.hold = paced(std::chrono::nanoseconds(recorded.think_ns), options_.answer_pace);
  return reply;
}

std::shared_ptr<const StampedA2aAnswer> A2aReplayer::stampedAnswer(const Recorded& recorded) {
  return stamped_->of(recorded.exchange_id, [&] {
    // What recordedAnswer() and streamedAnswer() do, with holes for the live ids.
    std::optional<store::RecordedResponse> response;
    std::vector<store::StreamEventRow> events;
    bool stream = false;
    readers_.with([&](const store::ArchiveReader& reader) {
      response = reader.recordedResponse(recorded.exchange_id);
      stream = response && protocol::isEventStreamType(contentTypeOf(response->headers));
      if (stream) {
        events = reader.streamEvents(recorded.exchange_id);
      }
    });
    if (!response) {
      throw std::runtime_error("[replay.archive] recorded exchange " +
                               std::to_string(recorded.exchange_id) + " vanished");
    }
    auto answer = std::make_shared<StampedA2aAnswer>();
    answer->reply = recordedReply(*response);
    const std::chrono::nanoseconds think(recorded.think_ns);
    answer->reply.hold = paced(think, stream ? options_.stream_pace : options_.answer_pace);
    if (stream && !events.empty()) {
      answer->reply.body.clear();
      answer->reply.headers = replayableHeaders(response->headers, /*body_rewritten=*/true);
      std::int64_t previous_ns = recorded.answered_ns;
      for (const store::StreamEventRow& event : events) {
        StampedA2aAnswer::Event stamped;
        stamped.delay =
            paced(std::chrono::nanoseconds(std::max<std::int64_t>(0, event.at_ns - previous_ns)),
                  options_.stream_pace);
        previous_ns = std::max(previous_ns, event.at_ns);
        const bool restamped =
            !recorded.rest && protocol::parseJson(event.data).value.value_or(Json()).is_object();
        if (restamped) {
          stamped.before = eventFields(event) + "data: ";
          stamped.data = StampedRpcResponse::of(event.data, recorded.request, "data: ");
          stamped.after = "\n\n";
        } else {
          stamped.before = eventText(event, event.data);
        }
        answer->events.push_back(std::move(stamped));
      }
    } else if (!stream && !recorded.rest) {
      answer->body = StampedRpcResponse::of(response->body, recorded.request);
      if (answer->body) {
        answer->reply.body.clear();
        answer->reply.headers = replayableHeaders(response->headers, /*body_rewritten=*/true);
      }
    }
    return std::shared_ptr<const StampedA2aAnswer>(std::move(answer));
  });
}

protocol::HttpReply A2aReplayer::streamedAnswer(const Recorded& recorded,
                                                const store::RecordedResponse& response,
                                                const Json& live_request) {
  auto events = readers_.with([&](const store::ArchiveReader& reader) {
    return reader.streamEvents(recorded.exchange_id);
  });
  protocol::HttpReply reply = recordedReply(response);
  // The stream opens after the agent's think time; each event follows the one before (the first,
  // the opening) after the gap it had when recorded.
  reply.hold = paced(std::chrono::nanoseconds(recorded.think_ns), options_.stream_pace);
  if (events.empty()) {
    return reply;  // nothing whole was recorded: the bytes as they came
  }
  reply.body.clear();
  reply.headers = replayableHeaders(response.headers, /*body_rewritten=*/true);
  const Json live_id = idOf(live_request);
  std::int64_t previous_ns = recorded.answered_ns;
  for (const store::StreamEventRow& event : events) {
    const auto delay =
        paced(std::chrono::nanoseconds(std::max<std::int64_t>(0, event.at_ns - previous_ns)),
              options_.stream_pace);
    previous_ns = std::max(previous_ns, event.at_ns);
    reply.stream.push_back(protocol::StreamPiece{
        delay,
        eventText(event, recorded.rest ? event.data : a2a::restampEventData(event.data, live_id))});
  }
  return reply;
}

std::optional<protocol::HttpReply> A2aReplayer::knownTaskAnswer(const Json& live_request) {
  const Json& params = protocol::memberOrNull(live_request, "params");
  if (methodOf(live_request) != "tasks/get" || !params.is_object() || !params.contains("id") ||
      !params["id"].is_string()) {
    return std::nullopt;
  }
  auto known = tasks_.find(params["id"].get<std::string>());
  if (known == tasks_.end()) {
    return std::nullopt;
  }
  auto response = readers_.with([&](const store::ArchiveReader& reader) {
    return reader.recordedResponse(known->second.exchange_id);
  });
  if (!response) {
    return std::nullopt;
  }
  std::optional<std::size_t> history_length;
  if (auto length = params.find("historyLength");
      length != params.end() && length->is_number_integer()) {
    history_length =
        static_cast<std::size_t>(std::max<std::int64_t>(0, length->get<std::int64_t>()));
  }
  auto answer = a2a::recordedTaskAnswer(response->body, known->second.position, idOf(live_request),
                                        history_length);
  if (!answer) {
    return std::nullopt;
  }
  return jsonReply(200, std::move(*answer));
}

protocol::HttpReply A2aReplayer::forwarded(const protocol::HttpRequest& request, const Json& body,
                                           const Forwarder& forward, const Reasked& reasked) {
  ForwardReply live = forward(request, reasked);
  if (live.status == 0) {
    return jsonRpcError(502, idOf(body), kReplayMissCode, live.error,
                        {{"agentvcr_error", "replay.forward_failed"}});
  }
  return protocol::HttpReply{live.status,
                             contentTypeOf(live.headers),
                             replayableHeaders(live.headers, false),
                             live.body,
                             {}};
}

ReplayOutcome A2aReplayer::miss(const protocol::HttpRequest& request, const Json& body,
                                std::uint64_t key, const Forwarder* forward) {
  MissReport report;
  report.route = "a2a";
  report.request_id = idOf(body).dump();
  report.replay_key = key;
  const std::string method = methodOf(body);
  report.input = body.is_object()
                     ? Json{{"method", method}, {"params", protocol::memberOrNull(body, "params")}}
                     : body;

  // The closest recording: the same JSON-RPC method with the fewest differing params.
  std::optional<std::string> closest;
  for (const Recorded& recorded : recorded_) {
    if (method.empty() || methodOf(recorded.request) != method) {
      continue;
    }
    JsonDifferences differences =
        differingPaths(protocol::memberOrNull(recorded.request, "params"),
                       protocol::memberOrNull(body, "params"), options_.max_difference_paths);
    if (!closest || differences.paths.size() < report.differences.paths.size()) {
      closest = "exchange " + std::to_string(recorded.exchange_id);
      report.differences = std::move(differences);
    }
  }
  report.reason =
      missReason("A2A call" + (method.empty() ? "" : " " + method), closest, report.differences);

  ReplayOutcome outcome;
  if (options_.on_miss == MissPolicy::Forward && forward != nullptr) {
    outcome.reply = forwarded(request, body, *forward);
    outcome.forwarded = true;
  } else if (restRouteOf(request, body)) {
    // The binding's own error shape, a google.rpc.Status, so that the caller's client reads it.
    const bool error = options_.on_miss == MissPolicy::Error;
    protocol::OrderedJson status;
    status["error"]["code"] = error ? 404 : 503;
    status["error"]["status"] = error ? "NOT_FOUND" : "UNAVAILABLE";
    status["error"]["message"] = report.reason;
    status["error"]["details"] =
        protocol::OrderedJson::array({{{"@type", a2a::kErrorInfoType},
                                       {"reason", "REPLAY_MISS"},
                                       {"domain", "agentvcr"},
                                       {"metadata", {{"agentvcr_error", "replay.miss"}}}}});
    outcome.reply = jsonReply(
        error ? 404 : 503, status.dump(-1, ' ', false, protocol::Json::error_handler_t::replace));
  } else {
    const int status = options_.on_miss == MissPolicy::Error ? 200 : 503;
    outcome.reply = jsonRpcError(
        status, idOf(body), kReplayMissCode, report.reason,
        {{"agentvcr_error", "replay.miss"}, {"differences", report.differences.paths}});
  }
  outcome.misses.push_back(std::move(report));
  return outcome;
}

}  // namespace agentvcr::replay::detail
