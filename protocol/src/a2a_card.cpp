// Pointing an agent card at another address (a2a-protocol.md §4.4, §7 "Card URL rewriting"):
// what the recorder does to the cards it relays and replay to the cards it serves. The card's
// text is the agent's: only the URL strings that move are written anew.

#include <algorithm>
#include <cctype>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "json_value_spans.hpp"

namespace agentvcr::protocol::a2a {
namespace {

using detail::JsonPath;

constexpr std::string_view kV10ExtendedCardMethod = "GetExtendedAgentCard";
constexpr std::string_view kV03ExtendedCardMethod = "agent/getAuthenticatedExtendedCard";

bool isExtendedCardCall(const Json& call) {
  const Json& method = memberOrNull(call, "method");
  return method.is_string() &&
         (method == kV10ExtendedCardMethod || method == kV03ExtendedCardMethod);
}

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

std::string_view stringMember(const Json& object, const char* name, std::string_view fallback) {
  const Json& member = memberOrNull(object, name);
  return member.is_string() ? member.get_ref<const std::string&>() : fallback;
}

/// One interface URL to write anew: where it is in the answer, and its new value.
struct UrlMove {
  JsonPath path;
  RebasedUrl url;
};

/// Notes the move of `object.url` when `binding` names an HTTP binding and the URL is under
/// `rebase.from`; `path` leads to `object`.
void noteInterface(const Json& object, std::string_view binding, const JsonPath& path,
                   const CardRebase& rebase, std::vector<UrlMove>& moves) {
  const Json& url = memberOrNull(object, "url");
  if (!isHttpBinding(binding) || !url.is_string()) {
    return;
  }
  const std::string& before = url.get_ref<const std::string&>();
  if (auto after = rebased(before, rebase); after && *after != before) {
    JsonPath url_path = path;
    url_path.emplace_back("url");
    moves.push_back({std::move(url_path), {before, std::move(*after)}});
  }
}

/// The interface URLs of `card` (at `path`) to move: `url` (v0.2, v0.3; JSON-RPC unless
/// `preferredTransport` says otherwise), `additionalInterfaces[]` (v0.3, by `transport`) and
/// `supportedInterfaces[]` (v1.0, by `protocolBinding`). Nothing else holds an endpoint: the
/// provider's, icon, documentation and OAuth URLs are never touched.
void noteInterfaces(const Json& card, const JsonPath& path, const CardRebase& rebase,
                    std::vector<UrlMove>& moves) {
  noteInterface(card, stringMember(card, "preferredTransport", "JSONRPC"), path, rebase, moves);
  for (const auto& [list, binding_member] : {std::pair{"additionalInterfaces", "transport"},
                                             std::pair{"supportedInterfaces", "protocolBinding"}}) {
    const Json& entries = memberOrNull(card, list);
    if (!entries.is_array()) {
      continue;
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      JsonPath entry_path = path;
      entry_path.emplace_back(list);
      entry_path.push_back(std::to_string(i));
      noteInterface(entries[i], stringMember(entries[i], binding_member, ""), entry_path, rebase,
                    moves);
    }
  }
}

bool isSigned(const Json& card) {
  const Json& signatures = memberOrNull(card, "signatures");
  return signatures.is_array() && !signatures.empty();
}

/// The cards `answer` carries, as `carrier` says, each with its path.
std::vector<std::pair<JsonPath, const Json*>> cardsIn(const Json& answer,
                                                      const CardCarrier& carrier) {
  std::vector<std::pair<JsonPath, const Json*>> cards;
  const auto addResultOf = [&](const Json& response, JsonPath path) {
    const Json& result = memberOrNull(response, "result");
    if (result.is_object()) {  // an error answer carries no card
      path.emplace_back("result");
      cards.emplace_back(std::move(path), &result);
    }
  };
  if (carrier.kind == CardCarrier::Kind::Body) {
    if (answer.is_object()) {
      cards.emplace_back(JsonPath{}, &answer);
    }
  } else if (carrier.kind == CardCarrier::Kind::JsonRpcResult) {
    if (carrier.batch_card_ids.empty()) {
      addResultOf(answer, {});
    } else if (answer.is_array()) {
      // A batch's answers come in any order: each is its call's by id.
      for (std::size_t i = 0; i < answer.size(); ++i) {
        const Json* id = findMember(answer[i], "id");
        if (id && std::find(carrier.batch_card_ids.begin(), carrier.batch_card_ids.end(), *id) !=
                      carrier.batch_card_ids.end()) {
          addResultOf(answer[i], {std::to_string(i)});
        }
      }
    }
  }
  return cards;
}

}  // namespace

CardCarrier cardCarrierOf(std::string_view http_method, std::string_view target,
                          std::string_view body) {
  CardCarrier carrier;
  if (http_method == "GET" || http_method == "HEAD") {
    const std::string_view path = pathOfTarget(target);
    if (isAgentCardPath(target) || path.ends_with("/extendedAgentCard") || path == "/v1/card") {
      carrier.kind = CardCarrier::Kind::Body;
    }
    return carrier;
  }
  // A cheap look first: every other POST of a busy recorder goes through here.
  if (http_method != "POST" ||
      (body.find(kV10ExtendedCardMethod) == std::string_view::npos &&
       body.find("getAuthenticatedExtendedCard") == std::string_view::npos)) {
    return carrier;
  }
  const auto request = parseJson(body);
  if (!request.value) {
    return carrier;
  }
  if (request.value->is_array()) {
    for (const Json& call : *request.value) {
      // A call without an id is a notification: nothing answers it.
      if (const Json* id = findMember(call, "id"); id && isExtendedCardCall(call)) {
        carrier.batch_card_ids.push_back(*id);
      }
    }
    if (!carrier.batch_card_ids.empty()) {
      carrier.kind = CardCarrier::Kind::JsonRpcResult;
    }
  } else if (isExtendedCardCall(*request.value)) {
    carrier.kind = CardCarrier::Kind::JsonRpcResult;
  }
  return carrier;
}

CardRewrite rebaseCard(std::string_view answer, const CardCarrier& carrier,
                       const CardRebase& rebase) {
  CardRewrite out;
  const auto parsed = carrier ? parseJson(answer) : JsonParseResult{};
  if (!parsed.value) {
    return out;
  }
  std::vector<UrlMove> moves;
  bool signed_card = false;
  for (const auto& [path, card] : cardsIn(*parsed.value, carrier)) {
    if (isSigned(*card)) {
      signed_card = true;  // left as signed, or its signature would break
    } else {
      noteInterfaces(*card, path, rebase, moves);
    }
  }
  if (moves.empty()) {
    out.result = signed_card ? CardRewriteResult::Signed : CardRewriteResult::Unchanged;
    return out;
  }
  // Each moved URL's string is written anew in the agent's text; every other byte stays.
  std::vector<JsonPath> paths;
  for (const UrlMove& move : moves) {
    paths.push_back(move.path);
  }
  const auto spans = detail::valueSpansAt(answer, paths);
  std::vector<std::pair<detail::TextSpan, const UrlMove*>> writes;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (spans[i]) {
      writes.emplace_back(*spans[i], &moves[i]);
    }
  }
  if (writes.empty()) {
    return out;
  }
  std::sort(writes.begin(), writes.end(),
            [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
  std::size_t from = 0;
  for (const auto& [span, move] : writes) {
    out.body.append(answer.substr(from, span.begin - from));
    appendJsonString(out.body, move->url.to);
    out.urls.push_back(move->url);
    from = span.end;
  }
  out.body.append(answer.substr(from));
  out.result = CardRewriteResult::Rewritten;
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

std::string rewrittenCardTag(std::string_view body) {
  return "\"" + hashHex(stableHash(body)) + "\"";
}

}  // namespace agentvcr::protocol::a2a
