#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::protocol {

std::string_view pathOfTarget(std::string_view target) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.substr(0, scheme.size()) == scheme) {
      target.remove_prefix(scheme.size());
      std::size_t slash = target.find('/');
      target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
      break;
    }
  }
  std::size_t end = target.find_first_of("?#");
  return end == std::string_view::npos ? target : target.substr(0, end);
}

}  // namespace agentvcr::protocol
