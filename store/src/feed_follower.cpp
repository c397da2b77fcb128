#include "agentvcr/store/feed_follower.hpp"

#include <algorithm>
#include <optional>

namespace agentvcr::store {

FeedFollower::FeedFollower(const std::string& db_path, std::chrono::milliseconds busy_timeout)
    : feed_(db_path, busy_timeout) {}

bool FeedFollower::round(const std::function<FeedVisit(const FeedSession&)>& visit) {
  const std::int64_t version = feed_.dataVersion();
  std::vector<FeedSession> changed;
  if (visit_all_) {
    changed = feed_.sessionsChangedSince(0);
    waiting_.clear();
    recording_.clear();
    visit_all_ = false;
  } else if (version != data_version_) {
    changed = feed_.sessionsChangedSince(tick_);
  }
  data_version_ = version;
  for (const std::int64_t id : recording_) {
    const bool read = std::any_of(changed.begin(), changed.end(),
                                  [id](const FeedSession& s) { return s.id == id; });
    if (!read && feed_.recorderStopped(id)) {
      if (std::optional<FeedSession> session = feed_.session(id)) {
        changed.push_back(std::move(*session));
      }
    }
  }
  std::sort(changed.begin(), changed.end(),
            [](const FeedSession& a, const FeedSession& b) { return a.id < b.id; });
  for (const FeedSession& session : changed) {
    // Ticks only grow: whatever is committed after this read gets a higher one.
    tick_ = std::max(tick_, session.tick);
    waiting_.erase(session.id);
    if (session.ended || session.interrupted) {
      recording_.erase(session.id);
    } else {
      recording_.insert(session.id);
    }
  }
  try {
    for (const FeedSession& session : changed) {
      if (stopping_ || visit(session) != FeedVisit::Done) {
        waiting_.emplace(session.id, session);
      }
    }
  } catch (...) {
    // The sessions after the one that failed were read but not visited: the next round looks at
    // every session again.
    visit_all_ = true;
    throw;
  }
  return waiting_.empty();
}

bool FeedFollower::pause(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, duration, [this] { return stopping_.load(); });
  return !stopping_;
}

void FeedFollower::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  wake_.notify_all();
}

void FeedFollower::finish() {
  std::lock_guard lock(mutex_);
  finishing_ = true;
  wake_.notify_all();
}

}  // namespace agentvcr::store
