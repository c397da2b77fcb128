#include "agentvcr/metrics/thread_shards.hpp"

#include <utility>

namespace agentvcr::metrics::detail {
namespace {

/// (owner id, shard) for every owner this thread wrote to, the latest first: a proxy worker
/// writes to one or two owners, so the search ends at the first entry.
thread_local std::vector<std::pair<std::uint64_t, void*>> tls_shards;

}  // namespace

std::uint64_t nextShardsOwnerId() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void* cachedShard(std::uint64_t owner_id) {
  for (const auto& [id, shard] : tls_shards) {
    if (id == owner_id) {
      return shard;
    }
  }
  return nullptr;
}

void cacheShard(std::uint64_t owner_id, void* shard) {
  tls_shards.insert(tls_shards.begin(), {owner_id, shard});
}

}  // namespace agentvcr::metrics::detail
