#include "agentvcr/cli/signals.hpp"

#include <csignal>

namespace agentvcr::cli {

StopSignals::StopSignals() : signals_(io_, SIGINT, SIGTERM) {}

int StopSignals::wait() {
  int received = 0;
  // A signal delivered before this call is queued by the signal_set and completes at once.
  signals_.async_wait([&](const boost::system::error_code&, int number) { received = number; });
  io_.run();
  io_.restart();
  return received;
}

}  // namespace agentvcr::cli
