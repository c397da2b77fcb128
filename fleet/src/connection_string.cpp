#include "connection_string.hpp"

#include <algorithm>
#include <set>

#include <libpq-fe.h>

#include "agentvcr/protocol/canonical.hpp"

namespace agentvcr::fleet::detail {
namespace {

constexpr std::string_view kUriSchemes[] = {"postgresql://", "postgres://"};

/// The keywords of the libpq agentvcr runs with, and those it hides: asked of libpq itself, so
/// that a keyword a newer libpq adds is known the day it is linked.
struct LibpqKeywords {
  std::set<std::string, std::less<>> all;
  std::set<std::string, std::less<>> secret;

  LibpqKeywords() {
    PQconninfoOption* options = PQconndefaults();
    for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
      all.emplace(o->keyword);
      if (o->dispchar != nullptr && std::string_view(o->dispchar) == "*") {
        secret.emplace(o->keyword);
      }
    }
    PQconninfoFree(options);
    // libpq translates this one to sslmode before it looks the keyword up.
    all.emplace("requiressl");
  }
};

/// True for the characters that may end a URI's host: a port, the database, the query, the
/// next host.
bool isHostEnd(char c) {
  return c == ':' || c == '/' || c == '?' || c == ',';
}

const LibpqKeywords& libpqKeywords() {
  static const LibpqKeywords keywords;
  return keywords;
}

/// `raw` percent-decoded as libpq decodes a URI's parts, or nullopt where libpq refuses it (a
/// '%' without two hex digits, or %00).
std::optional<std::string> uriDecoded(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out += raw[i];
      continue;
    }
    const int high = i + 1 < raw.size() ? protocol::hexDigitValue(raw[i + 1]) : -1;
    const int low = i + 2 < raw.size() ? protocol::hexDigitValue(raw[i + 2]) : -1;
    if (high < 0 || low < 0 || high * 16 + low == 0) {
      return std::nullopt;
    }
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

/// Builds a URI's reading: its tokens, and the settings libpq stores from them.
class UriReader {
 public:
  explicit UriReader(std::string_view text) : text_(text) { reading_.uri = true; }

  ConnectionReading read(std::size_t start) {
    // The user info runs to the first '@' that comes before any '/'; '?' and '#' are no
    // separators there, so a password may hold them.
    const std::size_t stop = std::min(text_.find_first_of("@/", start), text_.size());
    std::size_t at = start;
    if (stop < text_.size() && text_[stop] == '@') {
      const std::size_t colon = std::min(text_.find(':', start), stop);
      value("user", start, colon);
      if (colon < stop) {
        value("password", colon + 1, stop);
      }
      at = stop + 1;
    }
    at = hosts(at);
    if (at < text_.size() && text_[at] == '/') {
      const std::size_t end = std::min(text_.find('?', at + 1), text_.size());
      value("dbname", at + 1, end);
      at = end;
    }
    if (at < text_.size()) {
      params(at + 1);
    }
    if (reading_.refused()) {
      reading_.settings.clear();  // libpq keeps nothing of a string it refuses
    }
    return std::move(reading_);
  }

