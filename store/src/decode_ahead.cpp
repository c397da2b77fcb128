#include "decode_ahead.hpp"

#include <utility>

#include "agentvcr/store/background_thread.hpp"

namespace agentvcr::store::detail {

DecodeAhead::DecodeAhead(DecodeOptions options)
    : options_(std::move(options)), thread_([this] { run(); }) {}

DecodeAhead::~DecodeAhead() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void DecodeAhead::start(std::vector<PendingExchange> rows) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    input_ = std::move(rows);
  }
  pending_ = true;
  wake_.notify_one();
}

std::vector<DecodedRow> DecodeAhead::take() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return output_.has_value() || error_ != nullptr; });
  pending_ = false;
  if (error_ != nullptr) {
    std::exception_ptr error = std::exchange(error_, nullptr);
    std::rethrow_exception(error);
  }
  std::vector<DecodedRow> decoded = std::move(*output_);
  output_.reset();
  return decoded;
}

void DecodeAhead::run() noexcept {
  nameThisThread("avcr-decode");
  lowerThisThreadsPriority();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return input_.has_value() || stopping_; });
    if (stopping_) {
      return;
    }
    std::vector<PendingExchange> rows = std::move(*input_);
    input_.reset();
    lock.unlock();
    std::optional<std::vector<DecodedRow>> decoded;
    std::exception_ptr error;
    try {
      decoded = decodeRows(std::move(rows), options_);
    } catch (...) {
      error = std::current_exception();  // out of memory or alike: take() rethrows it
    }
    lock.lock();
    output_ = std::move(decoded);
    error_ = error;
    done_.notify_one();
  }
}

}  // namespace agentvcr::store::detail
