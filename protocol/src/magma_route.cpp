// Which MAGMA endpoint a request addresses (magma-protocol.md §2).

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::protocol::magma {
namespace {

constexpr std::string_view kSessionsPrefix = "/v1/coaching/sessions/";

bool isSessionPath(std::string_view path) {
  if (path.substr(0, kSessionsPrefix.size()) != kSessionsPrefix) {
    return false;
  }
  std::string_view run_id = path.substr(kSessionsPrefix.size());
  return !run_id.empty() && run_id.find('/') == std::string_view::npos;
}

}  // namespace

Route routeOf(std::string_view method, std::string_view target) {
  std::string_view path = pathOfTarget(target);
  if (method == "GET") {
    if (path == "/health") {
      return Route::Health;
    }
    if (path == "/v1/info") {
      return Route::Info;
    }
  } else if (method == "POST") {
    if (path == "/v1/responses") {
      return Route::Responses;
    }
    if (path == "/v1/coaching") {
      return Route::Coaching;
    }
  } else if (method == "PUT") {
    if (isSessionPath(path)) {
      return Route::CoachingPut;
    }
  } else if (method == "DELETE") {
    if (isSessionPath(path)) {
      return Route::CoachingDelete;
    }
  }
  return Route::None;
}

const char* routeName(Route route) {
  switch (route) {
    case Route::None:
      return "none";
    case Route::Health:
      return "health";
    case Route::Info:
      return "info";
    case Route::Responses:
      return "responses";
    case Route::CoachingPut:
      return "coaching_put";
    case Route::CoachingDelete:
      return "coaching_delete";
    case Route::Coaching:
      return "coaching";
  }
  return "none";
}

}  // namespace agentvcr::protocol::magma
