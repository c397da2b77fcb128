#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "agentvcr/sim/a2a/checks.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "agentvcr/sim/a2a/profile.hpp"
#include "agentvcr/sim/a2a/rate_limiter.hpp"
#include "agentvcr/sim/a2a/tokens.hpp"
#include "agentvcr/sim/a2a/wire.hpp"

namespace agentvcr::sim::a2a {

/// Everything `agentvcr mock a2a` can be told; the defaults are Magisterium's.
struct MockConfig {
  ProfileKind profile = ProfileKind::Magisterium;
  /// The card's protocolVersion in the Magisterium profile: "0.3.0" or "0.2.6" (what the live
  /// card reportedly declares, which makes @a2a-js/sdk 1.3.0 speak v1.0). The standard profile
  /// always declares "0.3.0".
  std::string card_version = "0.3.0";
  /// The A2A versions the standard profile serves; the `A2A-Version` header picks one per
  /// request. Magisterium serves v0.3 only, whatever this says.
  std::vector<WireVersion> a2a_versions = {WireVersion::V03, WireVersion::V10};
  Fixtures fixtures;

  /// Accepted Bearer tokens and their plans (Magisterium profile only).
  TokenTable tokens;
  /// Requests without an Authorization header act as one Pro user, "anonymous". A token that
  /// is sent is still checked.
  bool no_auth = false;

  bool quota = true;  ///< Magisterium profile only
  RateLimits limits;
  /// Also send the wait of a 429 as an HTTP Retry-After header (unsettled for Magisterium).
  bool retry_after_header = false;
  std::vector<Check> check_order = defaultCheckOrder();

  std::string endpoint_path = "/api/v1/a2a";  ///< also served at "/"
  /// Where the HTTP+JSON binding (v1.0, standard profile) lives: its routes are relative to it.
  std::string rest_path = "/api/v1/rest";
  /// The card's `url`: where clients should send JSON-RPC (the proxy's address when the mock
  /// sits behind one).
  std::string public_url;
  std::uint64_t seed = 0;
  /// Pause between two events of a stream (the first one goes out at once).
  std::chrono::milliseconds stream_delay{50};
  std::chrono::seconds retention = std::chrono::hours(24);
  /// Answer preflights and send Access-Control-Allow-Origin: * on every answer.
  bool cors = true;
};

}  // namespace agentvcr::sim::a2a
