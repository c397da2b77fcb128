#include "agentvcr/fleet/uri_secrets.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "agentvcr/protocol/a2a.hpp"
#include "connection_string.hpp"

namespace agentvcr::fleet {
namespace {

using detail::ConnectionReading;
using detail::ConnectionToken;

constexpr std::string_view kMask = "***";

/// [begin, end) of a connection string.
using Span = std::pair<std::size_t, std::size_t>;

/// What of a connection string must never be shown.
struct Secrets {
  std::vector<Span> hidden;           ///< replaced by *** where the string itself is shown
  std::vector<std::string> anywhere;  ///< masked wherever a message holds them
  /// Too short to mask everywhere without garbling a message: masked where it quotes them
  /// ("..."), which is how libpq names every value it complains about.
  std::vector<std::string> quoted;
};

/// True for what libpq's integer options accept whole (strtol, white space around it).
bool isInteger(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && detail::isConnectionSpace(text[i])) {
    ++i;
  }
  i += i < text.size() && (text[i] == '+' || text[i] == '-') ? 1 : 0;
  const std::size_t digits = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    ++i;
  }
  const bool any = i > digits;
  while (i < text.size() && detail::isConnectionSpace(text[i])) {
    ++i;
  }
  return any && i == text.size();
}

bool isSecretValue(const ConnectionToken& t) {
  return t.kind == ConnectionToken::Kind::Value && detail::isSecretKeyword(t.keyword);
}

/// True when libpq reads a URI so that a password written in it may have reached other parts: a
/// port that is no number, a host or a database that holds an '@', a URI it refuses. Each is
/// what a '/', an '@' or a '?' in an unencoded password makes of it
/// (postgresql://u:pa/ss@db reads as host "u", port "pa", database "ss@db").
bool readsOddly(const ConnectionReading& reading) {
  if (reading.refused()) {
    return true;
  }
  return std::any_of(reading.tokens.begin(), reading.tokens.end(), [](const ConnectionToken& t) {
    return t.kind == ConnectionToken::Kind::Value &&
           ((t.keyword == "port" && !t.text.empty() && !isInteger(t.text)) ||
            ((t.keyword == "host" || t.keyword == "dbname") &&
             t.text.find('@') != std::string::npos));
  });
}

/// Sorted, overlapping spans joined.
std::vector<Span> joined(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<Span> out;
  for (const Span& s : spans) {
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

Secrets secretsOf(std::string_view text) {
  const ConnectionReading reading = detail::readConnectionString(text);
  const std::vector<ConnectionToken>& tokens = reading.tokens;
  std::vector<Span> hidden;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!isSecretValue(tokens[i]) || tokens[i].begin == tokens[i].end) {
      continue;
    }
    Span span{tokens[i].begin, tokens[i].end};
    // Where libpq gives up on the words right after a password (password=my secret, or
    // ?password=a&b with its '&' unencoded), they are most likely the rest of it.
    std::size_t j = i + 1;
    while (j < tokens.size() && tokens[j].refused &&
           tokens[j].kind == ConnectionToken::Kind::Keyword) {
      span.second = tokens[j++].end;
      if (j < tokens.size() && tokens[j].kind == ConnectionToken::Kind::Value) {
        span.second = tokens[j++].end;
      }
    }
    if (j == i + 1 && !reading.uri && text[span.first] == '\'') {
      // A quoted value keeps its quotes ('***'): a keyword right after them stays a keyword.
      span = {span.first + 1, std::max(span.first + 1, span.second - (tokens[i].refused ? 0 : 1))};
    }
    if (span.second > span.first) {  // '' is no password
      hidden.push_back(span);
    }
  }
  if (reading.uri && readsOddly(reading)) {
    // A password libpq did not read as written: hide all that may be one, from the first ':'
    // of what would be the user info to the last '@'.
    const std::size_t authority = text.find("://") + 3;
    const std::size_t colon = text.find(':', authority);
    const std::size_t first_at = text.find('@', authority);
    const std::size_t last_at = text.rfind('@');
    if (colon < first_at && first_at != std::string_view::npos && colon + 1 < last_at) {
      hidden.emplace_back(colon + 1, last_at);
    }
  }
  Secrets secrets;
  secrets.hidden = joined(std::move(hidden));
  for (const Span& span : secrets.hidden) {
    const std::string_view written = text.substr(span.first, span.second - span.first);
    secrets.anywhere.emplace_back(written);
    secrets.anywhere.push_back(protocol::a2a::percentDecoded(written));
    // Every part libpq made of the hidden text, which its messages may quote: the password
    // itself, or the port and the database a password with a '/' became.
    for (const ConnectionToken& t : tokens) {
      if (t.begin >= span.second || t.end <= span.first || t.begin == t.end) {
        continue;
      }
      const std::string_view raw = text.substr(t.begin, t.end - t.begin);
      for (const std::string_view part : {std::string_view(t.text), raw}) {
        if (isSecretValue(t) || part.size() >= 4) {
          secrets.anywhere.emplace_back(part);
        } else {
          secrets.quoted.emplace_back(part);
        }
      }
    }
  }
  for (std::vector<std::string>* texts : {&secrets.anywhere, &secrets.quoted}) {
    texts->erase(std::remove(texts->begin(), texts->end(), std::string()), texts->end());
    // Longest first: a secret that contains another is masked whole.
    std::sort(texts->begin(), texts->end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  }
  return secrets;
}

/// `text` with each of `spans` (sorted, apart) replaced by the mask.
std::string masked(std::string_view text, const std::vector<Span>& spans) {
  std::string out(text);
  for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
    out.replace(span->first, span->second - span->first, kMask);
  }
  return out;
}