 private:
  /// Reads the hosts and ports from `at` and returns where they end: at a '/', a '?' or the
  /// end of the text.
  std::size_t hosts(std::size_t at) {
    std::string hosts;
    std::string ports;
    for (bool first = true;; first = false) {
      if (!first) {
        hosts += ',';
        ports += ',';
      }
      std::size_t end;
      if (at < text_.size() && text_[at] == '[') {
        const std::size_t close = text_.find(']', at + 1);
        if (close == std::string_view::npos) {
          // Unclosed, libpq gives up; read as far as a '/' or a '?', what follows is found too.
          end = std::min(text_.find_first_of("/?", at), text_.size());
          hosts += token(ConnectionToken::Kind::Value, "host", at + 1, end, true);
        } else {
          end = close + 1;
          // Refused too: an empty address, or a character after the bracket that ends nothing.
          const bool stray = end < text_.size() && !isHostEnd(text_[end]);
          hosts +=
              token(ConnectionToken::Kind::Value, "host", at + 1, close, close == at + 1 || stray);
          end = std::min(text_.find_first_of(":/?,", end), text_.size());
        }
      } else {
        end = std::min(text_.find_first_of(":/?,", at), text_.size());
        hosts += token(ConnectionToken::Kind::Value, "host", at, end, false);
      }
      if (end < text_.size() && text_[end] == ':') {
        const std::size_t port_end = std::min(text_.find_first_of("/?,", end + 1), text_.size());
        ports += token(ConnectionToken::Kind::Value, "port", end + 1, port_end, false);
        end = port_end;
      }
      if (end >= text_.size() || text_[end] != ',') {
        at = end;
        break;
      }
      at = end + 1;
    }
    // Joined by commas, as libpq joins them: "h1,h2" and ",5433" (an empty port for h1).
    store("host", hosts, true);
    store("port", ports, true);
    return at;
  }

  /// Reads the query's keyword=value pairs from `at`, separated by '&'.
  void params(std::size_t at) {
    while (at < text_.size()) {
      const std::size_t end = std::min(text_.find('&', at), text_.size());
      const std::size_t equals = text_.find('=', at);
      if (equals >= end) {
        // libpq names the pair without its '=' in its error
        token(ConnectionToken::Kind::Keyword, "", at, end, true);
      } else {
        const std::string keyword = token(ConnectionToken::Kind::Keyword, "", at, equals, false);
        const bool extra_equals =
            text_.substr(equals + 1, end - equals - 1).find('=') != std::string_view::npos;
        std::string value =
            token(ConnectionToken::Kind::Value, keyword, equals + 1, end, extra_equals);
        std::string stored_keyword = keyword;
        if (keyword == "ssl" && value == "true") {  // JDBC's spelling
          stored_keyword = "sslmode";
          value = "require";
        }
        // The keyword's token, just before its value's: libpq refuses one it does not know.
        ConnectionToken& keyword_token = reading_.tokens[reading_.tokens.size() - 2];
        keyword_token.refused = keyword_token.refused || !isConnectionKeyword(stored_keyword);
        store(stored_keyword, value, false);
      }
      at = end + 1;
    }
  }

  /// Adds a value token of a URI part and stores it unless empty, as libpq does.
  void value(const char* keyword, std::size_t begin, std::size_t end) {
    store(keyword, token(ConnectionToken::Kind::Value, keyword, begin, end, false), true);
  }

  /// Adds the token text_[begin, end), percent-decoded, and returns its text; a keyword's token
  /// is its own keyword. A part libpq cannot decode is refused and read as written.
  std::string token(ConnectionToken::Kind kind, const std::string& keyword, std::size_t begin,
                    std::size_t end, bool refused) {
    const std::string_view raw = text_.substr(begin, end - begin);
    const std::optional<std::string> decoded = uriDecoded(raw);
    ConnectionToken t;
    t.kind = kind;
    t.text = decoded.value_or(std::string(raw));
    t.keyword = kind == ConnectionToken::Kind::Keyword ? t.text : keyword;
    t.begin = begin;
    t.end = end;
    t.refused = refused || !decoded;
    reading_.tokens.push_back(t);
    return t.text;
  }

  /// Stores `value` under `keyword` as libpq's conninfo_storeval does; a URI's own parts only
  /// when not empty.
  void store(const std::string& keyword, const std::string& value, bool unless_empty) {
    if (unless_empty && value.empty()) {
      return;
    }
    std::string stored_keyword = keyword;
    std::string stored = value;
    if (keyword == "requiressl") {
      stored_keyword = "sslmode";
      stored = value.starts_with('1') ? "require" : "prefer";
    }
    reading_.settings.emplace_back(stored_keyword, stored);
  }

