#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "agentvcr/store/change_feed.hpp"

/// Following an archive while it is written, for the readers that send what it commits elsewhere:
/// the fleet shipper and the live OTLP exporter. Each round asks the change feed only for the
/// sessions written since the last one, so an idle follower costs nothing however large the
/// archive, and a busy one what changed.
namespace agentvcr::store {

/// What a visit of one session did.
enum class FeedVisit {
  Done,     ///< everything the session committed is handled
  Waiting,  ///< stopped at what cannot be handled yet (an exchange not indexed): visit again once
            ///< the session is written again
  Stopped,  ///< stop() came first
};

class FeedFollower {
 public:
  /// Opens the archive's change feed (throws as ChangeFeed does).
  explicit FeedFollower(const std::string& db_path,
                        std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});

  ChangeFeed& feed() { return feed_; }

  /// Visits, in id order, every session written since the last round (every session in the first
  /// round, and in the first after restart()), and every session seen being recorded whose
  /// recorder has stopped since (it may have died, which writes nothing). True when every session
  /// is Done: none of this round's visits, nor any earlier one whose session was not written
  /// since, left it waiting. Reads nothing when nothing was committed since the last round and no
  /// recorder stopped.
  bool round(const std::function<FeedVisit(const FeedSession&)>& visit);

  /// The sessions left Waiting, and not written since.
  std::size_t waiting() const { return waiting_.size(); }

  /// The next round visits every session: for a consumer that lost track of where it was (its
  /// destination came back after an outage).
  void restart() { visit_all_ = true; }

  /// Waits `duration`, or less when stop() comes. False when stopping.
  bool pause(std::chrono::milliseconds duration);

  /// From any thread: stop at once (a visit in progress sees stopping()).
  void stop();
  /// From any thread: a following consumer handles what is committed now, then ends.
  void finish();

  bool stopping() const { return stopping_; }

  bool finishing() const { return finishing_; }

 private:
  ChangeFeed feed_;
  std::int64_t tick_ = 0;           // the highest tick seen
  std::int64_t data_version_ = -1;  // the feed's data_version at the last round
  bool visit_all_ = true;
  std::map<std::int64_t, FeedSession> waiting_;  // by id
  std::set<std::int64_t> recording_;             // ids last seen neither ended nor interrupted

  std::mutex mutex_;  // guards the wake-up
  std::condition_variable wake_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> finishing_{false};
};

}  // namespace agentvcr::store
