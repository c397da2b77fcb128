#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "agentvcr/sim/a2a/clock.hpp"

namespace agentvcr::sim::a2a {

/// The rate tier of a skill. An expensive call (catholic_qa) counts in the default pool too:
/// the per-minute cap covers every request, and expensive ones have a stricter cap of their own.
enum class Tier { Default, Expensive };

/// How a pool forgets old calls. Magisterium does not document its algorithm.
enum class WindowKind {
  Fixed,    ///< a window opens with the first call after the previous one closed
  Sliding,  ///< a call counts for exactly one window length after it was admitted
};

struct PoolLimit {
  std::uint32_t calls = 15;
  std::chrono::seconds window{60};
};

/// Magisterium's published caps for paid plans: 15 requests a minute, 2 of them catholic_qa.
struct RateLimits {
  PoolLimit default_pool{15, std::chrono::seconds(60)};
  PoolLimit expensive_pool{2, std::chrono::seconds(60)};
  WindowKind window = WindowKind::Fixed;
};

/// Per-user call counters on the mock's clock. Not thread-safe.
class RateLimiter {
 public:
  /// Throws std::invalid_argument when a pool allows no call or has an empty window: a plan
  /// without A2A access is the plan check's business, not the quota's.
  explicit RateLimiter(RateLimits limits);

  /// Counts one call by `user` in `tier` at `now` when every pool it draws on has room, and
  /// returns nullopt. Otherwise counts nothing and returns the whole seconds (at least 1) until
  /// the fullest pool frees a slot: the `retryAfter` a refused caller is told.
  std::optional<std::int64_t> admit(const std::string& user, Tier tier, TimePoint now);

 private:
  /// The admitted calls a pool still remembers, oldest first (a fixed window keeps the calls
  /// of the open window only, so its front is the window's start).
  using Pool = std::deque<TimePoint>;

  /// How long until `pool` has room under `limit`; zero when it has room now.
  std::chrono::nanoseconds waitFor(Pool& pool, const PoolLimit& limit, TimePoint now) const;

  RateLimits limits_;
  std::map<std::string, Pool> default_pools_;
  std::map<std::string, Pool> expensive_pools_;
};

}  // namespace agentvcr::sim::a2a
