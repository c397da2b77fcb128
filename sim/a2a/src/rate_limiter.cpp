#include "agentvcr/sim/a2a/rate_limiter.hpp"

#include <algorithm>
#include <stdexcept>

namespace agentvcr::sim::a2a {

using std::chrono::nanoseconds;

RateLimiter::RateLimiter(RateLimits limits) : limits_(limits) {
  for (const PoolLimit& pool : {limits_.default_pool, limits_.expensive_pool}) {
    if (pool.calls == 0 || pool.window <= std::chrono::seconds::zero()) {
      throw std::invalid_argument("a rate pool needs at least one call per window of 1 s or more");
    }
  }
}

std::chrono::nanoseconds RateLimiter::waitFor(Pool& pool, const PoolLimit& limit,
                                              TimePoint now) const {
  if (limits_.window == WindowKind::Fixed) {
    if (!pool.empty() && now >= pool.front() + limit.window) {
      pool.clear();  // the window closed: the next call opens a new one
    }
    if (pool.size() < limit.calls) {
      return nanoseconds::zero();
    }
    return pool.front() + limit.window - now;
  }
  while (!pool.empty() && now >= pool.front() + limit.window) {
    pool.pop_front();
  }
  if (pool.size() < limit.calls) {
    return nanoseconds::zero();
  }
  // The slot frees when the call that filled the last place in the window ages out.
  return pool[pool.size() - limit.calls] + limit.window - now;
}

std::optional<std::int64_t> RateLimiter::admit(const std::string& user, Tier tier, TimePoint now) {
  Pool& general = default_pools_[user];
  nanoseconds wait = waitFor(general, limits_.default_pool, now);
  Pool* expensive = nullptr;
  if (tier == Tier::Expensive) {
    expensive = &expensive_pools_[user];
    wait = std::max(wait, waitFor(*expensive, limits_.expensive_pool, now));
  }
  if (wait > nanoseconds::zero()) {
    const auto whole_seconds = (wait.count() + 999'999'999) / 1'000'000'000;
    return std::max<std::int64_t>(1, whole_seconds);
  }
  general.push_back(now);
  if (expensive != nullptr) {
    expensive->push_back(now);
  }
  return std::nullopt;
}

}  // namespace agentvcr::sim::a2a
