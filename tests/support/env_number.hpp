#pragma once

// Numbers tests take from the environment: seeds and sizes of seeded campaigns.

#include <cstdint>
#include <cstdlib>
#include <string>

namespace agentvcr::testing {

/// The environment variable `name` as a number, or `fallback` when it is unset or empty.
inline std::uint64_t envNumber(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::stoull(value) : fallback;
}

}  // namespace agentvcr::testing
