#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace agentvcr::sim::magma {

/// Request ids shaped like BENCH's `uuid4().hex` (32 lowercase hex digits, version nibble 4,
/// variant 8..b) but drawn from a seeded std::mt19937_64, whose sequence the C++ standard
/// fixes: the same seed gives the same ids on every platform. Not thread-safe.
class RequestIdGenerator {
 public:
  explicit RequestIdGenerator(std::uint64_t seed) : engine_(seed) {}

  std::string next();

 private:
  std::mt19937_64 engine_;
};

}  // namespace agentvcr::sim::magma
