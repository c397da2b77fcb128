#include "coaching_replayer.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/fastapi_errors.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/protocol/redact.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "replies.hpp"

namespace agentvcr::replay::detail {
namespace {

using protocol::Json;
using protocol::OrderedJson;
namespace magma = protocol::magma;
using magma::Route;

/// The keyed content of a coaching request: the session config as stored (secrets redacted the
/// same deterministic way, so a live config matches its recording), nothing for a DELETE (its
/// only content is the run id), the coaching request without its run and request ids.
Json keyedContent(Route route, const std::string& body) {
  if (route == Route::CoachingDelete) {
    return nullptr;
  }
  const std::string text =
      route == Route::CoachingPut ? protocol::redactCoachingSessionBody(body).value_or(body) : body;
  auto parsed = protocol::parseJson(text);
  if (!parsed.value) {
    return text;  // unparseable bodies are keyed (and compared) as text
  }
  Json content = std::move(*parsed.value);
  if (route == Route::Coaching && content.is_object()) {
    content.erase("run_id");
    content.erase("request_id");
  }
  return content;
}

std::uint64_t keyOf(Route route, const Json& content) {
  return protocol::stableHash(magma::routeName(route) + std::string("\n") +
                              protocol::canonicalJson(content));
}

/// 422 for a body the reference server's model would refuse; empty when it validates.
std::optional<protocol::HttpReply> invalidBody(Route route, const std::string& body,
                                               std::string& request_id) {
  if (route == Route::CoachingDelete) {
    return std::nullopt;
  }
  if (body.empty()) {
    return jsonReply(422, protocol::missingBodyErrorBody());
  }
  auto parsed = protocol::parseJson(body);
  if (!parsed.value) {
    return jsonReply(422, protocol::jsonDecodeErrorBody(parsed.error));
  }
  if (route == Route::CoachingPut) {
    auto config = magma::parseCoachingSessionConfig(*parsed.value);
    if (!config.ok()) {
      return jsonReply(422, protocol::validationErrorBody(config.findings));
    }
    return std::nullopt;
  }
  auto request = magma::parseSpecializedCoachingRequest(*parsed.value);
  if (!request.ok()) {
    return jsonReply(422, protocol::validationErrorBody(request.findings));
  }
  request_id = request.value->request_id;
  return std::nullopt;
}

/// The recorded answer with the live request_id in place of the recorded one.
protocol::HttpReply restamped(protocol::HttpReply reply, const std::string& request_id) {
  auto body = protocol::parseOrderedJson(reply.body);
  if (request_id.empty() || !body || !body->is_object() || !body->contains("request_id")) {
    return reply;
  }
  (*body)["request_id"] = request_id;
  const auto style = protocol::detectPythonJsonStyle(reply.body);
  reply.body = protocol::pythonJsonDumps(*body, style);
  reply.headers = replayableHeaders(reply.headers, /*body_rewritten=*/true);
  return reply;
}

/// A SpecializedCoachingResponse with status "error": the coaching counterpart of an error
/// candidate, which GEN handles as a failed coaching attempt.
protocol::HttpReply coachingMissReply(const std::string& request_id, const std::string& reason) {
  OrderedJson body;
  body["logs"] = OrderedJson::array();
  body["request_id"] = request_id;
  body["status"] = "error";
  body["proposals"] = OrderedJson::array();
  body["reason"] = reason;
  return jsonReply(200, protocol::pythonJsonDumps(body));
}

const std::vector<std::string> kCoachingRoutes = {"coaching_put", "coaching_delete", "coaching"};

}  // namespace

CoachingReplayer::CoachingReplayer(ReaderPool& readers, const ReplayOptions& options)
    : readers_(readers), options_(options) {
  readers_.with([&](const store::ArchiveReader& reader) {
    std::vector<store::ExchangeRow> rows;
    for (const std::string& route : kCoachingRoutes) {
      auto of_route = reader.exchangesOfRoute(options_.selection, route);
      rows.insert(rows.end(), std::make_move_iterator(of_route.begin()),
                  std::make_move_iterator(of_route.end()));
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (const store::ExchangeRow& row : rows) {
      if (row.status == 0) {
        continue;  // the caller never got an answer: nothing to replay
      }
      const Route route = magma::routeOf(row.method, row.target);
      Recorded recorded{
          row.id, route, keyedContent(route, row.request_body),
          recordedThinkTime(row.started_ns, row.upstream_sent_ns, row.upstream_first_byte_ns)
              .count()};
      queues_.add(keyOf(route, recorded.content), recorded_.size(),
                  protocol::headerValue(row.request_headers, protocol::kScopeHeader));
      recorded_.push_back(std::move(recorded));
    }
  });
}

ReplayOutcome CoachingReplayer::respond(Route route, const protocol::HttpRequest& request,
                                        const Forwarder* forward, std::string_view scope) {
  ReplayOutcome outcome;
  std::string request_id;
  if (auto invalid = invalidBody(route, request.body, request_id)) {
    outcome.reply = std::move(*invalid);
    return outcome;
  }
  const Json content = keyedContent(route, request.body);
  const std::uint64_t key = keyOf(route, content);
  std::optional<std::size_t> index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    index = queues_.take(key, scope);
  }
  if (index) {
    const Recorded& taken = recorded_[*index];
    auto recorded = readers_.with([&](const store::ArchiveReader& reader) {
      return reader.recordedResponse(taken.exchange_id);
    });
    if (recorded) {
      outcome.hits = 1;
      outcome.reply = restamped(recordedReply(*recorded), request_id);
      outcome.reply.hold = paced(std::chrono::nanoseconds(taken.think_ns), options_.answer_pace);
      return outcome;
    }
  }

  outcome.misses.push_back(reportMiss(route, content, key, request_id));
  const std::string& reason = outcome.misses.back().reason;
  switch (options_.on_miss) {
    case MissPolicy::Forward:
      if (forward != nullptr) {
        ForwardReply answer = (*forward)(request, {});
        outcome.forwarded = true;
        outcome.reply = answer.status == 0 ? agentvcrError(502, "replay.forward", answer.error)
                                           : recordedReply(store::RecordedResponse{
                                                 answer.status, answer.headers, answer.body});
        return outcome;
      }
      break;
    case MissPolicy::Error:
      if (route == Route::Coaching) {
        outcome.reply = coachingMissReply(request_id, reason);
        return outcome;
      }
      break;  // session routes have no error body of their own: answer as Http does
    case MissPolicy::Http:
      break;
  }
  outcome.reply = agentvcrError(503, "replay.miss", reason);
  return outcome;
}

MissReport CoachingReplayer::reportMiss(Route route, const Json& content, std::uint64_t key,
                                        const std::string& request_id) const {
  MissReport report;
  report.route = magma::routeName(route);
  report.request_id = request_id;
  report.replay_key = key;
  report.input = content;
  std::optional<std::string> closest;
  for (const Recorded& recorded : recorded_) {
    if (recorded.route != route) {
      continue;
    }
    auto differences = differingPaths(content, recorded.content, options_.max_difference_paths);
    const bool closer = !closest || differences.truncated < report.differences.truncated ||
                        (differences.truncated == report.differences.truncated &&
                         differences.paths.size() < report.differences.paths.size());
    if (closer) {
      closest = "exchange " + std::to_string(recorded.exchange_id);
      report.differences = std::move(differences);
    }
  }
  report.reason =
      missReason(std::string(magma::routeName(route)) + " request", closest, report.differences);
  return report;
}

}  // namespace agentvcr::replay::detail
