#include "agentvcr/protocol/validation.hpp"

#include <gtest/gtest.h>

#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::protocol {
namespace {

TEST(ToJsonPointer, JoinsKeysAndIndexes) {
  EXPECT_EQ(toJsonPointer({"inputs", std::int64_t{0}, "instruction", "type"}),
            "/inputs/0/instruction/type");
  EXPECT_EQ(toJsonPointer({}), "");
  EXPECT_EQ(toJsonPointer({std::int64_t{3}}), "/3");
}

TEST(ToJsonPointer, EscapesTildeAndSlash) {
  EXPECT_EQ(toJsonPointer({"a/b", "c~d"}), "/a~1b/c~0d");
}

TEST(OutcomeName, StableNames) {
  EXPECT_STREQ(outcomeName(ExchangeOutcome::Complete), "complete");
  EXPECT_STREQ(outcomeName(ExchangeOutcome::UpstreamError), "upstream_error");
  EXPECT_STREQ(outcomeName(ExchangeOutcome::UpstreamTimeout), "upstream_timeout");
  EXPECT_STREQ(outcomeName(ExchangeOutcome::RequestRejected), "request_rejected");
  EXPECT_STREQ(outcomeName(ExchangeOutcome::ClientAborted), "client_aborted");
}

}  // namespace
}  // namespace agentvcr::protocol
