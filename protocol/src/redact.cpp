#include "agentvcr/protocol/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "json_parse_impl.hpp"

namespace agentvcr::protocol {
namespace {

using Ordered = nlohmann::ordered_json;

constexpr std::string_view kTokenPrefix = "REDACTED-";

/// Member names whose values are secrets wherever they appear in a coaching session body.
constexpr std::array<std::string_view, 5> kSecretMembers = {"api_key", "apiKey", "token",
                                                            "password", "secret"};

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// True for a value that already is a redaction token: redacting twice changes nothing.
bool isToken(std::string_view value) {
  if (value.size() != kTokenPrefix.size() + 16 ||
      value.substr(0, kTokenPrefix.size()) != kTokenPrefix) {
    return false;
  }
  return std::all_of(value.begin() + static_cast<std::ptrdiff_t>(kTokenPrefix.size()), value.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// Replaces `value` by its token (strings by the token of their text, anything else by the
/// token of its compact JSON). Returns false when there was nothing to change.
bool redactValue(Ordered& value) {
  if (value.is_null()) {
    return false;
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (isToken(text)) {
      return false;
    }
    value = redactionToken(text);
    return true;
  }
  value = redactionToken(pythonJsonDumps(value));
  return true;
}

/// backends.<name>.headers.<header>: every header value.
bool redactBackendHeaders(Ordered& body) {
  auto backends = body.find("backends");
  if (backends == body.end() || !backends->is_object()) {
    return false;
  }
  bool changed = false;
  for (auto& backend : *backends) {
    if (!backend.is_object()) {
      continue;
    }
    auto headers = backend.find("headers");
    if (headers == backend.end() || !headers->is_object()) {
      continue;
    }
    for (auto& value : *headers) {
      changed = redactValue(value) || changed;
    }
  }
  return changed;
}

/// Any member named like a secret, at any depth. Iterative: the depth is bounded by the parser
/// anyway, but nothing here needs recursion.
bool redactSecretMembers(Ordered& body) {
  bool changed = false;
  std::vector<Ordered*> stack{&body};
  while (!stack.empty()) {
    Ordered* current = stack.back();
    stack.pop_back();
    if (current->is_object()) {
      for (auto it = current->begin(); it != current->end(); ++it) {
        bool secret = std::find(kSecretMembers.begin(), kSecretMembers.end(), it.key()) !=
                      kSecretMembers.end();
        if (secret) {
          changed = redactValue(it.value()) || changed;
        } else if (it->is_structured()) {
          stack.push_back(&it.value());
        }
      }
    } else if (current->is_array()) {
      for (auto& element : *current) {
        if (element.is_structured()) {
          stack.push_back(&element);
        }
      }
    }
  }
  return changed;
}

/// For unparseable bodies: any mention of headers or of a secret member name.
bool mayHoldSecrets(std::string_view body) {
  std::string lower = lowered(body);
  if (lower.find("headers") != std::string::npos) {
    return true;
  }
  for (std::string_view name : kSecretMembers) {
    if (lower.find(lowered(name)) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string redactionToken(std::string_view secret) {
  return std::string(kTokenPrefix) + hashHex(stableHash(secret));
}

bool isSecretHeader(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kExact = {
      "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"};
  std::string lower = lowered(name);
  if (std::find(kExact.begin(), kExact.end(), lower) != kExact.end()) {
    return true;
  }
  for (std::string_view part : {"token", "secret", "api-key"}) {
    if (lower.find(part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::size_t redactHeaders(Headers& headers) {
  std::size_t count = 0;
  for (HeaderField& field : headers) {
    if (isSecretHeader(field.name) && !isToken(field.value)) {
      field.value = redactionToken(field.value);
      ++count;
    }
  }
  return count;
}

std::optional<std::string> redactCoachingSessionBody(std::string_view body) {
  JsonSyntaxError error;
  auto parsed = detail::parseJsonAs<Ordered>(body, kDefaultMaxJsonDepth, error);
  if (!parsed) {
    // Unreadable JSON cannot be redacted member by member: when it may hold credentials, the
    // whole body is replaced by its token.
    if (mayHoldSecrets(body)) {
      return redactionToken(body);
    }
    return std::nullopt;
  }
  if (!parsed->is_object()) {
    return std::nullopt;
  }
  bool changed = redactBackendHeaders(*parsed);
  changed = redactSecretMembers(*parsed) || changed;
  if (!changed) {
    return std::nullopt;
  }
  return pythonJsonDumps(*parsed);
}

}  // namespace agentvcr::protocol
