// StopSignals catches a stop from its construction on: a SIGTERM that arrives while a server
// is still starting is answered by wait() and does not kill the process.

#include <csignal>

#include <gtest/gtest.h>

#include "agentvcr/cli/signals.hpp"

namespace agentvcr::cli {
namespace {

TEST(StopSignalsTest, ASignalBeforeWaitIsKeptAndReturnedByWait) {
  StopSignals stop_signals;
  ASSERT_EQ(std::raise(SIGTERM), 0);  // without the handler in place, this ends the test binary
  EXPECT_EQ(stop_signals.wait(), SIGTERM);
}

TEST(StopSignalsTest, WaitReturnsTheSignalThatCame) {
  StopSignals stop_signals;
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_EQ(stop_signals.wait(), SIGINT);
}

}  // namespace
}  // namespace agentvcr::cli
