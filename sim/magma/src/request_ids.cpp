#include "agentvcr/sim/magma/request_ids.hpp"

namespace agentvcr::sim::magma {

std::string RequestIdGenerator::next() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::uint64_t high = engine_();
  std::uint64_t low = engine_();
  high = (high & ~(std::uint64_t{0xF} << 12)) | (std::uint64_t{0x4} << 12);  // version 4
  low = (low & ~(std::uint64_t{0x3} << 62)) | (std::uint64_t{0x2} << 62);    // variant 10xx
  std::string id(32, '0');
  for (int i = 0; i < 16; ++i) {
    id[static_cast<std::size_t>(15 - i)] = kHex[(high >> (4 * i)) & 0xF];
    id[static_cast<std::size_t>(31 - i)] = kHex[(low >> (4 * i)) & 0xF];
  }
  return id;
}

}  // namespace agentvcr::sim::magma
