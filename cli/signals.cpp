#include "agentvcr/cli/signals.hpp"

#include <csignal>
#include <exception>
#include <ostream>
#include <thread>

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

void StopSignals::whileStopping(const std::function<void()>& stop,
                                const std::function<void(int)>& hurry) {
  std::thread second([&] {
    if (const int signal = wait(); signal != 0) {
      hurry(signal);
    }
  });
  std::exception_ptr failed;
  try {
    stop();
  } catch (...) {
    failed = std::current_exception();
  }
  interrupt();
  second.join();
  if (failed) {
    std::rethrow_exception(failed);
  }
}

void drainAfterSignal(StopSignals& signals, int signal, std::ostream& out, std::string_view command,
                      std::chrono::milliseconds drain, const std::function<void()>& stop,
                      const std::function<void()>& cut_now) {
  out << "agentvcr " << command << ": signal " << signal << ", draining for up to "
      << std::chrono::duration_cast<std::chrono::seconds>(drain).count()
      << " s (another signal stops at once)" << std::endl;
  // `out` is written from the second thread only while this one waits in `stop`.
  signals.whileStopping(stop, [&](int again) {
    out << "agentvcr " << command << ": signal " << again
        << " again, stopping now: exchanges still in progress are cut" << std::endl;
    cut_now();
  });
}

}  // namespace agentvcr::cli
