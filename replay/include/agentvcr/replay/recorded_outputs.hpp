#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::replay {

/// ArchiveReaders for concurrent callers: one SQLite connection per thread at a time, opened on
/// first need and kept for the next caller. Thread-safe.
class ReaderPool {
 public:
  explicit ReaderPool(std::string archive_path);

  /// Runs `use` with a reader no other thread holds meanwhile.
  template <class Use>
  auto with(Use&& use) {
    std::unique_ptr<store::ArchiveReader> reader = acquire();

    struct Return {
      ReaderPool* pool;
      std::unique_ptr<store::ArchiveReader>* reader;

      ~Return() { pool->release(std::move(*reader)); }
    } give_back{this, &reader};

    return use(*reader);
  }

  const std::string& path() const { return path_; }

 private:
  std::unique_ptr<store::ArchiveReader> acquire();
  void release(std::unique_ptr<store::ArchiveReader> reader);

  std::string path_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<store::ArchiveReader>> idle_;
};

/// A recorded /v1/responses answer, parsed once with the agent's own key order.
struct RecordedAnswer {
  nlohmann::ordered_json outputs;   ///< the bare JSON array the agent sent
  protocol::PythonJsonStyle style;  ///< how the agent wrote it (spacing, escaping)
  protocol::Headers headers;        ///< response headers as recorded
};

/// Recorded answers by exchange, parsed on first use and kept in a small LRU cache, so a GEN
/// request whose inputs come from one recorded exchange parses it once. Thread-safe.
class RecordedAnswers {
 public:
  RecordedAnswers(ReaderPool& readers, std::size_t capacity = 256);

  /// The parsed answer of exchange `exchange_id`; empty when its body is no JSON array.
  std::shared_ptr<const RecordedAnswer> of(std::int64_t exchange_id);

  /// The outputs of one recorded input (`source_id`) in candidate order.
  static std::vector<nlohmann::ordered_json> outputsOf(const RecordedAnswer& answer,
                                                       std::int64_t source_id);

 private:
  ReaderPool& readers_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::list<std::int64_t> recency_;  ///< most recent first

  struct Entry {
    std::shared_ptr<const RecordedAnswer> answer;
    std::list<std::int64_t>::iterator position;
  };

  std::unordered_map<std::int64_t, Entry> entries_;
};

}  // namespace agentvcr::replay
