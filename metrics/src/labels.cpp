#include "agentvcr/metrics/labels.hpp"

#include <array>

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::metrics {
namespace {

constexpr int kLowestStatus = 100;
constexpr int kHighestStatus = 599;
constexpr std::size_t kOtherStatus = kStatusSlots - 1;

/// The codes with a slot of their own, after `none` (slot 0); `other` is the last slot.
constexpr std::array<std::int64_t, kA2aCodeSlots - 2> kA2aCodes = {
    -32700, -32600, -32601, -32602, -32603, -32001, -32002,
    -32003, -32004, -32005, -32006, -32007, -32008, -32009};

}  // namespace

std::size_t routeSlot(protocol::magma::Route route) {
  return static_cast<std::size_t>(route);
}

std::string routeLabel(std::size_t slot) {
  return protocol::magma::routeName(static_cast<protocol::magma::Route>(slot));
}

std::size_t statusSlot(int status) {
  if (status == 0) {
    return 0;
  }
  if (status < kLowestStatus || status > kHighestStatus) {
    return kOtherStatus;
  }
  return static_cast<std::size_t>(status - kLowestStatus + 1);
}

std::string statusLabel(std::size_t slot) {
  if (slot == 0) {
    return "none";
  }
  if (slot == kOtherStatus) {
    return "other";
  }
  return std::to_string(static_cast<int>(slot) - 1 + kLowestStatus);
}

std::size_t faultSlot(protocol::FaultKind kind) {
  return static_cast<std::size_t>(kind);
}

std::string faultLabel(std::size_t slot) {
  return protocol::faultName(static_cast<protocol::FaultKind>(slot));
}

// Slots: 0 `none`, then each known name, then `other`.
std::size_t a2aMethodSlots() {
  return protocol::a2a::knownMethodNames().size() + 2;
}

std::size_t a2aMethodSlot(const std::optional<std::string>& method) {
  if (!method) {
    return 0;
  }
  const auto& names = protocol::a2a::knownMethodNames();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == *method) {
      return i + 1;
    }
  }
  return names.size() + 1;
}

std::string a2aMethodLabel(std::size_t slot) {
  const auto& names = protocol::a2a::knownMethodNames();
  if (slot == 0) {
    return "none";
  }
  if (slot > names.size()) {
    return "other";
  }
  return std::string(names[slot - 1]);
}

std::size_t a2aCodeSlot(std::optional<std::int64_t> code) {
  if (!code) {
    return 0;
  }
  for (std::size_t i = 0; i < kA2aCodes.size(); ++i) {
    if (kA2aCodes[i] == *code) {
      return i + 1;
    }
  }
  return kA2aCodeSlots - 1;
}

std::string a2aCodeLabel(std::size_t slot) {
  if (slot == 0) {
    return "none";
  }
  if (slot == kA2aCodeSlots - 1) {
    return "other";
  }
  return std::to_string(kA2aCodes[slot - 1]);
}

std::string replayResultLabel(std::size_t slot) {
  static constexpr std::array<const char*, kReplayResultSlots> kNames = {"hit", "miss", "forward"};
  return kNames[slot];
}

}  // namespace agentvcr::metrics
