#include "agentvcr/sim/a2a/id_generator.hpp"

namespace agentvcr::sim::a2a {

std::string IdGenerator::next() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::uint64_t high = engine_();
  std::uint64_t low = engine_();
  high = (high & ~(std::uint64_t{0xF} << 12)) | (std::uint64_t{0x4} << 12);  // version 4
  low = (low & ~(std::uint64_t{0x3} << 62)) | (std::uint64_t{0x2} << 62);    // variant 10xx
  std::string digits(32, '0');
  for (int i = 0; i < 16; ++i) {
    digits[static_cast<std::size_t>(15 - i)] = kHex[(high >> (4 * i)) & 0xF];
    digits[static_cast<std::size_t>(31 - i)] = kHex[(low >> (4 * i)) & 0xF];
  }
  return digits.substr(0, 8) + "-" + digits.substr(8, 4) + "-" + digits.substr(12, 4) + "-" +
         digits.substr(16, 4) + "-" + digits.substr(20);
}

}  // namespace agentvcr::sim::a2a
