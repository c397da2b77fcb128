#include "index_handoff.hpp"

#include <utility>

namespace agentvcr::store::detail {

IndexHandoff::IndexHandoff(std::size_t capacity, std::size_t byte_limit,
                           std::int64_t read_back_through)
    : capacity_(capacity), byte_limit_(byte_limit) {
  if (read_back_through > 0) {
    queue_.emplace_back(ReadBack{read_back_through});
  }
}

void IndexHandoff::offer(std::vector<PendingExchange>& rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool spilling = false;
  for (PendingExchange& row : rows) {
    const std::size_t bytes = bodyBytes(row.redacted.exchange);
    // Once one is left out, so are the rest: a backlog then reads back in long runs.
    spilling = spilling || held_ + 1 > capacity_ || held_bytes_ + bytes > byte_limit_;
    if (!spilling) {
      ++held_;
      held_bytes_ += bytes;
      queue_.emplace_back(std::move(row));
      continue;
    }
    auto* read_back = queue_.empty() ? nullptr : std::get_if<ReadBack>(&queue_.back());
    if (read_back != nullptr) {
      read_back->through = row.id;
    } else {
      queue_.emplace_back(ReadBack{row.id});
    }
  }
}

IndexHandoff::Next IndexHandoff::take(std::size_t limit, std::size_t byte_limit) {
  Next next;
  std::size_t bytes = 0;
  std::lock_guard<std::mutex> lock(mutex_);
  while (!queue_.empty() && next.rows.size() < limit && bytes < byte_limit) {
    auto* row = std::get_if<PendingExchange>(&queue_.front());
    if (row == nullptr) {
      if (next.rows.empty()) {
        next.read_back_through = std::get<ReadBack>(queue_.front()).through;
      }
      break;
    }
    const std::size_t row_bytes = bodyBytes(row->redacted.exchange);
    bytes += row_bytes;
    held_bytes_ -= row_bytes;
    --held_;
    next.rows.push_back(std::move(*row));
    queue_.pop_front();
  }
  return next;
}

void IndexHandoff::readBack(std::int64_t through) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!queue_.empty()) {
    const auto* read_back = std::get_if<ReadBack>(&queue_.front());
    if (read_back != nullptr && read_back->through <= through) {
      queue_.pop_front();
    }
  }
}

}  // namespace agentvcr::store::detail
