#pragma once

#include <string>

namespace agentvcr::sim::magma {

/// An HTTP answer without transport: what the lead's server writes back as is.
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;

  bool operator==(const HttpReply&) const = default;
};

}  // namespace agentvcr::sim::magma
