#include "agentvcr/store/export.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace agentvcr::store {
namespace {

using Ordered = nlohmann::ordered_json;

/// Whether `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF).
bool isUtf8(std::string_view bytes) {
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  while (i < n) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char lo = 0x80;  // bounds of the second byte
    unsigned char hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      lo = b == 0xE0 ? 0xA0 : 0x80;  // overlong
      hi = b == 0xED ? 0x9F : 0xBF;  // surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      lo = b == 0xF0 ? 0x90 : 0x80;  // overlong
      hi = b == 0xF4 ? 0x8F : 0xBF;  // above U+10FFFF
    } else {
      return false;
    }
    if (n - i < length) {
      return false;
    }
    const auto second = static_cast<unsigned char>(bytes[i + 1]);
    if (second < lo || second > hi) {
      return false;
    }
    for (std::size_t k = 2; k < length; ++k) {
      const auto c = static_cast<unsigned char>(bytes[i + k]);
      if (c < 0x80 || c > 0xBF) {
        return false;
      }
    }
    i += length;
  }
  return true;
}

/// Standard base64 (RFC 4648 §4) with padding.
std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
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

Ordered body(const std::string& bytes) {
  if (isUtf8(bytes)) {
    return bytes;
  }
  Ordered wrapped = Ordered::object();
  wrapped["base64"] = base64(bytes);
  return wrapped;
}

Ordered headers(const protocol::Headers& fields) {
  Ordered array = Ordered::array();
  for (const protocol::HeaderField& field : fields) {
    array.push_back(Ordered::array({field.name, field.value}));
  }
  return array;
}

Ordered optional(const std::optional<std::int64_t>& value) {
  return value ? Ordered(*value) : Ordered(nullptr);
}

}  // namespace

std::size_t exportJsonl(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                        std::ostream& out) {
  std::size_t lines = 0;
  for (std::int64_t id : exchange_ids) {
    std::optional<ExchangeRow> ex = reader.exchange(id);
    if (!ex) {
      continue;
    }
    Ordered line = Ordered::object();
    line["id"] = ex->id;
    line["session_id"] = ex->session_id;
    line["seq"] = ex->seq;
    line["method"] = ex->method;
    line["target"] = ex->target;
    line["http_version"] = ex->http_version;
    line["status"] = ex->status;
    line["outcome"] = ex->outcome;
    line["error"] = ex->error ? Ordered(*ex->error) : Ordered(nullptr);
    line["started_ns"] = ex->started_ns;
    line["upstream_first_byte_ns"] = optional(ex->upstream_first_byte_ns);
    line["ended_ns"] = optional(ex->ended_ns);
    line["protocol"] = ex->protocol;
    line["route"] = ex->route;
    line["request_headers"] = headers(ex->request_headers);
    line["request_body"] = body(ex->request_body);
    line["response_headers"] = headers(ex->response_headers);
    line["response_body"] = body(ex->response_body);
    // Bodies are checked above; a method, target or error line from the network that is not
    // UTF-8 gets U+FFFD for its bad bytes.
    out << line.dump(-1, ' ', false, Ordered::error_handler_t::replace) << '\n';
    if (!out) {
      throw std::runtime_error("[store.export] writing line " + std::to_string(lines + 1) +
                               " (exchange " + std::to_string(id) + ") failed");
    }
    ++lines;
  }
  return lines;
}

}  // namespace agentvcr::store
