// Pointing an agent card at another address (a2a-protocol.md §4.4, §7 "Card URL rewriting").

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::protocol::a2a {
namespace {

/// `url` with its scheme and authority replaced by `base`; the path, query and fragment kept.
std::string rebased(std::string_view url, std::string_view base) {
  std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return std::string(base) + std::string(url);  // a relative URL: resolve it against base
  }
  std::size_t path_start = url.find_first_of("/?#", scheme_end + 3);
  std::string_view rest = path_start == std::string_view::npos ? "" : url.substr(path_start);
  return std::string(base) + std::string(rest);
}

bool rebaseMember(OrderedJson& object, std::string_view base) {
  if (!object.is_object()) {
    return false;
  }
  auto url = object.find("url");
  if (url == object.end() || !url->is_string()) {
    return false;
  }
  *url = rebased(url->get<std::string>(), base);
  return true;
}

bool rebaseEach(OrderedJson& card, const char* list, std::string_view base) {
  auto found = card.find(list);
  if (found == card.end() || !found->is_array()) {
    return false;
  }
  bool any = false;
  for (OrderedJson& entry : *found) {
    any = rebaseMember(entry, base) || any;
  }
  return any;
}

}  // namespace

std::optional<std::string> rewriteCardUrls(std::string_view card, std::string_view base) {
  auto parsed = parseOrderedJson(card);
  if (!parsed || !parsed->is_object()) {
    return std::nullopt;
  }
  while (!base.empty() && base.back() == '/') {
    base.remove_suffix(1);
  }
  bool any = rebaseMember(*parsed, base);
  any = rebaseEach(*parsed, "additionalInterfaces", base) || any;
  any = rebaseEach(*parsed, "supportedInterfaces", base) || any;
  if (!any) {
    return std::nullopt;
  }
  return parsed->dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace agentvcr::protocol::a2a
