#pragma once

// An archive written by store::Recorder from generated exchanges, with no proxy and no agent:
// what replay's differential tests and fuzz targets ask again. Deterministic for a given plan.
//
// - MAGMA: BENCH-like press_button episodes in three slots, each request batching the next input
//   of one to three of them. Memories, tools and extra keys hold `id`, `request_id` and
//   `inputs` members of their own; some episodes are played again word for word (their inputs
//   recorded twice, answered otherwise), some ask for two candidates; some requests were
//   answered 500 or broke the contract and were sent again; requests are written in both
//   json.dumps styles, answers compact or spaced.
// - A2A: JSON-RPC calls to kA2aEndpoint with ids of every JSON type, a call recorded twice, one
//   that differs from it only in its messageId, a batch answered out of order, an event stream,
//   a parse error, a v1.0 call, a notification, and the agent card. Apart: one call recorded in
//   two X-Agentvcr-Scope scopes and in none, answered otherwise in each; and calls of v1.0's
//   HTTP+JSON binding (a send recorded twice, GETs that differ in their query, push configs
//   whose bodies differ in their `id` only, an event stream, an error).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::testing {

inline constexpr const char* kA2aEndpoint = "/api/v1/a2a";
inline constexpr const char* kA2aCardPath = "/.well-known/agent-card.json";

struct GeneratedArchivePlan {
  std::size_t magma_steps = 48;  ///< recorded MAGMA inputs (about two per request)
  bool a2a_calls = true;         ///< the A2A calls too
  std::uint64_t seed = 1;
};

/// The requests recorded into a generated archive, each list in recorded order.
struct GeneratedArchive {
  std::vector<protocol::HttpRequest> magma;       ///< POST /v1/responses
  std::vector<protocol::HttpRequest> a2a;         ///< the card's GET, then the calls
  std::vector<protocol::HttpRequest> a2a_scoped;  ///< the calls recorded in scopes, and not
  std::vector<protocol::HttpRequest> a2a_rest;    ///< the HTTP+JSON binding's calls
};

/// Writes a new archive at `path`. Throws std::runtime_error when `path` exists or the recorder
/// did not write every exchange.
GeneratedArchive writeGeneratedArchive(const std::string& path,
                                       const GeneratedArchivePlan& plan = {});

}  // namespace agentvcr::testing
