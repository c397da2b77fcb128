#pragma once

#include <optional>
#include <string>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/profile.hpp"

namespace agentvcr::sim::a2a {

/// What can be read of a JSON-RPC 2.0 request object.
struct Envelope {
  /// The request id when it is a string, a number or null; nullopt when absent or of another
  /// type, in which case errors carry `id: null`.
  std::optional<Json> id;
  std::string method;
  std::optional<Json> params;
  /// Why the request is not a valid JSON-RPC request (-32600); empty when it is.
  std::string problem;
};

/// Reads the envelope of one request object. Any non-object is a problem: a profile that takes
/// batches reads each element on its own. Without `requires_id`, a request with no `id` is
/// answered with id null (A2A has no notifications, so every request gets an answer).
Envelope readEnvelope(const Json& document, bool requires_id);

/// `{"jsonrpc":"2.0","id":…,"result":…}`; `id` keeps its JSON type.
std::string resultBody(const Json& id, const Json& result);

/// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data"?:…}}`.
std::string errorBody(const Json& id, const RpcError& error);

/// Gives `error` v1.0's shape (the specification's section 9.5): `data` becomes an array of
/// detail objects, an ErrorInfo naming the error first; what v0.3 said in a `data` object
/// becomes the ErrorInfo's metadata, whose values are strings. A code v1.0 does not define is
/// left as it is.
void addV10ErrorDetails(RpcError& error);

/// One server-sent event carrying a JSON-RPC response: "data: <body>\n\n".
std::string sseData(const std::string& body);

/// An error during a stream: "event: error\ndata: <body>\n\n".
std::string sseError(const std::string& body);

}  // namespace agentvcr::sim::a2a
