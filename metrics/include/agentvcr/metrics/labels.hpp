#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/protocol/chaos.hpp"
#include "agentvcr/protocol/magma.hpp"

/// The closed sets every label value comes from. A label's value is an index into its set, so
/// that whatever a caller sends, a metric has a bounded number of series: a route outside the
/// MAGMA contract is `none`, a method or status nobody defined is `other`.
namespace agentvcr::metrics {

/// `route`: protocol::magma::routeName() of the request's route (`none` for A2A and plain HTTP).
inline constexpr std::size_t kRouteSlots =
    static_cast<std::size_t>(protocol::magma::Route::Coaching) + 1;
std::size_t routeSlot(protocol::magma::Route route);
std::string routeLabel(std::size_t slot);

/// `status`: the status the client got, `100` to `599`; `none` when it got no answer (the
/// connection closed first), `other` for a code outside HTTP's range.
inline constexpr std::size_t kStatusSlots = 502;
std::size_t statusSlot(int status);
std::string statusLabel(std::size_t slot);

/// `kind`: protocol::faultName() of a chaos fault.
inline constexpr std::size_t kFaultSlots = std::size(protocol::kFaultKinds);
std::size_t faultSlot(protocol::FaultKind kind);
std::string faultLabel(std::size_t slot);

/// `method`: an A2A method of either binding (protocol::a2a::knownMethodNames()), `none` when
/// the call had no readable method, `other` for any other name.
std::size_t a2aMethodSlots();
std::size_t a2aMethodSlot(const std::optional<std::string>& method);
std::string a2aMethodLabel(std::size_t slot);

/// `code`: `none` for a call answered without error; JSON-RPC's own codes and A2A's (-32001 to
/// -32009, both bindings); `other` for anything else.
inline constexpr std::size_t kA2aCodeSlots = 16;
std::size_t a2aCodeSlot(std::optional<std::int64_t> code);
std::string a2aCodeLabel(std::size_t slot);

/// `result` of a replayed input.
enum class ReplayResult { Hit, Miss, Forward };
inline constexpr std::size_t kReplayResultSlots = 3;
std::string replayResultLabel(std::size_t slot);

}  // namespace agentvcr::metrics
