#include "agentvcr/replay/replayer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "a2a_replayer.hpp"
#include "agentvcr/protocol/fastapi_errors.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/replay/recorded_outputs.hpp"
#include "coaching_replayer.hpp"
#include "identity_replies.hpp"
#include "replies.hpp"
#include "responses_replayer.hpp"

namespace agentvcr::replay {
namespace {

namespace magma = protocol::magma;
using magma::Route;

/// Replay's own status route. Real agents answer 404 there; callers that probe for it know
/// they talk to a replay.
constexpr std::string_view kStatusPath = "/_agentvcr/replay";
/// Puts every cursor back at the first recorded answer (docs/replay.md, "Repeating a run").
constexpr std::string_view kRewindPath = "/_agentvcr/replay/rewind";

/// Scopes live at once, each holding a cursor per input it asked: bounded, as callers name them.
constexpr std::size_t kMaxScopes = 256;

/// Every value of `name` in the query of `target`, as written, in order.
std::vector<std::string_view> queryValues(std::string_view target, std::string_view name) {
  std::vector<std::string_view> values;
  const std::size_t question = target.find('?');
  std::string_view query = question == std::string_view::npos ? "" : target.substr(question + 1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.starts_with(name) && pair.size() > name.size() && pair[name.size()] == '=') {
      values.push_back(pair.substr(name.size() + 1));
    }
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
  }
  return values;
}

bool isCoachingPath(const std::string& path) {
  return path == "/v1/coaching" || path.starts_with("/v1/coaching/sessions/");
}

/// The sessions the selection covers, oldest first; throws on ids the archive does not hold.
std::vector<store::SessionRow> selectedSessions(const store::ArchiveReader& reader,
                                                const store::ReplaySelection& selection) {
  std::vector<store::SessionRow> all = reader.sessions();
  if (selection.all()) {
    return all;
  }
  std::vector<std::int64_t> wanted = selection.sessions;
  for (std::int64_t id : selection.sessions) {
    if (!reader.session(id)) {
      throw std::runtime_error("[replay.selection] the archive holds no session " +
                               std::to_string(id));
    }
  }
  for (std::int64_t id : selection.conversations) {
    auto conversation = reader.conversation(id);
    if (!conversation) {
      throw std::runtime_error("[replay.selection] the archive holds no conversation " +
                               std::to_string(id));
    }
    wanted.push_back(conversation->session_id);
  }
  std::erase_if(all, [&](const store::SessionRow& session) {
    return std::find(wanted.begin(), wanted.end(), session.id) == wanted.end();
  });
  return all;
}

nlohmann::ordered_json memoJson(const MemoStats& stats) {
  return {{"hits", stats.hits},           {"misses", stats.misses},
          {"entries", stats.entries},     {"bytes", stats.bytes},
          {"evictions", stats.evictions}, {"budget_bytes", stats.budget_bytes}};
}

}  // namespace

std::optional<MissPolicy> parseMissPolicy(std::string_view name) {
  if (name == "error") {
    return MissPolicy::Error;
  }
  if (name == "http") {
    return MissPolicy::Http;
  }
  if (name == "forward") {
    return MissPolicy::Forward;
  }
  return std::nullopt;
}

const char* missPolicyName(MissPolicy policy) {
  switch (policy) {
    case MissPolicy::Error:
      return "error";
    case MissPolicy::Http:
      return "http";
    case MissPolicy::Forward:
      return "forward";
  }
  return "error";
}

std::optional<double> parsePace(std::string_view text) {
  if (text == "recorded") {
    return kRecordedPace;
  }
  if (text == "fast") {
    return kFastPace;
  }
  double factor = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, factor);
  if (text.empty() || error != std::errc() || stop != end || !std::isfinite(factor) || factor < 0) {
    return std::nullopt;
  }
  return factor;
}

std::chrono::nanoseconds recordedThinkTime(std::int64_t started_ns,
                                           std::optional<std::int64_t> upstream_sent_ns,
                                           std::optional<std::int64_t> upstream_first_byte_ns) {
  if (!upstream_first_byte_ns) {
    return std::chrono::nanoseconds(0);
  }
  const std::int64_t asked_ns = upstream_sent_ns.value_or(started_ns);
  return std::chrono::nanoseconds(std::max<std::int64_t>(0, *upstream_first_byte_ns - asked_ns));
}

std::chrono::nanoseconds paced(std::chrono::nanoseconds recorded, double pace) {
  // Bounded so that a huge factor cannot overflow the conversion back to integer nanoseconds.
  constexpr double kLongestHoldNs = 1e18;  // about 31 years
  const double scaled = std::min(static_cast<double>(recorded.count()) * pace, kLongestHoldNs);
  return std::chrono::nanoseconds(static_cast<std::int64_t>(scaled));
}

