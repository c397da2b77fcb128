#include "agentvcr/cli/signals.hpp"

#include <csignal>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

namespace agentvcr::cli {

int waitForStopSignal() {
  boost::asio::io_context io{1};
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  int received = 0;
  signals.async_wait([&](const boost::system::error_code&, int number) { received = number; });
  io.run();
  return received;
}

}  // namespace agentvcr::cli
