#include <string>

#include "agentvcr/protocol/lint.hpp"

namespace agentvcr::protocol::lint {
namespace {

JsonPath child(const JsonPath& base, PathElement key) {
  JsonPath path = base;
  path.push_back(std::move(key));
  return path;
}

/// JSON-RPC 2.0 §4: an id is a string, a number or null; objects and arrays are not ids.
bool validId(const Json& id) {
  return id.is_string() || id.is_number() || id.is_null();
}

void checkVersion(const Json& envelope, const JsonPath& base, std::vector<LintFinding>& out) {
  auto version = envelope.find("jsonrpc");
  if (version == envelope.end() || *version != "2.0") {
    out.push_back({kA2aJsonrpcVersion, child(base, "jsonrpc"),
                   "jsonrpc must be the string \"2.0\", got " +
                       (version == envelope.end() ? std::string("nothing") : version->dump())});
  }
}

void checkId(const Json& envelope, const JsonPath& base, bool required,
             std::vector<LintFinding>& out) {
  auto id = envelope.find("id");
  if (id == envelope.end()) {
    if (required) {
      out.push_back({kA2aId, child(base, "id"), "A response must carry the request's id"});
    }
    return;
  }
  if (!validId(*id)) {
    out.push_back({kA2aId, child(base, "id"), "id must be a string, a number or null"});
  }
}

void lintRequestObject(const Json& request, const JsonPath& base, std::vector<LintFinding>& out) {
  if (!request.is_object()) {
    out.push_back({kA2aEnvelope, base, "A JSON-RPC request must be an object"});
    return;
  }
  checkVersion(request, base, out);
  auto method = request.find("method");
  if (method == request.end() || !method->is_string()) {
    out.push_back({kA2aMethod, child(base, "method"), "method must be a string"});
  }
  checkId(request, base, false, out);
}

void lintResponseObject(const Json& response, const JsonPath& base, std::vector<LintFinding>& out) {
  if (!response.is_object()) {
    out.push_back({kA2aEnvelope, base, "A JSON-RPC response must be an object"});
    return;
  }
  checkVersion(response, base, out);
  checkId(response, base, true, out);
  const bool has_result = response.contains("result");
  auto error = response.find("error");
  if (has_result == (error != response.end())) {
    out.push_back({kA2aResultOrError, base,
                   has_result ? "A response must not carry both result and error"
                              : "A response must carry either result or error"});
  }
  if (error == response.end()) {
    return;
  }
  auto code = error->is_object() ? error->find("code") : error->end();
  if (!error->is_object() || code == error->end() || !code->is_number_integer()) {
    out.push_back(
        {kA2aErrorCode, child(child(base, "error"), "code"), "error.code must be an integer"});
  }
}

template <class LintOne>
std::vector<LintFinding> lintSingleOrBatch(const Json& body, LintOne lint_one) {
  std::vector<LintFinding> out;
  if (body.is_array()) {
    for (std::size_t i = 0; i < body.size(); ++i) {
      lint_one(body[i], JsonPath{PathElement{static_cast<std::int64_t>(i)}}, out);
    }
  } else {
    lint_one(body, JsonPath{}, out);
  }
  return out;
}

/// Equal values of the same JSON type: 1 and "1" differ, and so do 1 and 1.0 (a client that
/// matches ids by their text would not find its call).
bool sameId(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    return a.is_number_integer() == b.is_number_integer() && a == b;
  }
  return a.type() == b.type() && a == b;
}

/// Ids a response may carry: those of the request(s) that expect an answer, and null (the
/// answer to a request whose id could not be read).
std::vector<Json> requestIds(const Json& request) {
  std::vector<Json> ids;
  auto add = [&ids](const Json& r) {
    if (r.is_object() && r.contains("id")) {
      ids.push_back(r["id"]);
    }
  };
  if (request.is_array()) {
    for (const Json& r : request) {
      add(r);
    }
  } else {
    add(request);
  }
  return ids;
}

}  // namespace

std::vector<LintFinding> lintA2aRequest(const Json& request) {
  return lintSingleOrBatch(request, lintRequestObject);
}

std::vector<LintFinding> lintA2aResponse(const Json& response) {
  return lintSingleOrBatch(response, lintResponseObject);
}

std::vector<LintFinding> lintA2aExchange(const Json& request, const Json& response) {
  std::vector<LintFinding> out = lintA2aResponse(response);
  const std::vector<Json> ids = requestIds(request);
  auto check = [&](const Json& r, const JsonPath& base, std::vector<LintFinding>& found) {
    if (!r.is_object() || !r.contains("id") || !validId(r["id"]) || r["id"].is_null()) {
      return;
    }
    for (const Json& id : ids) {
      if (sameId(id, r["id"])) {
        return;
      }
    }
    found.push_back({kA2aIdMismatch, child(base, "id"),
                     "Response id " + r["id"].dump() + " answers no request id of the exchange"});
  };
  for (LintFinding& f : lintSingleOrBatch(response, check)) {
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace agentvcr::protocol::lint
