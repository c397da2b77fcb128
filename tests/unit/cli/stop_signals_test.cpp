// StopSignals catches a stop from its construction on: a SIGTERM that arrives while a server
// is still starting is answered by wait() and does not kill the process.

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

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

TEST(StopSignalsTest, InterruptEndsAWaitInProgressWithZero) {
  StopSignals stop_signals;
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop_signals.interrupt();
  });
  EXPECT_EQ(stop_signals.wait(), 0);
  interrupter.join();
}

TEST(StopSignalsTest, AnInterruptBeforeWaitIsKept) {
  StopSignals stop_signals;
  stop_signals.interrupt();
  EXPECT_EQ(stop_signals.wait(), 0);
}

TEST(StopSignalsTest, ASignalWhileStoppingHurriesTheStop) {
  StopSignals stop_signals;
  std::atomic<int> hurried{0};
  std::atomic<bool> hurry_now{false};
  stop_signals.whileStopping(
      [&] {
        ASSERT_EQ(std::raise(SIGINT), 0);  // the second Ctrl-C, while the drain runs
        for (int i = 0; i < 5000 && !hurry_now; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      },
      [&](int signal) {
        hurried = signal;
        hurry_now = true;
      });
  EXPECT_EQ(hurried, SIGINT);
}

TEST(StopSignalsTest, AStopWithoutASecondSignalIsNotHurried) {
  StopSignals stop_signals;
  bool stopped = false;
  bool hurried = false;
  stop_signals.whileStopping([&] { stopped = true; }, [&](int) { hurried = true; });
  EXPECT_TRUE(stopped);
  EXPECT_FALSE(hurried);
}

}  // namespace
}  // namespace agentvcr::cli