class Replayer::Impl {
 public:
  Impl(const std::string& archive_path, ReplayOptions options)
      : options_(std::move(options)),
        readers_(archive_path),
        sessions_(readers_.with([&](const store::ArchiveReader& reader) {
          return selectedSessions(reader, options_.selection);
        })),
        responses_(readers_, options_),
        coaching_(readers_, options_),
        a2a_(readers_, options_),
        identity_(readers_.with([&](const store::ArchiveReader& reader) {
          return detail::IdentityReplies(reader, options_.selection, sessions_,
                                         coaching_.recorded());
        })) {}

  ReplayOutcome handle(const protocol::HttpRequest& request, const Forwarder* forward) {
    const protocol::HeaderField* named =
        protocol::findHeader(request.headers, protocol::kScopeHeader);
    if (named == nullptr) {
      return count(request, route(request, forward, {}));
    }
    if (protocol::headerCount(request.headers, protocol::kScopeHeader) > 1) {
      // Which one is meant cannot be known, and the other would reach a live agent.
      ReplayOutcome outcome;
      outcome.reply =
          detail::jsonReply(400, protocol::detailBody(std::string(protocol::kOneScopeRule)));
      return outcome;
    }
    if (const std::optional<std::string> refused = admitScope(named->value)) {
      ReplayOutcome outcome;
      outcome.reply = detail::jsonReply(400, protocol::detailBody(*refused));
      return outcome;
    }
    // The scope is replay's business: a request forwarded on a miss goes without it.
    protocol::HttpRequest unscoped = request;
    unscoped.headers.erase(unscoped.headers.begin() + (named - request.headers.data()));
    return count(request, route(unscoped, forward, named->value));
  }

  /// Counts `outcome` of `request` in the stats, and gives it back.
  ReplayOutcome count(const protocol::HttpRequest& request, ReplayOutcome outcome) {
    const std::string_view path = protocol::pathOfTarget(request.target);
    if (path == kStatusPath || path == kRewindPath) {
      return outcome;  // neither is a request to the agent: the counters stay
    }
    std::lock_guard<std::mutex> lock(stats_mutex_);
    ++stats_.requests;
    stats_.hits += outcome.hits;
    stats_.misses += outcome.misses.size();
    stats_.forwarded += outcome.forwarded ? 1 : 0;
    stats_.forked += outcome.forked;
    stats_.invalid += outcome.reply.status == 422 ? 1 : 0;
    return outcome;
  }

  ReplayStats stats() const {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    return stats_;
  }

  const ReplayOptions& options() const { return options_; }

  std::size_t recordedSteps() const { return responses_.stepCount(); }

  std::size_t distinctKeys() const { return responses_.keyCount(); }

  RecordedA2a recordedA2a() const {
    return {a2a_.exchangeCount(), a2a_.callCount(), a2a_.contextCount()};
  }

 private:
  ReplayOutcome route(const protocol::HttpRequest& request, const Forwarder* forward,
                      std::string_view scope) {
    ReplayOutcome outcome;
    const Route route = magma::routeOf(request.method, request.target);
    // Coaching routes exist only on agents that offer coaching: without a recording of them
    // (and no live agent to ask), replay is an agent without coaching.
    const bool coaching_served =
        coaching_.recorded() || (options_.on_miss == MissPolicy::Forward && forward != nullptr);
    switch (route) {
      case Route::Health:
        outcome.reply = identity_.health();
        return outcome;
      case Route::Info:
        if (options_.rewind_on_info) {
          // A scoped caller's probe rewinds its own scope only.
          rewind(scope.empty() ? std::nullopt : std::optional(scope));
        }
        outcome.reply = identity_.info();
        return outcome;
      case Route::Responses:
        return responses_.respond(request, forward, scope);
      case Route::CoachingPut:
      case Route::CoachingDelete:
      case Route::Coaching:
        if (coaching_served) {
          return coaching_.respond(route, request, forward, scope);
        }
        break;
      case Route::None:
        if (a2a_.serves(request)) {
          return a2a_.respond(request, forward, scope);
        }
        break;
    }
    const std::string path(protocol::pathOfTarget(request.target));
    if (path == kStatusPath && request.method == "GET") {
      outcome.reply = detail::jsonReply(200, statusBody());
    } else if (path == kRewindPath && request.method == "POST") {
      const std::vector<std::string_view> named = queryValues(request.target, "scope");
      if (named.size() > 1) {
        outcome.reply = detail::jsonReply(400, protocol::detailBody("a rewind names one scope"));
      } else if (!named.empty() && !protocol::isScopeName(named.front())) {
        outcome.reply =
            detail::jsonReply(400, protocol::detailBody(std::string(protocol::kScopeNameRule)));
      } else {
        rewind(named.empty() ? std::nullopt : std::optional(named.front()));
        outcome.reply = detail::jsonReply(200, statusBody());
      }
    } else if (path == kRewindPath || path == "/health" || path == "/v1/info" ||
               path == "/v1/responses" || (coaching_served && isCoachingPath(path))) {
      outcome.reply = detail::jsonReply(405, protocol::detailBody("Method Not Allowed"));
    } else {
      outcome.reply = detail::jsonReply(404, protocol::detailBody("Not Found"));
    }
    return outcome;
  }

