#pragma once

// Helpers shared by the fuzz targets: how one fuzz input becomes the pieces a target reads,
// and how a broken invariant is reported (a crash the fuzzer and the corpus driver both see).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace agentvcr::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A request and a response in one input, separated by the first NUL byte (a NUL never occurs
/// in JSON text, so the fuzzer cannot confuse the two halves). Without one, both are `text`.
inline std::pair<std::string_view, std::string_view> requestAndResponse(std::string_view text) {
  const std::size_t nul = text.find('\0');
  if (nul == std::string_view::npos) {
    return {text, text};
  }
  return {text.substr(0, nul), text.substr(nul + 1)};
}

/// Stops the run on a broken property, naming it.
inline void require(bool holds, const char* property) {
  if (!holds) {
    std::fprintf(stderr, "fuzz property broken: %s\n", property);
    std::abort();
  }
}

}  // namespace agentvcr::fuzz
