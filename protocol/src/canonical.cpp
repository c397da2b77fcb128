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
