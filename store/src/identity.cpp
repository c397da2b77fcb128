#include "agentvcr/store/identity.hpp"

#include <array>
#include <cctype>

#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <unistd.h>

#include "agentvcr_version.hpp"

namespace agentvcr::store {

const char* agentvcrVersion() {
  return kAgentvcrVersion;
}

std::string mintUuid() {
  // Seeded from the operating system's entropy; one generator per thread, since minting is rare
  // and the generator is not thread-safe.
  thread_local boost::uuids::random_generator generate;
  return boost::uuids::to_string(generate());
}

std::string localNodeName() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') {
    return "unknown";
  }
  return std::string(name.data());
}

bool isUuid(std::string_view text) {
  if (text.size() != 36) {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : std::isxdigit(static_cast<unsigned char>(text[i])) == 0) {
      return false;
    }
  }
  return true;
}

std::string canonicalUuid(std::string_view uuid) {
  std::string spelled(uuid);
  if (isUuid(uuid)) {
    for (char& c : spelled) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return spelled;
}

std::string shortUuid(std::string_view uuid) {
  return std::string(uuid.substr(0, 8));
}

namespace {

constexpr std::string_view kUuidShape = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

}  // namespace

std::optional<std::string> uuidPrefix(std::string_view text) {
  if (text.size() < shortUuid(kUuidShape).size() || text.size() > kUuidShape.size()) {
    return std::nullopt;
  }
  std::string prefix;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    const bool fits =
        kUuidShape[i] == '-' ? c == '-' : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!fits) {
      return std::nullopt;
    }
    prefix += c;
  }
  return prefix;
}

std::pair<std::string, std::string> uuidBounds(std::string_view prefix) {
  std::string lowest(prefix);
  std::string highest(prefix);
  for (std::size_t i = prefix.size(); i < kUuidShape.size(); ++i) {
    lowest += kUuidShape[i] == '-' ? '-' : '0';
    highest += kUuidShape[i] == '-' ? '-' : 'f';
  }
  return {lowest, highest};
}

}  // namespace agentvcr::store
