// rebaseCard() against cards drawn at random, as agents write them: any whitespace, numbers
// spelled as a serialiser never would (`1.10`, 25 digits, `1E+02`, `-0`), strings and member
// names escaped any which way (`\/`, `\u0072`, surrogate pairs), interfaces of every binding
// in `url`, `additionalInterfaces[]` and `supportedInterfaces[]`, extension members holding
// URLs of their own, alone or as the result of a JSON-RPC answer. Each card is written piece by
// piece, so the generator knows which URL strings must move and where, and checks the rule of
// docs/record.md ("Agent cards"): every byte outside the moved URL strings is the agent's, and
// the result parses to the card with those URLs, and only those, moved.

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::protocol::a2a {
namespace {

constexpr std::uint64_t kCardSeeds = 2000;

/// The agent's address as the recorder knows it, and where its interfaces move.
constexpr std::string_view kAgentBase = "http://agent.example:9000/base";
constexpr std::string_view kRelayBase = "http://127.0.0.1:8080/rec";

/// A card written out token by token. The text between the URL strings that must move is kept
/// piece by piece, with the value each of those strings must take.
class CardWriter {
 public:
  explicit CardWriter(std::uint64_t seed) : random_(seed) {}

  /// Whether a rewrite takes every absolute URL (replay's rule) or those under kAgentBase.
  bool every_url = false;
  /// Whether the card being written is one the rewrite moves: not a signed one, nor the result
  /// of a batch's other call.
  bool moving = true;

  std::string text;                       ///< the card's bytes
  std::vector<std::string> kept = {""};   ///< the bytes around the moving strings
  std::vector<std::string> moved_values;  ///< what each moving string must hold after

  bool chance(double p) { return std::bernoulli_distribution(p)(random_); }

  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_);
  }

  void raw(std::string_view bytes) {
    text += bytes;
    kept.back() += bytes;
  }

  void whitespace() {
    static constexpr std::string_view kBlanks[] = {"",     "",   "",     " ",
                                                   "\n  ", "\t", "\r\n", "  \n\t "};
    raw(kBlanks[below(std::size(kBlanks))]);
  }

  /// `value` as a JSON string literal, each character spelled plainly or escaped at random.
  std::string spelled(const std::string& value) {
    std::string out = "\"";
    for (std::size_t i = 0; i < value.size();) {
      const auto c = static_cast<unsigned char>(value[i]);
      const std::size_t length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      const std::string character = value.substr(i, length);
      i += length;
      if (c == '"' || c == '\\' || c < 0x20 || chance(0.15)) {
        out += escaped(character);
      } else {
        out += character;
      }
    }
    return out + "\"";
  }

  /// A string value that stays.
  Json string(const std::string& value) {
    raw(spelled(value));
    return value;
  }

  /// A URL string that must hold `after` once rewritten (or stay, when it equals `before`).
  Json url(const std::string& before, const std::string& after) {
    if (!moving || before == after) {
      return string(before);
    }
    text += spelled(before);
    moved_values.push_back(after);
    kept.emplace_back();
    return after;
  }

  Json number() {
    static constexpr std::string_view kSpellings[] = {"1.10",
                                                      "12345678901234567890123",
                                                      "1E+02",
                                                      "-0",
                                                      "0.000",
                                                      "1e-7",
                                                      "-12.5e3",
                                                      "18446744073709551616",
                                                      "9007199254740993",
                                                      "3",
                                                      "2.50E1"};
    const std::string spelling(kSpellings[below(std::size(kSpellings))]);
    raw(spelling);
    return *parseJson(spelling).value;
  }

  /// An object of `members` in a random order; each member writes its own value.
  template <class Member>
  Json object(std::vector<std::pair<std::string, Member>> members) {
    std::shuffle(members.begin(), members.end(), random_);
    Json value = Json::object();
    raw("{");
    for (std::size_t i = 0; i < members.size(); ++i) {
      whitespace();
      raw(spelled(members[i].first));
      whitespace();
      raw(":");
      whitespace();
      value[members[i].first] = members[i].second();
      whitespace();
      if (i + 1 < members.size()) {
        raw(",");
      }
    }
    if (members.empty()) {
      whitespace();
    }
    raw("}");
    return value;
  }

  template <class Element>
  Json array(std::size_t size, Element element) {
    Json value = Json::array();
    raw("[");
    for (std::size_t i = 0; i < size; ++i) {
      whitespace();
      value.push_back(element());
      whitespace();
      if (i + 1 < size) {
        raw(",");
      }
    }
    raw("]");
    return value;
  }

  /// Any extension value, URLs on the agent included: nothing in it is an interface.
  Json extension(int depth) {
    switch (below(depth > 2 ? 3 : 6)) {
      case 0:
        return number();
      case 1:
        return string(chance(0.5) ? std::string(kAgentBase) + "/ext"
                                  : "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\"\n");
      case 2: {
        const bool yes = chance(0.5);
        raw(yes ? "true" : "null");
        return yes ? Json(true) : Json(nullptr);
      }
      case 3:
        return array(below(3), [&] { return extension(depth + 1); });
      default:
        return object(std::vector<std::pair<std::string, std::function<Json()>>>{
            {"url", [&] { return string(std::string(kAgentBase) + "/not-an-interface"); }},
            {"x-" + std::to_string(below(100)), [&] { return extension(depth + 1); }}});
    }
  }

  /// An interface URL and what it must become when its binding is one a proxy stands in front
  /// of: on the agent's origin under its base (any spelling of that origin), elsewhere on it,
  /// on another origin, relative, or no string at all.
  std::pair<Json, Json> interfaceUrl() {
    static constexpr std::string_view kOrigins[] = {"http://agent.example:9000",
                                                    "HTTP://Agent.Example:9000"};
    static constexpr std::string_view kTails[] = {"", "/", "/a2a", "/v1/rest/x", "?q=1", "#frag"};
    const std::string tail(kTails[below(std::size(kTails))]);
    switch (below(5)) {
      case 0:
      case 1: {
        const std::string url = std::string(kOrigins[below(2)]) + "/base" + tail;
        // Under the agent's base, the base gives way to the relay's; taking every URL, only
        // the origin does.
        return {url, std::string(kRelayBase) + (every_url ? "/base" : "") + tail};
      }
      case 2: {
        const std::string url = "http://agent.example:9000/other" + tail;
        return {url, every_url ? std::string(kRelayBase) + "/other" + tail : url};
      }
      case 3: {
        const std::string url = "https://elsewhere.example/base" + tail;
        return {url, every_url ? std::string(kRelayBase) + "/base" + tail : url};
      }
      default:
        return {"/base" + tail, "/base" + tail};
    }
  }

  /// Writes `url` (before, after) under a binding; returns the value the rewrite must give.
  Json interfaceUrlValue(const std::pair<Json, Json>& url, bool http_binding) {
    if (!http_binding) {
      return string(url.first.get<std::string>());
    }
    return this->url(url.first.get<std::string>(), url.second.get<std::string>());
  }

  /// One entry of additionalInterfaces (`binding_member` "transport") or supportedInterfaces
  /// ("protocolBinding").
  Json interfaceEntry(const std::string& binding_member) {
    static constexpr std::string_view kBindings[] = {"JSONRPC", "HTTP+JSON", "GRPC", ""};
    const std::string binding(kBindings[below(std::size(kBindings))]);
    const bool http = binding == "JSONRPC" || binding == "HTTP+JSON";
    const auto url = interfaceUrl();
    std::vector<std::pair<std::string, std::function<Json()>>> members = {
        {"url", [&] { return interfaceUrlValue(url, http); }}};
    if (!binding.empty()) {
      members.emplace_back(binding_member, [&] { return string(binding); });
    }
    if (chance(0.3)) {
      members.emplace_back("protocolVersion", [&] { return number(); });
    }
    return object(members);
  }

  /// A whole card; `signed_card` adds signatures, which leave it as it is.
  Json card(bool signed_card) {
    const bool was_moving = moving;
    moving = moving && !signed_card;
    Json written = unsignedOrSignedCard(signed_card);
    moving = was_moving;
    return written;
  }

  /// One answer of a JSON-RPC batch, its members in any order: the card's answer, or another
  /// call's whose result holds interface-like URLs that are no card's.
  Json batchAnswer(const Json& id, bool card_answer, bool signed_card) {
    using Member = std::pair<std::string, std::function<Json()>>;
    return object(std::vector<Member>{{"jsonrpc", [&] { return string("2.0"); }},
                                      {"id",
                                       [&] {
                                         raw(id.dump());
                                         return id;
                                       }},
                                      {"result", [&] {
                                         const bool was_moving = moving;
                                         moving = card_answer;
                                         Json result = card(signed_card);
                                         moving = was_moving;
                                         return result;
                                       }}});
  }

 private:
  Json unsignedOrSignedCard(bool signed_card) {
    static constexpr std::string_view kPreferred[] = {"", "JSONRPC", "HTTP+JSON", "GRPC"};
    const std::string preferred(kPreferred[below(std::size(kPreferred))]);
    const bool url_is_http = preferred != "GRPC";  // absent: JSON-RPC
    const auto card_url = interfaceUrl();
    using Member = std::pair<std::string, std::function<Json()>>;
    std::vector<Member> members = {
        {"name", [&] { return string("Agent \xE2\x80\x94 \"caf\xC3\xA9\" / \\ \t"); }},
        {"version", [&] { return number(); }},
        {"url", [&] { return interfaceUrlValue(card_url, url_is_http); }},
        {"provider",
         [&] {
           return object(std::vector<Member>{
               {"organization", [&] { return string("x"); }},
               {"url", [&] { return string(std::string(kAgentBase) + "/about"); }}});
         }},
        {"iconUrl", [&] { return string(std::string(kAgentBase) + "/icon.png"); }},
        {"capabilities", [&] { return extension(2); }},
    };
    if (!preferred.empty()) {
      members.emplace_back("preferredTransport", [&] { return string(preferred); });
    }
    for (const std::string list : {"additionalInterfaces", "supportedInterfaces"}) {
      if (chance(0.7)) {
        const std::string binding_member =
            list == "additionalInterfaces" ? "transport" : "protocolBinding";
        members.emplace_back(list, [this, binding_member] {
          return array(below(4), [&] { return interfaceEntry(binding_member); });
        });
      }
    }
    for (std::size_t i = below(3); i > 0; --i) {
      members.emplace_back("x-extension-" + std::to_string(i), [&] { return extension(0); });
    }
    if (signed_card) {
      members.emplace_back("signatures", [&] {
        return array(1, [&] {
          return object(std::vector<Member>{{"protected", [&] { return string("e30"); }},
                                            {"signature", [&] { return string("c2ln"); }}});
        });
      });
    }
    return object(members);
  }

  /// One character (its UTF-8 bytes) as a JSON escape: the short form where JSON has one and
  /// the draw says so, else \uXXXX (a surrogate pair beyond the BMP).
  std::string escaped(const std::string& character) {
    static constexpr std::pair<char, std::string_view> kShort[] = {
        {'"', "\\\""}, {'\\', "\\\\"}, {'/', "\\/"},  {'\b', "\\b"},
        {'\f', "\\f"}, {'\n', "\\n"},  {'\r', "\\r"}, {'\t', "\\t"}};
    if (character.size() == 1 && chance(0.5)) {
      for (const auto& [c, escape] : kShort) {
        if (character[0] == c) {
          return std::string(escape);
        }
      }
    }
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(character[i]); };
    char32_t code = 0;
    switch (character.size()) {
      case 1:
        code = byte(0);
        break;
      case 2:
        code = (byte(0) & 0x1Fu) << 6 | (byte(1) & 0x3Fu);
        break;
      case 3:
        code = (byte(0) & 0x0Fu) << 12 | (byte(1) & 0x3Fu) << 6 | (byte(2) & 0x3Fu);
        break;
      default:
        code = (byte(0) & 0x07u) << 18 | (byte(1) & 0x3Fu) << 12 | (byte(2) & 0x3Fu) << 6 |
               (byte(3) & 0x3Fu);
    }
    const auto unit = [&](char32_t value) {
      char out[7];
      std::snprintf(out, sizeof out, chance(0.5) ? "\\u%04x" : "\\u%04X",
                    static_cast<unsigned>(value));
      return std::string(out);
    };
    if (code < 0x10000) {
      return unit(code);
    }
    code -= 0x10000;
    return unit(0xD800 + (code >> 10)) + unit(0xDC00 + (code & 0x3FF));
  }

  std::mt19937_64 random_;
};

