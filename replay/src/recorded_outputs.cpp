#include "agentvcr/replay/recorded_outputs.hpp"

#include <algorithm>

namespace agentvcr::replay {

ReaderPool::ReaderPool(std::string archive_path) : path_(std::move(archive_path)) {}

std::unique_ptr<store::ArchiveReader> ReaderPool::acquire() {
  reads_.fetch_add(1, std::memory_order_relaxed);
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

std::shared_ptr<const RecordedAnswer> RecordedAnswer::parse(std::string_view body,
                                                            protocol::Headers headers) {
  const auto outputs = protocol::parseOrderedJson(body);
  if (!outputs || !outputs->is_array()) {
    return nullptr;
  }
  auto answer = std::make_shared<RecordedAnswer>();
  answer->style = protocol::detectPythonJsonStyle(body);
  answer->headers = std::move(headers);
  for (const auto& output : *outputs) {
    // Only objects with an integer source_id can answer an input.
    const auto id = output.is_object() ? output.find("source_id") : output.end();
    if (id != output.end() && id->is_number_integer()) {
      answer->outputs.emplace_back(output, answer->style);
    }
  }
  return answer;
}

std::vector<const StampedOutput*> RecordedAnswer::outputsOf(std::int64_t source_id) const {
  std::vector<const StampedOutput*> found;
  for (const StampedOutput& output : outputs) {
    if (output.recordedSourceId() == source_id) {
      found.push_back(&output);
    }
  }
  return found;
}

std::size_t RecordedAnswer::bytes() const {
  std::size_t total = sizeof(RecordedAnswer);
  for (const StampedOutput& output : outputs) {
    total += sizeof(StampedOutput) + output.bytes();
  }
  for (const auto& header : headers) {
    total += header.name.size() + header.value.size();
  }
  return total;
}

RecordedAnswers::RecordedAnswers(ReaderPool& readers, std::size_t kept_bytes)
    : readers_(readers), kept_(kept_bytes) {}

std::shared_ptr<const RecordedAnswer> RecordedAnswers::of(std::int64_t exchange_id) {
  return kept_.of(exchange_id, [&]() -> std::shared_ptr<const RecordedAnswer> {
    auto response = readers_.with(
        [&](const store::ArchiveReader& reader) { return reader.recordedResponse(exchange_id); });
    if (!response) {
      return nullptr;
    }
    return RecordedAnswer::parse(response->body, std::move(response->headers));
  });
}

}  // namespace agentvcr::replay
