#include "agentvcr/otel/live_exporter.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "agentvcr/otel/span_tree.hpp"
#include "agentvcr/store/feed_follower.hpp"
#include "export_positions.hpp"

namespace agentvcr::otel {
namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(Clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

/// What the exporter knows of a session beyond what it sent (ExportPositions).
struct SessionState {
  bool ended = false;
  Attributes resource;
};

/// A conversation whose root span is not sent yet, and when it was last seen to grow: its idle
/// time is the steady clock's, since the times recorded in it are the wall clock's, which may
/// have stepped since.
struct OpenConversation {
  std::string session_uuid;
  ConversationRoot root;
  Clock::time_point grew = Clock::now();
};

}  // namespace

struct LiveExporter::Impl {
  LiveOptions options;
  store::FeedFollower follower;
  OtlpSender sender;
  detail::ExportPositions sent;

  mutable std::mutex mutex;  // guards stats
  LiveStats stats;

  std::map<std::string, SessionState> sessions;  // by uuid
  std::map<std::pair<std::string, std::int64_t>, OpenConversation> open;
  std::optional<Clock::time_point> outage_since;

  explicit Impl(LiveOptions o)
      : options(std::move(o)),
        follower(options.db_path),
        sender(options.endpoint, retryForever()),
        sent(options.positions_path, options.endpoint.toString()) {}

  RetryPolicy retryForever() const {
    RetryPolicy policy = options.retry;
    policy.attempts = 0;
    return policy;
  }

  void log(const std::string& line) const {
    if (options.log) {
      options.log(line);
    }
  }

  /// Sends spans until the collector takes them (a refused request is dropped: sending it
  /// again would be refused again). False when stopped first.
  bool deliver(const Attributes& resource, const std::vector<Span>& spans) {
    const RetryWait wait = [this](std::chrono::milliseconds d) {
      if (!outage_since) {
        outage_since = Clock::now();
        {
          std::lock_guard lock(mutex);
          ++stats.outages;
        }
        log("[otel.export] " + sender.lastError() +
            "; the archive keeps the spans, retrying until the collector is back");
      }
      return follower.pause(d);
    };
    for (const Payload& payload : encodePayloads(resource, spans, options.limits)) {
      const Delivery delivery = sender.send(payload.body, wait);
      if (delivery == Delivery::Stopped) {
        return false;
      }
      if (outage_since) {
        log("[otel.export] " + sender.endpoint().toString() + " is back after " +
            seconds(Clock::now() - *outage_since));
        outage_since.reset();
      }
      std::lock_guard lock(mutex);
      if (delivery == Delivery::Sent) {
        stats.spans += payload.spans;
        ++stats.requests;
      } else {
        ++stats.refused;
        log("[otel.export] " + sender.lastError() + "; " + std::to_string(payload.spans) +
            " spans dropped");
      }
    }
    return true;
  }

  /// Sends a session's new spans as far as it is indexed.
  store::FeedVisit follow(const store::FeedSession& session) {
    SessionState& state = sessions[session.uuid];
    SpanOptions span_options;
    span_options.content = options.content;
    store::FeedLimits limits;
    limits.exchanges = options.batch_exchanges;
    while (!follower.stopping()) {
      const store::FeedPosition position = sent.sent(session.uuid).position;
      const store::FeedBatch batch = follower.feed().next(session, position, limits);
      BatchSpans spans = buildSpans(batch, span_options);
      if (!deliver(spans.resource, spans.spans)) {
        return store::FeedVisit::Stopped;
      }
      // Only now: roots of spans not sent would be read again with them. A root already sent
      // (before a restart) is not sent twice.
      for (ConversationRoot& root : spans.roots) {
        if (!sent.sent(session.uuid).roots.contains(root.number)) {
          open[{session.uuid, root.number}] = {session.uuid, std::move(root), Clock::now()};
        }
      }
      if (batch.end != position) {
        sent.recordPosition(session.uuid, batch.end);
      }
      state.ended = spans.session_ended;
      state.resource = std::move(spans.resource);
      {
        std::lock_guard lock(mutex);
        stats.exchanges += batch.exchanges;
      }
      if (batch.waiting_for_index) {
        return store::FeedVisit::Waiting;
      }
      if (batch.caught_up) {
        return store::FeedVisit::Done;
      }
    }
    return store::FeedVisit::Stopped;
  }

  /// Sends the roots of conversations idle for long enough, of ended sessions, or all of them.
  void closeConversations(bool all) {
    const Clock::time_point now = Clock::now();
    std::map<std::string, std::vector<std::pair<std::int64_t, Span>>> due;
    for (const auto& [key, conversation] : open) {
      const SessionState& state = sessions[conversation.session_uuid];
      if (all || state.ended || now - conversation.grew >= options.idle) {
        due[conversation.session_uuid].emplace_back(key.second, conversation.root.span);
      }
    }
    for (auto& [uuid, roots] : due) {
      std::vector<Span> spans;
      for (auto& [number, span] : roots) {
        spans.push_back(std::move(span));
      }
      if (!deliver(sessions[uuid].resource, spans)) {
        return;
      }
      for (const auto& [number, span] : roots) {
        open.erase({uuid, number});
        sent.recordRoot(uuid, number);
      }
      std::lock_guard lock(mutex);
      stats.roots += spans.size();
    }
  }

  std::uint64_t left() {
    std::uint64_t n = 0;
    for (const store::FeedSession& s : follower.feed().sessions()) {
      const std::int64_t done = sent.sent(s.uuid).position.exchanges;
      n += static_cast<std::uint64_t>(std::max<std::int64_t>(0, s.exchanges - done));
    }
    return n;
  }

  void run() {
    auto wait = options.retry.first;
    while (!follower.stopping()) {
      try {
        // Read before looking: what the recorder commits after this is for the next round.
        const bool finish_now = follower.finishing();
        const bool caught_up =
            follower.round([&](const store::FeedSession& s) { return follow(s); });
        if (!follower.stopping()) {
          closeConversations(finish_now && caught_up);
        }
        if (finish_now && caught_up && open.empty()) {
          break;
        }
        wait = options.retry.first;
        if (!follower.pause(options.poll)) {
          break;
        }
      } catch (const std::exception& e) {
        // The archive, not the collector: busy beyond the timeout, or gone.
        log(std::string("[otel.export] cannot read ") + options.db_path + ": " + e.what());
        if (!follower.pause(wait)) {
          break;
        }
        wait = std::min(wait * 2, options.retry.max);
      }
    }
    std::uint64_t remaining = 0;
    try {
      remaining = left();
    } catch (const std::exception&) {
      // the archive itself is what failed: nothing more to count
    }
    std::lock_guard lock(mutex);
    stats.left = remaining;
  }
};

LiveExporter::LiveExporter(LiveOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

LiveExporter::~LiveExporter() = default;

void LiveExporter::run() {
  impl_->run();
}

void LiveExporter::stop() {
  impl_->follower.stop();
}

void LiveExporter::finish() {
  impl_->follower.finish();
}

LiveStats LiveExporter::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace agentvcr::otel
