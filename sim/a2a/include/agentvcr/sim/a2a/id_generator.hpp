#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace agentvcr::sim::a2a {

/// Server-minted ids (tasks, contexts, artifacts, agent messages) shaped like random UUIDs,
/// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", but drawn from a seeded std::mt19937_64, whose
/// sequence the C++ standard fixes: the same seed and the same requests give the same ids on
/// every platform. Not thread-safe.
class IdGenerator {
 public:
  explicit IdGenerator(std::uint64_t seed) : engine_(seed) {}

  std::string next();

 private:
  std::mt19937_64 engine_;
};

}  // namespace agentvcr::sim::a2a
