#pragma once

// The order every exchange's timing points keep (docs/schema.md, "Timing points"), for the tests
// of each component that records them.

#include <gtest/gtest.h>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::testing {

/// started <= request_ended <= upstream_sent <= upstream_first_byte <= upstream_last_byte <=
/// ended, none missing.
inline void expectTimingPointsInOrder(const store::ExchangeRow& exchange) {
  ASSERT_TRUE(exchange.request_ended_ns.has_value());
  ASSERT_TRUE(exchange.upstream_sent_ns.has_value());
  ASSERT_TRUE(exchange.upstream_first_byte_ns.has_value());
  ASSERT_TRUE(exchange.upstream_last_byte_ns.has_value());
  ASSERT_TRUE(exchange.ended_ns.has_value());
  EXPECT_LE(exchange.started_ns, *exchange.request_ended_ns);
  EXPECT_LE(*exchange.request_ended_ns, *exchange.upstream_sent_ns);
  EXPECT_LE(*exchange.upstream_sent_ns, *exchange.upstream_first_byte_ns);
  EXPECT_LE(*exchange.upstream_first_byte_ns, *exchange.upstream_last_byte_ns);
  EXPECT_LE(*exchange.upstream_last_byte_ns, *exchange.ended_ns);
}

}  // namespace agentvcr::testing