  /// Every cursor of `scope` (every cursor, when none is given) back at the first recorded
  /// answer, MAGMA, coaching and A2A alike. A rewound scope is no longer live.
  void rewind(std::optional<std::string_view> scope = std::nullopt) {
    responses_.rewind(scope);
    coaching_.rewind(scope);
    a2a_.rewind(scope);
    {
      std::lock_guard<std::mutex> lock(scopes_mutex_);
      if (scope) {
        scopes_.erase(std::string(*scope));
      } else {
        scopes_.clear();
      }
    }
    std::lock_guard<std::mutex> lock(stats_mutex_);
    ++stats_.rewinds;
  }

  /// Takes `name` as a live scope; why not when it cannot be one.
  std::optional<std::string> admitScope(const std::string& name) {
    if (!protocol::isScopeName(name)) {
      return std::string(protocol::kScopeHeader) + ": " + std::string(protocol::kScopeNameRule);
    }
    std::lock_guard<std::mutex> lock(scopes_mutex_);
    if (scopes_.size() >= kMaxScopes && !scopes_.contains(name)) {
      return "replay holds " + std::to_string(kMaxScopes) +
             " live scopes already: POST /_agentvcr/replay/rewind?scope=NAME ends one";
    }
    scopes_.insert(name);
    return std::nullopt;
  }

  std::string statusBody() const {
    const ReplayStats now = stats();
    nlohmann::ordered_json body;
    body["recorded_steps"] = responses_.stepCount();
    body["keys"] = responses_.keyCount();
    body["recorded_a2a_exchanges"] = a2a_.exchangeCount();
    body["on_miss"] = missPolicyName(options_.on_miss);
    body["requests"] = now.requests;
    body["hits"] = now.hits;
    body["misses"] = now.misses;
    body["forwarded"] = now.forwarded;
    body["forked"] = now.forked;
    body["invalid"] = now.invalid;
    body["rewinds"] = now.rewinds;
    body["archive_reads"] = readers_.reads();
    {
      std::lock_guard<std::mutex> lock(scopes_mutex_);
      body["scopes"] = scopes_;
    }
    body["rewind_on_info"] = options_.rewind_on_info;
    body["pace"] = {{"answers", options_.answer_pace}, {"streams", options_.stream_pace}};
    body["memo"] = nullptr;
    if (auto responses = responses_.memoStats()) {
      body["memo"] = {{"responses", memoJson(*responses)}, {"a2a", memoJson(*a2a_.memoStats())}};
    }
    return protocol::pythonJsonDumps(body);
  }

  ReplayOptions options_;
  ReaderPool readers_;
  std::vector<store::SessionRow> sessions_;
  detail::ResponsesReplayer responses_;
  detail::CoachingReplayer coaching_;
  detail::A2aReplayer a2a_;
  detail::IdentityReplies identity_;
  mutable std::mutex stats_mutex_;
  ReplayStats stats_;
  mutable std::mutex scopes_mutex_;
  std::set<std::string> scopes_;  ///< live scopes, by name
};

Replayer::Replayer(const std::string& archive_path, ReplayOptions options)
    : impl_(std::make_unique<Impl>(archive_path, std::move(options))) {}

Replayer::~Replayer() = default;

ReplayOutcome Replayer::handle(const protocol::HttpRequest& request, const Forwarder* forward) {
  return impl_->handle(request, forward);
}

ReplayStats Replayer::stats() const {
  return impl_->stats();
}

std::size_t Replayer::recordedSteps() const {
  return impl_->recordedSteps();
}

std::size_t Replayer::distinctKeys() const {
  return impl_->distinctKeys();
}

RecordedA2a Replayer::recordedA2a() const {
  return impl_->recordedA2a();
}

const ReplayOptions& Replayer::options() const {
  return impl_->options();
}

}  // namespace agentvcr::replay
