#pragma once

// Where a recorded request went, for the HAR and curl exports.

#include <string>

namespace agentvcr::store::detail {

/// The session's upstream base URL followed by the request target ("http://a:1/x" + "/v1/r"
/// gives "http://a:1/x/v1/r"); "http://localhost" stands in for an empty upstream.
std::string requestUrl(const std::string& upstream, const std::string& target);

}  // namespace agentvcr::store::detail
