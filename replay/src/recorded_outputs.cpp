#include "agentvcr/replay/recorded_outputs.hpp"

#include <algorithm>

namespace agentvcr::replay {

ReaderPool::ReaderPool(std::string archive_path) : path_(std::move(archive_path)) {}

std::unique_ptr<store::ArchiveReader> ReaderPool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      auto reader = std::move(idle_.back());
      idle_.pop_back();
      return reader;
    }
  }
  return std::make_unique<store::ArchiveReader>(path_);
}

void ReaderPool::release(std::unique_ptr<store::ArchiveReader> reader) {
  if (!reader) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(reader));
}

RecordedAnswers::RecordedAnswers(ReaderPool& readers, std::size_t capacity)
    : readers_(readers), capacity_(std::max<std::size_t>(capacity, 1)) {}

std::shared_ptr<const RecordedAnswer> RecordedAnswers::of(std::int64_t exchange_id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = entries_.find(exchange_id); found != entries_.end()) {
      recency_.splice(recency_.begin(), recency_, found->second.position);
      return found->second.answer;
    }
  }
  // Read and parse outside the lock; two threads racing on one exchange parse it twice, which
  // is harmless.
  auto response = readers_.with(
      [&](const store::ArchiveReader& reader) { return reader.recordedResponse(exchange_id); });
  if (!response) {
    return nullptr;
  }
  auto outputs = protocol::parseOrderedJson(response->body);
  if (!outputs || !outputs->is_array()) {
    return nullptr;
  }
  auto answer = std::make_shared<const RecordedAnswer>(
      RecordedAnswer{std::move(*outputs), protocol::detectPythonJsonStyle(response->body),
                     std::move(response->headers)});

  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.count(exchange_id) == 0) {
    recency_.push_front(exchange_id);
    entries_.emplace(exchange_id, Entry{answer, recency_.begin()});
    if (entries_.size() > capacity_) {
      entries_.erase(recency_.back());
      recency_.pop_back();
    }
  }
  return answer;
}

std::vector<nlohmann::ordered_json> RecordedAnswers::outputsOf(const RecordedAnswer& answer,
                                                               std::int64_t source_id) {
  // A valid recorded response lists each input's candidates together, in candidate order
  // (the candidate-order rule), and input ids are unique within a request.
  std::vector<nlohmann::ordered_json> outputs;
  for (const auto& output : answer.outputs) {
    const auto id = output.is_object() ? output.find("source_id") : output.end();
    if (id != output.end() && id->is_number_integer() && id->get<std::int64_t>() == source_id) {
      outputs.push_back(output);
    }
  }
  return outputs;
}

}  // namespace agentvcr::replay