void replaceAll(std::string& text, std::string_view what, std::string_view with) {
  if (what.empty()) {
    return;
  }
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

/// True for the characters of a keyword (sslpassword).
bool isKeywordCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

bool isPostgresUri(std::string_view text) {
  return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

std::string redactedUri(std::string_view uri) {
  // Masked again until nothing changes: a mask can make a string that libpq reads otherwise
  // (a malformed URI's refused parameter becomes a password), and what it reads then must not
  // be a password either.
  std::string shown = masked(uri, secretsOf(uri).hidden);
  for (int pass = 0; pass < 4; ++pass) {
    std::string again = masked(shown, secretsOf(shown).hidden);
    if (again == shown) {
      break;
    }
    shown = std::move(again);
  }
  return shown;
}

bool carriesPassword(std::string_view uri) {
  return !secretsOf(uri).hidden.empty();
}

std::string passwordWarning() {
  return "the connection string carries a password, which other users of this machine may read "
         "in its process list and shell history: leave it out and let libpq find it in "
         "~/.pgpass (or PGPASSFILE), a service file (PGSERVICEFILE), or PGPASSWORD";
}

std::string scrubbed(std::string_view message, std::string_view uri) {
  const Secrets secrets = secretsOf(uri);
  std::string text(message);
  replaceAll(text, uri, redactedUri(uri));
  for (const std::string& secret : secrets.anywhere) {
    replaceAll(text, secret, kMask);
  }
  for (const std::string& fragment : secrets.quoted) {
    replaceAll(text, "\"" + fragment + "\"", "\"***\"");
  }
  return text;
}

std::string withoutPasswords(std::string_view message) {
  std::string text(message);
  // Each URI the message quotes, up to the first character that cannot be in one.
  for (const std::string_view scheme : {"postgresql://", "postgres://"}) {
    for (std::size_t at = text.find(scheme); at != std::string::npos;
         at = text.find(scheme, at + 1)) {
      const std::size_t end = std::min(text.find_first_of(" \t\n\"'`", at), text.size());
      text.replace(at, end - at, redactedUri(std::string_view(text).substr(at, end - at)));
    }
  }
  // And the value of each secret keyword of a keyword=value list, read as libpq reads it; in a
  // message a double quote ends it too.
  std::vector<Span> values;
  for (std::size_t equals = text.find('='); equals != std::string::npos;
       equals = text.find('=', equals + 1)) {
    std::size_t keyword_end = equals;
    while (keyword_end > 0 && detail::isConnectionSpace(text[keyword_end - 1])) {
      --keyword_end;
    }
    std::size_t keyword = keyword_end;
    while (keyword > 0 && isKeywordCharacter(text[keyword - 1])) {
      --keyword;
    }
    if (!detail::isSecretKeyword(std::string_view(text).substr(keyword, keyword_end - keyword))) {
      continue;
    }
    std::size_t value = equals + 1;
    while (value < text.size() && detail::isConnectionSpace(text[value])) {
      ++value;
    }
    bool unclosed = false;
    const std::size_t end = detail::readKeywordValue(text, value, "\"", &unclosed).second;
    const bool quoted = value < text.size() && text[value] == '\'';
    // As redactedUri() does: a quoted value keeps its quotes.
    const std::size_t begin = quoted ? value + 1 : value;
    const std::size_t inner_end = quoted && !unclosed ? end - 1 : end;
    if (inner_end > begin) {
      values.emplace_back(begin, inner_end);
    }
  }
  return masked(text, joined(std::move(values)));
}

std::string withoutPasswords(std::string_view message, const std::vector<std::string>& arguments) {
  std::string text(message);
  for (const std::string& argument : arguments) {
    if (carriesPassword(argument)) {
      text = scrubbed(text, argument);
    }
  }
  return withoutPasswords(text);
}

}  // namespace agentvcr::fleet