  std::string_view text_;
  ConnectionReading reading_;
};

/// Builds a keyword=value list's reading.
ConnectionReading readKeywords(std::string_view text) {
  ConnectionReading reading;
  std::size_t i = 0;
  while (i < text.size()) {
    if (isConnectionSpace(text[i])) {
      ++i;
      continue;
    }
    ConnectionToken keyword;
    keyword.kind = ConnectionToken::Kind::Keyword;
    keyword.begin = i;
    while (i < text.size() && text[i] != '=' && !isConnectionSpace(text[i])) {
      ++i;
    }
    keyword.end = i;
    keyword.text = std::string(text.substr(keyword.begin, keyword.end - keyword.begin));
    keyword.keyword = keyword.text;
    while (i < text.size() && isConnectionSpace(text[i])) {
      ++i;
    }
    if (i >= text.size() || text[i] != '=') {
      // libpq gives up at a word without '='; reading on from the next word finds the rest.
      keyword.refused = true;
      reading.tokens.push_back(keyword);
      continue;
    }
    ++i;
    while (i < text.size() && isConnectionSpace(text[i])) {
      ++i;
    }
    ConnectionToken value;
    value.keyword = keyword.text;
    value.begin = i;
    bool unclosed = false;
    std::tie(value.text, i) = readKeywordValue(text, i, {}, &unclosed);
    value.end = i;
    value.refused = unclosed;
    keyword.refused = !isConnectionKeyword(keyword.text);
    reading.tokens.push_back(keyword);
    reading.tokens.push_back(value);
    if (keyword.text == "requiressl") {
      reading.settings.emplace_back("sslmode", value.text.starts_with('1') ? "require" : "prefer");
    } else {
      reading.settings.emplace_back(keyword.text, value.text);
    }
  }
  if (reading.refused()) {
    reading.settings.clear();  // libpq keeps nothing of a string it refuses
  }
  return reading;
}

}  // namespace

bool ConnectionReading::refused() const {
  return std::any_of(tokens.begin(), tokens.end(), [](const auto& t) { return t.refused; });
}

std::optional<std::string> ConnectionReading::setting(std::string_view keyword) const {
  if (refused()) {
    return std::nullopt;
  }
  for (auto s = settings.rbegin(); s != settings.rend(); ++s) {
    if (s->first == keyword) {
      return s->second;
    }
  }
  return std::nullopt;
}

bool isSecretKeyword(std::string_view keyword) {
  return libpqKeywords().secret.contains(keyword);
}

bool isConnectionKeyword(std::string_view keyword) {
  return libpqKeywords().all.contains(keyword);
}

bool isConnectionSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::pair<std::string, std::size_t> readKeywordValue(std::string_view text, std::size_t at,
                                                     std::string_view stops, bool* unclosed) {
  std::string value;
  std::size_t i = at;
  *unclosed = false;
  if (i < text.size() && text[i] == '\'') {
    for (++i;; ++i) {
      if (i >= text.size()) {
        *unclosed = true;
        return {value, i};
      }
      if (text[i] == '\\') {
        if (++i < text.size()) {
          value += text[i];
        }
        continue;
      }
      if (text[i] == '\'') {
        return {value, i + 1};
      }
      value += text[i];
    }
  }
  while (i < text.size() && !isConnectionSpace(text[i]) &&
         stops.find(text[i]) == std::string_view::npos) {
    if (text[i] == '\\') {
      ++i;
      if (i < text.size()) {
        value += text[i++];
      }
      continue;
    }
    value += text[i++];
  }
  return {value, i};
}

ConnectionReading readConnectionString(std::string_view text) {
  for (const std::string_view scheme : kUriSchemes) {
    if (text.starts_with(scheme)) {
      return UriReader(text).read(scheme.size());
    }
  }
  return readKeywords(text);
}

}  // namespace agentvcr::fleet::detail
