// Fuzz target: the untrusted JSON parser and canonical JSON, the ground of every replay key.
// Properties: the fast parser agrees with the exact one (same value, same error); canonical text
// parses back to a value with the same canonical text and hash.

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "fuzz_input.hpp"

using namespace agentvcr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::asText(data, size);
  const auto parsed = protocol::parseJson(text);
  const auto exact = protocol::parseJsonExact(text);
  fuzz::require(parsed.value.has_value() == exact.value.has_value(), "both parsers accept");
  if (!parsed.value) {
    fuzz::require(
        parsed.error.offset == exact.error.offset && parsed.error.message == exact.error.message,
        "both parsers report the same error");
    return 0;
  }
  fuzz::require(parsed.value->dump() == exact.value->dump(), "both parsers read the same value");
  const std::string canonical = protocol::canonicalJson(*parsed.value);
  const auto again = protocol::parseJson(canonical);
  fuzz::require(again.value.has_value(), "canonical JSON parses");
  fuzz::require(protocol::canonicalJson(*again.value) == canonical, "canonical JSON is stable");
  fuzz::require(protocol::canonicalHash(*again.value) == protocol::canonicalHash(*parsed.value),
                "equal values hash equal");
  protocol::dumpCompact(*parsed.value);
  return 0;
}
