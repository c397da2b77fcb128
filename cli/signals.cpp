#include "agentvcr/cli/signals.hpp"

#include <csignal>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

namespace agentvcr::cli {

class StopSignals::Impl {
 public:
  Impl() : signals_(io_, SIGINT, SIGTERM) {}

  int wait() {
    int received = 0;
    // A signal delivered before this call is queued by the signal_set and completes at once;
    // an interrupt() before it is a posted cancel that io_.run() performs first.
    signals_.async_wait(
        [&](const boost::system::error_code& ec, int number) { received = ec ? 0 : number; });
    io_.run();
    io_.restart();
    return received;
  }

  void interrupt() {
    boost::asio::post(io_, [this] { signals_.cancel(); });
  }

 private:
  boost::asio::io_context io_{1};
  boost::asio::signal_set signals_;
};

StopSignals::StopSignals() : impl_(std::make_unique<Impl>()) {}

StopSignals::~StopSignals() = default;

int StopSignals::wait() {
  return impl_->wait();
}

void StopSignals::interrupt() {
  impl_->interrupt();
}

}  // namespace agentvcr::cli
