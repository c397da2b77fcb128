// Fuzz target: the untrusted JSON parser and canonical JSON, the ground of every replay key.
// Property: canonical text parses back to a value with the same canonical text and hash.

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "fuzz_input.hpp"

using namespace agentvcr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = protocol::parseJson(fuzz::asText(data, size));
  if (!parsed.value) {
    return 0;
  }
  const std::string canonical = protocol::canonicalJson(*parsed.value);
  const auto again = protocol::parseJson(canonical);
  fuzz::require(again.value.has_value(), "canonical JSON parses");
  fuzz::require(protocol::canonicalJson(*again.value) == canonical, "canonical JSON is stable");
  fuzz::require(protocol::canonicalHash(*again.value) == protocol::canonicalHash(*parsed.value),
                "equal values hash equal");
  protocol::dumpCompact(*parsed.value);
  return 0;
}
