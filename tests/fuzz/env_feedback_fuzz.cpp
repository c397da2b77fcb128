// Fuzz target: decoding the `content` of an env instruction (robot outcome lines, errors,
// previous tool calls) as the recorder stores it. Input: the content string.

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/env_feedback.hpp"
#include "fuzz_input.hpp"

using namespace agentvcr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const protocol::EnvFeedback feedback = protocol::decodeEnvFeedback(fuzz::asText(data, size));
  fuzz::require(feedback.raw == fuzz::asText(data, size), "the raw content is kept as sent");
  fuzz::require(feedback.is_json_object || feedback.outcomes.empty(),
                "outcomes come only from a JSON object");
  const protocol::Json json = protocol::toJson(feedback);
  protocol::canonicalJson(json);
  feedback.anyFailure();
  return 0;
}
