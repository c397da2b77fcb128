#include <iterator>

#include "agentvcr/net/asio.hpp"

namespace agentvcr::net {

protocol::Headers toHeaders(const http::fields& fields) {
  protocol::Headers headers;
  headers.reserve(static_cast<std::size_t>(std::distance(fields.begin(), fields.end())));
  for (const auto& field : fields) {
    headers.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  return headers;
}

}  // namespace agentvcr::net
