#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

namespace agentvcr::cli {

/// Catches SIGINT and SIGTERM from its construction on, so that a stop asked for while a
/// server is still starting (right after its ready file appears, say) is a clean stop and not
/// the default disposition killing the process. Construct it before starting anything.
class StopSignals {
 public:
  StopSignals();

  /// Blocks until SIGINT or SIGTERM has arrived (at once if one came earlier); returns it.
  int wait();

 private:
  boost::asio::io_context io_{1};
  boost::asio::signal_set signals_;
};

}  // namespace agentvcr::cli
