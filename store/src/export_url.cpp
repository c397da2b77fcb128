#include "export_url.hpp"

namespace agentvcr::store::detail {

std::string requestUrl(const std::string& upstream, const std::string& target) {
  std::string base = upstream.empty() ? std::string("http://localhost") : upstream;
  while (!base.empty() && base.back() == '/') {
    base.pop_back();
  }
  if (target.empty() || target.front() != '/') {
    return base + "/" + target;
  }
  return base + target;
}

}  // namespace agentvcr::store::detail
