#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/replay/exchange_cache.hpp"
#include "agentvcr/replay/stamped_output.hpp"
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

  /// Readers handed out so far: each a read of the archive. The status route shows it, so a
  /// suite replayed again can be seen answered from memory.
  std::uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }

 private:
  std::unique_ptr<store::ArchiveReader> acquire();
  void release(std::unique_ptr<store::ArchiveReader> reader);

  std::string path_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<store::ArchiveReader>> idle_;
  std::atomic<std::uint64_t> reads_{0};
};

/// A recorded /v1/responses answer, made ready to replay once: each output object written out
/// in the agent's own key order and style (StampedOutput).
struct RecordedAnswer {
  std::vector<StampedOutput> outputs;  ///< the object outputs, in the order the agent sent them
  protocol::PythonJsonStyle style;     ///< how the agent wrote it (spacing, escaping)
  protocol::Headers headers;           ///< response headers as recorded

  /// The answer in `body`; nullptr when it is no JSON array.
  static std::shared_ptr<const RecordedAnswer> parse(std::string_view body,
                                                     protocol::Headers headers);

  /// The outputs of one recorded input (`source_id`) in candidate order. A valid recorded
  /// response lists each input's candidates together, in candidate order (the candidate-order
  /// rule), and input ids are unique within a request.
  std::vector<const StampedOutput*> outputsOf(std::int64_t source_id) const;

  /// Bytes held, for the cache's budget.
  std::size_t bytes() const;
};

/// Recorded answers by exchange, read on first use and kept in an LRU cache bounded in bytes,
/// so a GEN request whose inputs come from one recorded exchange reads it once, and a test
/// suite replayed again reads nothing. Thread-safe.
class RecordedAnswers {
 public:
  /// Answer bytes kept: 64 MiB holds about 25,000 answers of 2 KB.
  static constexpr std::size_t kDefaultKeptBytes = 64u << 20;

  explicit RecordedAnswers(ReaderPool& readers, std::size_t kept_bytes = kDefaultKeptBytes);

  /// The answer of exchange `exchange_id`; empty when its body is no JSON array.
  std::shared_ptr<const RecordedAnswer> of(std::int64_t exchange_id);

 private:
  ReaderPool& readers_;
  ExchangeCache<RecordedAnswer> kept_;
};

}  // namespace agentvcr::replay
