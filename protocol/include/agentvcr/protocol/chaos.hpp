#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"

/// Chaos testing: faults agentvcr injects on purpose, so that a caller's tests can see what it
/// does when the agent answers 500, sends broken JSON, stalls or hangs up (docs/record.md,
/// "Chaos"). What a fault looks like on the wire is decided here, without I/O; the record relay
/// and replay deliver it.
namespace agentvcr::protocol {

enum class FaultKind {
  Error,       ///< HTTP 500 with a JSON body naming the fault
  Malformed,   ///< HTTP 200 with a body that is not JSON
  Disconnect,  ///< the connection closed before any answer byte
  Stall,       ///< no answer for ChaosSpec::stall, then 504
  Latency,     ///< ChaosSpec::latency added before the real answer
  Truncate,    ///< the real answer cut mid-body
  MagmaError,  ///< a valid MAGMA answer whose candidates are all errors with code "chaos"
  A2aError,    ///< JSON-RPC -32603 Internal error
  RateLimit,   ///< HTTP 429 with Retry-After (on an A2A call, Magisterium's -32003)
};

/// Every kind, in the order a spec's rates are walked.
inline constexpr FaultKind kFaultKinds[] = {
    FaultKind::Error,      FaultKind::Malformed, FaultKind::Disconnect,
    FaultKind::Stall,      FaultKind::Latency,   FaultKind::Truncate,
    FaultKind::MagmaError, FaultKind::A2aError,  FaultKind::RateLimit};

/// Stable snake_case names, stored in `exchanges.fault`: "error", "malformed", "disconnect",
/// "stall", "latency", "truncate", "magma_error", "a2a_error", "rate_limit".
const char* faultName(FaultKind kind);
std::optional<FaultKind> faultFromName(std::string_view name);

/// Whether the request still reaches the agent under this fault (latency, truncate). For every
/// other kind agentvcr answers in the agent's place and the exchange's outcome is `injected`.
bool faultReachesAgent(FaultKind kind);

/// The header a caller sets to force one fault on one request. Honoured only when the proxy was
/// started with `--chaos` or `--chaos-header`, and never forwarded to the agent.
inline constexpr std::string_view kChaosHeader = "X-Agentvcr-Chaos";

/// `--chaos KIND=RATE[,KIND=RATE…][,seed=N][,stall_s=S][,latency_ms=MS]`.
struct ChaosSpec {
  struct Rate {
    FaultKind kind;
    double fraction;  ///< of the requests eligible for a random fault, 0..1

    bool operator==(const Rate&) const = default;
  };

  std::vector<Rate> rates;  ///< in the order of kFaultKinds; their sum is at most 1
  std::uint64_t seed = 0;
  std::chrono::milliseconds stall{60'000};
  std::chrono::milliseconds latency{1'000};
  /// Seconds a rate-limit answer asks the caller to wait (Retry-After, `data.retryAfter`).
  int retry_after_s = 1;

  bool operator==(const ChaosSpec&) const = default;
};

/// Parses a `--chaos` value. Throws std::invalid_argument naming the offending item: an unknown
/// kind or setting, a rate outside 0..1, rates summing over 1, a kind given twice.
ChaosSpec parseChaosSpec(std::string_view text);

/// One request as chaos sees it.
struct ChaosCall {
  std::string_view method;
  std::string_view target;
  std::string_view body;
  /// The value of kChaosHeader, when the request carries it.
  std::optional<std::string_view> forced;
  /// The request carries kChaosHeader more than once: it is refused, since which fault is
  /// meant cannot be known.
  bool forced_twice = false;
};

/// Whether `kind` can be put on `call`: the protocol kinds only on their protocol's calls
/// (magma_error on a MAGMA `POST /v1/responses` with a readable request, a2a_error on a JSON-RPC
/// request); every other kind on any request.
bool faultApplies(FaultKind kind, const ChaosCall& call);

/// What to do with one request: nothing, a fault, or a refusal (HTTP 400) when the request
/// asks for a fault that cannot be given.
struct ChaosDecision {
  std::optional<FaultKind> fault;
  std::optional<HttpReply> refusal;
  std::string refusal_error;  ///< with a refusal: "[chaos.refused] …", for the exchange's record
};

/// The faults of one proxy or replay process. Thread-safe: the workers decide concurrently.
///
/// Random faults fall only on POST requests (the calls, not a caller's health probes). The n-th
/// such request draws from a hash of (seed, n), so a caller that sends its requests in the same
/// order meets the same faults on every run. A draw naming a kind that does not apply to the
/// request (magma_error on an A2A call) leaves it alone.
class Chaos {
 public:
  /// `spec`: random faults, or none. `honour_header`: kChaosHeader is obeyed even without a
  /// spec (`--chaos-header`); with a spec it always is.
  Chaos(std::optional<ChaosSpec> spec, bool honour_header);

  ChaosDecision decide(const ChaosCall& call);

  /// The answer agentvcr gives in the agent's place for a kind that does not reach it: status,
  /// body and, for disconnect and stall, how it is delivered.
  HttpReply injectedAnswer(FaultKind kind, const ChaosCall& call) const;

  const ChaosSpec& spec() const { return spec_; }

  /// How many requests random faults were drawn for so far.
  std::uint64_t draws() const { return draws_.load(std::memory_order_relaxed); }

 private:
  std::optional<FaultKind> draw();

  ChaosSpec spec_;
  bool random_ = false;
  bool honour_header_ = false;
  std::atomic<std::uint64_t> draws_{0};
};

}  // namespace agentvcr::protocol
