#include "agentvcr/fleet/uri_secrets.hpp"

#include <algorithm>
#include <vector>

#include "agentvcr/protocol/canonical.hpp"

namespace agentvcr::fleet {
namespace {

constexpr std::string_view kMask = "***";

/// `text` with %XX sequences decoded, as libpq decodes a URI's parts.
std::string percentDecoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = protocol::hexDigitValue(text[i + 1]);
      const int low = protocol::hexDigitValue(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

/// Where a URI's user info ends: the last '@' before its query. libpq itself takes the first '@'
/// before a '/', which lies inside this span when there is one: masking up to the last hides
/// every reading of a malformed URI.
std::size_t userInfoEnd(std::string_view uri, std::size_t authority) {
  const std::size_t query = std::min(uri.find_first_of("?#", authority), uri.size());
  const std::size_t at = uri.substr(0, query).rfind('@');
  return at != std::string_view::npos && at >= authority ? at : std::string_view::npos;
}

/// The start and length of each value of `key` in a key=value list (`password=x`,
/// `password = 'x y'`) or in a URI's query (`&password=x`), `stops` ending an unquoted value.
std::vector<std::pair<std::size_t, std::size_t>> valuesOf(std::string_view text,
                                                          std::string_view key,
                                                          std::string_view stops) {
  std::vector<std::pair<std::size_t, std::size_t>> values;
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at > 0 && std::string_view(" \t?&").find(text[at - 1]) == std::string_view::npos) {
      continue;  // the end of a longer key (old_password=)
    }
    std::size_t value = at + key.size();
    while (value < text.size() && (text[value] == ' ' || text[value] == '\t')) {
      ++value;
    }
    if (value >= text.size() || text[value] != '=') {
      continue;
    }
    ++value;
    while (value < text.size() && (text[value] == ' ' || text[value] == '\t')) {
      ++value;
    }
    std::size_t end = value;
    if (end < text.size() && text[end] == '\'') {  // quoted, with \' and \\ escapes
      for (++end; end < text.size() && text[end] != '\''; ++end) {
        end += text[end] == '\\' ? 1 : 0;
      }
      end = std::min(end + 1, text.size());
    } else {
      end = std::min(text.find_first_of(stops, value), text.size());
    }
    values.emplace_back(value, end - value);
  }
  return values;
}

/// The password `uri` carries, in every form a message might quote it: as written, quoted,
/// unquoted and percent-decoded. Empty when it carries none.
std::vector<std::string> passwordsOf(std::string_view uri) {
  std::vector<std::string> found;
  auto add = [&](std::string_view value) {
    if (!value.empty()) {
      found.emplace_back(value);
      found.push_back(percentDecoded(value));
      if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
        std::string unquoted;
        for (std::size_t i = 1; i + 1 < value.size(); ++i) {
          i += value[i] == '\\' && i + 2 < value.size() ? 1 : 0;
          unquoted += value[i];
        }
        found.push_back(unquoted);
      }
    }
  };
  if (isPostgresUri(uri)) {
    const std::size_t authority = uri.find("://") + 3;
    const std::size_t at = userInfoEnd(uri, authority);
    if (at != std::string_view::npos) {
      const std::size_t colon = uri.find(':', authority);
      if (colon != std::string_view::npos && colon < at) {
        add(uri.substr(colon + 1, at - colon - 1));
      }
    }
    const std::size_t query = uri.find('?');
    if (query != std::string_view::npos) {
      for (const auto& [start, length] : valuesOf(uri.substr(query), "password", "&#")) {
        add(uri.substr(query + start, length));
      }
    }
  } else {
    for (const auto& [start, length] : valuesOf(uri, "password", " \t\n")) {
      add(uri.substr(start, length));
    }
  }
  found.erase(std::remove(found.begin(), found.end(), std::string()), found.end());
  // Longest first: a password that contains another's text is masked whole.
  std::sort(found.begin(), found.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return found;
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

}  // namespace

bool isPostgresUri(std::string_view text) {
  return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

std::string redactedUri(std::string_view uri) {
  std::string text(uri);
  // From the end, so that the positions found stay valid while values are replaced.
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (isPostgresUri(uri)) {
    const std::size_t authority = uri.find("://") + 3;
    const std::size_t at = userInfoEnd(uri, authority);
    const std::size_t colon = uri.find(':', authority);
    if (at != std::string_view::npos && colon != std::string_view::npos && colon < at) {
      spans.emplace_back(colon + 1, at - colon - 1);
    }
    const std::size_t query = uri.find('?');
    if (query != std::string_view::npos) {
      for (const auto& [start, length] : valuesOf(uri.substr(query), "password", "&#")) {
        spans.emplace_back(query + start, length);
      }
    }
  } else {
    spans = valuesOf(uri, "password", " \t\n");
  }
  std::sort(spans.begin(), spans.end());
  for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
    text.replace(span->first, span->second, kMask);
  }
  return text;
}

bool carriesPassword(std::string_view uri) {
  return !passwordsOf(uri).empty();
}

std::string passwordWarning() {
  return "the connection string carries a password, which other users of this machine may read "
         "in its process list and shell history: leave it out and let libpq find it in "
         "~/.pgpass (or PGPASSFILE), a service file (PGSERVICEFILE), or PGPASSWORD";
}

std::string scrubbed(std::string_view message, std::string_view uri) {
  std::string text(message);
  replaceAll(text, uri, redactedUri(uri));
  for (const std::string& password : passwordsOf(uri)) {
    replaceAll(text, password, kMask);
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
      const std::string redacted = redactedUri(std::string_view(text).substr(at, end - at));
      text.replace(at, end - at, redacted);
    }
  }
  // And every password=value of a key=value list.
  const auto spans = valuesOf(text, "password", " \t\n\"");
  for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
    text.replace(span->first, span->second, kMask);
  }
  return text;
}

}  // namespace agentvcr::fleet
