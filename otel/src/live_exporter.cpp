#include "agentvcr/otel/live_exporter.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "agentvcr/otel/span_tree.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::otel {
namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(Clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

/// How far a session was followed.
struct SessionState {
  store::FeedPosition position;
  std::string fingerprint;  ///< the feed's, when last caught up
  bool ended = false;
  Attributes resource;
};

/// A conversation whose root span is not sent yet.
struct OpenConversation {
  std::string session_uuid;
  ConversationRoot root;
};

}  // namespace

struct LiveExporter::Impl {
  LiveOptions options;
  store::ChangeFeed feed;
  OtlpSender sender;
  std::atomic<bool> stopping{false};
  std::atomic<bool> finishing{false};

  mutable std::mutex mutex;  // guards stats and the wake-up
  std::condition_variable wake;
  LiveStats stats;

  std::map<std::string, SessionState> sessions;  // by uuid
  std::map<std::pair<std::string, std::int64_t>, OpenConversation> open;
  std::optional<Clock::time_point> outage_since;

  explicit Impl(LiveOptions o)
      : options(std::move(o)), feed(options.db_path), sender(options.endpoint, retryForever()) {}

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

  /// Waits `d`, or less when stopped. False when stopping.
  bool pause(std::chrono::milliseconds d) {
    std::unique_lock lock(mutex);
    wake.wait_for(lock, d, [this] { return stopping.load(); });
    return !stopping;
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
      return pause(d);
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

  /// Sends a session's new spans as far as it is indexed. True when nothing is left.
  bool follow(const store::FeedSession& session) {
    SessionState& state = sessions[session.uuid];
    if (state.fingerprint == session.fingerprint) {
      return true;
    }
    SpanOptions span_options;
    span_options.content = options.content;
    while (!stopping) {
      const store::FeedBatch batch = feed.next(session, state.position, options.batch_exchanges);
      BatchSpans spans = buildSpans(batch, span_options);
      if (!deliver(spans.resource, spans.spans)) {
        return false;
      }
      // Only now: roots of spans not sent would be read again with them.
      for (ConversationRoot& root : spans.roots) {
        open[{session.uuid, root.number}] = {session.uuid, std::move(root)};
      }
      state.position = batch.end;
      state.ended = spans.session_ended;
      state.resource = std::move(spans.resource);
      {
        std::lock_guard lock(mutex);
        stats.exchanges += batch.exchanges;
      }
      if (batch.waiting_for_index) {
        return false;
      }
      if (batch.caught_up) {
        state.fingerprint = session.fingerprint;
        return true;
      }
    }
    return false;
  }

  /// Sends the roots of conversations idle for long enough, of ended sessions, or all of them.
  void closeConversations(bool all) {
    const std::int64_t now = protocol::nowNs();
    const std::int64_t idle_ns = std::chrono::nanoseconds(options.idle).count();
    std::map<std::string, std::vector<std::pair<std::int64_t, Span>>> due;
    for (const auto& [key, conversation] : open) {
      const SessionState& state = sessions[conversation.session_uuid];
      if (all || state.ended || now - conversation.root.last_ns >= idle_ns) {
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
      }
      std::lock_guard lock(mutex);
      stats.roots += spans.size();
    }
  }

  std::uint64_t left() {
    std::uint64_t n = 0;
    for (const store::FeedSession& s : feed.sessions()) {
      const auto at = sessions.find(s.uuid);
      const std::int64_t sent = at == sessions.end() ? 0 : at->second.position.exchanges;
      n += static_cast<std::uint64_t>(std::max<std::int64_t>(0, s.exchanges - sent));
    }
    return n;
  }

  void run() {
    auto wait = options.retry.first;
    while (!stopping) {
      try {
        // Read before looking: what the recorder commits after this is for the next round.
        const bool finish_now = finishing;
        bool caught_up = true;
        for (const store::FeedSession& s : feed.sessions()) {
          caught_up = follow(s) && caught_up;
          if (stopping) {
            break;
          }
        }
        if (!stopping) {
          closeConversations(finish_now && caught_up);
        }
        if (finish_now && caught_up && open.empty()) {
          break;
        }
        wait = options.retry.first;
        if (!pause(options.poll)) {
          break;
        }
      } catch (const std::exception& e) {
        // The archive, not the collector: busy beyond the timeout, or gone.
        log(std::string("[otel.export] cannot read ") + options.db_path + ": " + e.what());
        if (!pause(wait)) {
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
  std::lock_guard lock(impl_->mutex);
  impl_->stopping = true;
  impl_->wake.notify_all();
}

void LiveExporter::finish() {
  impl_->finishing = true;
  std::lock_guard lock(impl_->mutex);
  impl_->wake.notify_all();
}

LiveStats LiveExporter::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace agentvcr::otel
