#include "body_codec.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "agentvcr/protocol/utf8.hpp"

namespace agentvcr::store::detail {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return c - 'a' + 26;
  }
  if (c >= '0' && c <= '9') {
    return c - '0' + 52;
  }
  if (c == '+') {
    return 62;
  }
  if (c == '/') {
    return 63;
  }
  return -1;
}

}  // namespace

std::string base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1]))
                                << 8 |
                            static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[v >> 18 & 0x3F];
    out += kAlphabet[v >> 12 & 0x3F];
    out += kAlphabet[v >> 6 & 0x3F];
    out += kAlphabet[v & 0x3F];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) {
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    out += kAlphabet[v >> 18 & 0x3F];
    out += kAlphabet[v >> 12 & 0x3F];
    out += rest == 2 ? kAlphabet[v >> 6 & 0x3F] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int values[4];
    int padding = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      // '=' may only pad the last one or two characters of the text.
      if (c == '=' && last && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        values[k] = 0;
        ++padding;
        continue;
      }
      values[k] = sextet(c);
      if (values[k] < 0 || padding > 0) {
        return std::nullopt;
      }
    }
    const std::uint32_t v =
        static_cast<std::uint32_t>(values[0]) << 18 | static_cast<std::uint32_t>(values[1]) << 12 |
        static_cast<std::uint32_t>(values[2]) << 6 | static_cast<std::uint32_t>(values[3]);
    out += static_cast<char>(v >> 16 & 0xFF);
    if (padding < 2) {
      out += static_cast<char>(v >> 8 & 0xFF);
    }
    if (padding < 1) {
      out += static_cast<char>(v & 0xFF);
    }
  }
  return out;
}

Ordered bodyToJson(const std::string& bytes) {
  if (protocol::isUtf8(bytes)) {
    return bytes;
  }
  Ordered wrapped = Ordered::object();
  wrapped["base64"] = base64Encode(bytes);
  return wrapped;
}

std::string bodyFromJson(const nlohmann::json& body) {
  if (body.is_string()) {
    return body.get<std::string>();
  }
  if (body.is_object() && body.size() == 1 && body.contains("base64") &&
      body["base64"].is_string()) {
    if (auto bytes = base64Decode(body["base64"].get<std::string>())) {
      return *bytes;
    }
  }
  throw std::runtime_error("a body must be a string or {\"base64\": \"...\"}");
}

Ordered headersToJsonArray(const protocol::Headers& fields) {
  Ordered array = Ordered::array();
  for (const protocol::HeaderField& field : fields) {
    array.push_back(Ordered::array({field.name, field.value}));
  }
  return array;
}

protocol::Headers headersFromJsonArray(const nlohmann::json& array) {
  if (!array.is_array()) {
    throw std::runtime_error("headers must be an array of [name, value]");
  }
  protocol::Headers fields;
  for (const auto& pair : array) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
      throw std::runtime_error("headers must be an array of [name, value]");
    }
    fields.push_back({pair[0].get<std::string>(), pair[1].get<std::string>()});
  }
  return fields;
}

}  // namespace agentvcr::store::detail
