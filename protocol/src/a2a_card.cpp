// Pointing an agent card at another address (a2a-protocol.md §4.4, §7 "Card URL rewriting"):
// what the recorder does to the cards it relays and replay to the cards it serves.

#include <algorithm>
#include <cctype>

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::protocol::a2a {
namespace {

constexpr std::string_view kV10ExtendedCardMethod = "GetExtendedAgentCard";
constexpr std::string_view kV03ExtendedCardMethod = "agent/getAuthenticatedExtendedCard";

/// The bindings an HTTP/1.1 proxy or replay can stand in front of. gRPC is neither.
bool isHttpBinding(std::string_view name) {
  return name == "JSONRPC" || name == "HTTP+JSON";
}

/// `url` split where its scheme and authority end, both normalised (lower case, no default
/// port) so that two spellings of one origin compare equal; nullopt for a relative URL.
struct SplitUrl {
  std::string origin;
  std::string_view rest;  ///< path, query and fragment, as written
};

std::optional<SplitUrl> splitUrl(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return std::nullopt;
  }
  const std::size_t rest_start = std::min(url.find_first_of("/?#", scheme_end + 3), url.size());
  std::string origin(url.substr(0, rest_start));
  std::transform(origin.begin(), origin.end(), origin.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view default_port :
       {std::string_view("http://"), std::string_view("https://")}) {
    const std::string suffix = default_port == "http://" ? ":80" : ":443";
    if (origin.starts_with(default_port) && origin.ends_with(suffix)) {
      origin.resize(origin.size() - suffix.size());
    }
  }
  return SplitUrl{std::move(origin), url.substr(rest_start)};
}

/// `url` moved from `rebase.from` to `rebase.to`, or nullopt when it is not under `from`.
std::optional<std::string> rebased(std::string_view url, const CardRebase& rebase) {
  std::string_view to = rebase.to;
  while (!to.empty() && to.back() == '/') {
    to.remove_suffix(1);
  }
  const auto split = splitUrl(url);
  if (!split) {
    return std::nullopt;  // relative: it already resolves against wherever the card came from
  }
  if (rebase.from.empty()) {
    return std::string(to) + std::string(split->rest);
  }
  const auto from = splitUrl(rebase.from);
  if (!from || from->origin != split->origin) {
    return std::nullopt;
  }
  std::string_view prefix = from->rest;
  while (!prefix.empty() && prefix.back() == '/') {
    prefix.remove_suffix(1);
  }
  std::string_view rest = split->rest;
  if (!rest.starts_with(prefix) ||
      (rest.size() > prefix.size() &&
       std::string_view("/?#").find(rest[prefix.size()]) == std::string_view::npos)) {
    return std::nullopt;  // on the agent's origin but outside what the recorder relays
  }
  return std::string(to) + std::string(rest.substr(prefix.size()));
}

/// Rebases `object.url` when `binding` names an HTTP binding; notes what moved.
void rebaseInterface(OrderedJson& object, std::string_view binding, const CardRebase& rebase,
                     std::vector<RebasedUrl>& moved) {
  if (!object.is_object() || !isHttpBinding(binding)) {
    return;
  }
  auto url = object.find("url");
  if (url == object.end() || !url->is_string()) {
    return;
  }
  const std::string before = url->get<std::string>();
  if (auto after = rebased(before, rebase); after && *after != before) {
    *url = *after;
    moved.push_back({before, std::move(*after)});
  }
}

std::string_view stringMember(const OrderedJson& object, const char* name,
                              std::string_view fallback) {
  auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get_ref<const std::string&>()
                                                     : fallback;
}

/// Rebases the interface URLs of `card`: `url` (v0.2, v0.3; JSON-RPC unless
/// `preferredTransport` says otherwise), `additionalInterfaces[]` (v0.3, by `transport`) and
/// `supportedInterfaces[]` (v1.0, by `protocolBinding`). Nothing else holds an endpoint: the
/// provider's, icon, documentation and OAuth URLs are never touched.
void rebaseInterfaces(OrderedJson& card, const CardRebase& rebase, std::vector<RebasedUrl>& moved) {
  rebaseInterface(card, stringMember(card, "preferredTransport", "JSONRPC"), rebase, moved);
  for (const auto& [list, binding_member] : {std::pair{"additionalInterfaces", "transport"},
                                             std::pair{"supportedInterfaces", "protocolBinding"}}) {
    auto found = card.find(list);
    if (found == card.end() || !found->is_array()) {
      continue;
    }
    for (OrderedJson& entry : *found) {
      if (entry.is_object()) {
        rebaseInterface(entry, stringMember(entry, binding_member, ""), rebase, moved);
      }
    }
  }
}

bool isSigned(const OrderedJson& card) {
  auto signatures = card.find("signatures");
  return signatures != card.end() && signatures->is_array() && !signatures->empty();
}

}  // namespace

CardCarrier cardCarrierOf(std::string_view http_method, std::string_view target,
                          std::string_view body) {
  if (http_method == "GET") {
    const std::string_view path = pathOfTarget(target);
    const bool card_path =
        isAgentCardPath(target) || path.ends_with("/extendedAgentCard") || path == "/v1/card";
    return card_path ? CardCarrier::Body : CardCarrier::None;
  }
  // A cheap look first: every other POST of a busy recorder goes through here.
  if (http_method != "POST" ||
      (body.find(kV10ExtendedCardMethod) == std::string_view::npos &&
       body.find("getAuthenticatedExtendedCard") == std::string_view::npos)) {
    return CardCarrier::None;
  }
  const auto request = parseOrderedJson(body);
  if (!request || !request->is_object()) {
    return CardCarrier::None;
  }
  const std::string_view method = stringMember(*request, "method", "");
  return method == kV10ExtendedCardMethod || method == kV03ExtendedCardMethod
             ? CardCarrier::JsonRpcResult
             : CardCarrier::None;
}

CardRewrite rebaseCard(std::string_view answer, CardCarrier carrier, const CardRebase& rebase) {
  CardRewrite out;
  auto parsed = carrier == CardCarrier::None ? std::nullopt : parseOrderedJson(answer);
  if (!parsed || !parsed->is_object()) {
    return out;
  }
  OrderedJson* card = &*parsed;
  if (carrier == CardCarrier::JsonRpcResult) {
    auto result = parsed->find("result");
    if (result == parsed->end() || !result->is_object()) {
      return out;  // an error answer carries no card
    }
    card = &*result;
  }
  if (isSigned(*card)) {
    out.result = CardRewriteResult::Signed;
    return out;
  }
  rebaseInterfaces(*card, rebase, out.urls);
  if (out.urls.empty()) {
    return out;
  }
  out.result = CardRewriteResult::Rewritten;
  out.body = parsed->dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  return out;
}

std::string CardRewrite::note() const {
  OrderedJson note = OrderedJson::object();
  if (result == CardRewriteResult::Signed) {
    note["left"] = "signed";
    return note.dump();
  }
  note["urls"] = OrderedJson::array();
  for (const RebasedUrl& url : urls) {
    note["urls"].push_back({{"from", url.from}, {"to", url.to}});
  }
  return note.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace agentvcr::protocol::a2a