/// Why `rewritten` breaks the rule for `writer`'s card; empty when it keeps it.
std::string brokenRule(const CardWriter& writer, const std::string& rewritten) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < writer.kept.size(); ++i) {
    const std::string& piece = writer.kept[i];
    if (rewritten.compare(at, piece.size(), piece) != 0) {
      return "the bytes at " + std::to_string(at) + " are not the agent's: expected \"" + piece +
             "\", got \"" + rewritten.substr(at, piece.size()) + "\"";
    }
    at += piece.size();
    if (i + 1 == writer.kept.size()) {
      break;
    }
    // The moved URL: one string literal, holding its new value.
    std::size_t end = at + 1;
    while (end < rewritten.size() && rewritten[end] != '"') {
      end += rewritten[end] == '\\' ? 2 : 1;
    }
    const auto value = parseJson(rewritten.substr(at, end + 1 - at)).value;
    if (rewritten[at] != '"' || !value || *value != writer.moved_values[i]) {
      return "the string at " + std::to_string(at) + " is not \"" + writer.moved_values[i] + "\"";
    }
    at = end + 1;
  }
  if (at != rewritten.size()) {
    return "bytes follow the card's end: " + rewritten.substr(at);
  }
  return {};
}

TEST(A2aCardGenerated, OnlyTheInterfaceUrlsMoveAndEveryOtherByteIsTheAgents) {
  for (std::uint64_t seed = 1; seed <= kCardSeeds; ++seed) {
    CardWriter writer(seed);
    writer.every_url = writer.chance(0.3);
    CardCarrier carrier;
    Json expected;
    bool any_signed = false;
    switch (writer.below(3)) {
      case 0: {  // a card GET's body
        carrier.kind = CardCarrier::Kind::Body;
        any_signed = writer.chance(0.1);
        writer.whitespace();
        expected = writer.card(any_signed);
        writer.whitespace();
        break;
      }
      case 1: {  // the result of an extended-card call's answer
        carrier.kind = CardCarrier::Kind::JsonRpcResult;
        any_signed = writer.chance(0.1);
        expected = writer.batchAnswer(Json(writer.below(100)), true, any_signed);
        break;
      }
      default: {  // a batch's answers, the extended-card calls' among them
        carrier.kind = CardCarrier::Kind::JsonRpcResult;
        const std::size_t size = 1 + writer.below(4);
        std::size_t calls = 0;
        expected = writer.array(size, [&] {
          const Json id = "call-" + std::to_string(++calls);
          const bool card_answer = writer.chance(0.6);
          const bool signed_card = card_answer && writer.chance(0.1);
          if (card_answer) {
            carrier.batch_card_ids.push_back(id);
            any_signed = any_signed || signed_card;
          }
          return writer.batchAnswer(id, card_answer, signed_card);
        });
        if (carrier.batch_card_ids.empty()) {
          continue;  // no extended-card call: cardCarrierOf() finds no card to carry
        }
      }
    }
    const std::string to = std::string(kRelayBase) + (writer.chance(0.5) ? "/" : "");
    const CardRebase rebase{.from = writer.every_url ? "" : kAgentBase, .to = to};
    const CardRewrite rewrite = rebaseCard(writer.text, carrier, rebase);

    std::string broken;
    if (writer.moved_values.empty()) {
      const auto left = any_signed ? CardRewriteResult::Signed : CardRewriteResult::Unchanged;
      if (rewrite.result != left) {
        broken = any_signed ? "a signed card was not left as signed"
                            : "rewritten although no interface URL had to move";
      }
    } else if (rewrite.result != CardRewriteResult::Rewritten) {
      broken = "left as it was although " + std::to_string(writer.moved_values.size()) +
               " URLs had to move";
    } else if (rewrite.urls.size() != writer.moved_values.size()) {
      broken = "noted " + std::to_string(rewrite.urls.size()) + " moved URLs, not " +
               std::to_string(writer.moved_values.size());
    } else if (broken = brokenRule(writer, rewrite.body); broken.empty()) {
      const auto parsed = parseJson(rewrite.body);
      if (!parsed.value || *parsed.value != expected) {
        broken = "the rewritten card does not parse to the expected JSON";
      }
    }
    if (!broken.empty()) {
      ADD_FAILURE() << "card seed " << seed << ": " << broken << "\ncard:\n"
                    << writer.text << "\nrewritten:\n"
                    << rewrite.body;
      return;
    }
  }
}

}  // namespace
}  // namespace agentvcr::protocol::a2a
