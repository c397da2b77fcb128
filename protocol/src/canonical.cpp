#include "agentvcr/protocol/canonical.hpp"

#include <xxhash.h>

#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::protocol {

std::string canonicalJson(const Json& value) {
  // nlohmann::json keeps members in a std::map: byte order of the UTF-8 keys, which is also
  // code-point order, i.e. what Python's sort_keys=True gives.
  return pythonJsonDumps(value);
}

std::uint64_t stableHash(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::uint64_t canonicalHash(const Json& value) {
  return stableHash(canonicalJson(value));
}

int hexDigitValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

std::string hexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char byte : bytes) {
    const auto b = static_cast<unsigned char>(byte);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xFU];
  }
  return out;
}

std::optional<std::string> hexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hexDigitValue(hex[i]);
    const int low = hexDigitValue(hex[i + 1]);
    if (high < 0 || low < 0) {
      return std::nullopt;
    }
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

std::string hashHex(std::uint64_t hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (std::size_t i = 16; i-- > 0;) {
    out[i] = kDigits[hash & 0xFU];
    hash >>= 4U;
  }
  return out;
}

}  // namespace agentvcr::protocol
