#pragma once

// Bodies compressed against an earlier body (docs/schema.md, Bodies). Consecutive MAGMA bodies
// share nearly everything: tools, attributes and most of every memory repeat from one step to
// the next. Compressed alone, a 2 KB request still takes about 900 bytes; compressed with the
// previous step's body as a zstd dictionary it takes a few dozen. The capture keeps one
// dictionary per stream (a MAGMA route and side); when a body no longer compresses well against
// it (the episode moved on), that body becomes the stream's next dictionary. Dictionaries live
// in `body_dictionaries`, themselves stored as plain zstd frames, and a body names its
// dictionary in `exchanges.request_body_dictionary` / `response_body_dictionary`.

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "body_compression.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

/// Bodies larger than this are compressed alone: a dictionary only reaches back as far as the
/// compression window, and keeping larger ones would cost memory for little gain.
inline constexpr std::size_t kLargestDictionary = 256 * 1024;

/// A body as the capture stores it.
struct PackedBody {
  std::optional<std::string> frame;        ///< zstd frame; empty: store the body verbatim
  std::optional<std::int64_t> dictionary;  ///< `body_dictionaries.id` the frame needs
};

/// Compresses the capture's bodies, against the stream's dictionary where one helps. Writes new
/// dictionaries through the writer's connection, inside its open transaction. Not thread-safe:
/// one per writer.
class DictionaryPacker {
 public:
  explicit DictionaryPacker(SQLite::Database& db);
  ~DictionaryPacker();
  DictionaryPacker(const DictionaryPacker&) = delete;
  DictionaryPacker& operator=(const DictionaryPacker&) = delete;

  /// `body` packed for `stream` (empty: no dictionary, compressed alone as before). Throws on a
  /// failed dictionary insert; the body is then not written either.
  PackedBody pack(std::string_view body, const std::string& stream);

  /// The transaction committed: dictionaries made since are on disk for good.
  void committed();
  /// The transaction rolled back: dictionaries made since are gone, so later bodies must not
  /// name them.
  void rolledBack();

 private:
  struct Dictionary;

  /// Makes `body` the stream's dictionary: stores it and prepares it for compression.
  const Dictionary& promote(std::string_view body, const std::string& stream);

  struct Current {
    std::shared_ptr<const Dictionary> dictionary;
    bool committed = false;
  };

  SQLite::Database& db_;
  ReusedStatement insert_;
  BodyCompressor plain_;
  struct Context;
  std::unique_ptr<Context> context_;
  std::map<std::string, Current> current_;  // per stream
};

/// Decompresses stored bodies for readers, keeping the dictionaries they met most recently.
/// Thread-safe.
class DictionaryShelf {
 public:
  /// Dictionary bytes kept. A long run makes a new dictionary every few steps (each memory
  /// change moves the stream on), and replay reads steps in any order: 16 MiB holds about
  /// 13,000 of the usual 1.2 KB ones.
  static constexpr std::size_t kKeptBytes = 16u << 20;

  explicit DictionaryShelf(SQLite::Database& db);
  ~DictionaryShelf();
  DictionaryShelf(const DictionaryShelf&) = delete;
  DictionaryShelf& operator=(const DictionaryShelf&) = delete;

  /// The body stored as `stored` with `codec` and `dictionary` (NULL: none). Throws
  /// std::runtime_error "[store.body.*]" as unpackBody does, and "[store.body.dictionary]" for a
  /// dictionary the archive does not hold.
  std::string unpack(std::string_view stored, const std::optional<std::string>& codec,
                     std::optional<std::int64_t> dictionary);

  /// unpack() of a row's columns: the stored body, its codec and its dictionary id.
  std::string unpackColumns(const SQLite::Statement& q, int body, int codec, int dictionary);

 private:
  using Content = std::shared_ptr<const std::string>;

  struct Kept {
    Content content;
    std::list<std::int64_t>::iterator recency;
  };

  Content load(std::int64_t id);
  Content read(std::int64_t id);

  SQLite::Database& db_;
  std::mutex mutex_;
  std::optional<ReusedStatement> select_;  // prepared on the first load
  std::unordered_map<std::int64_t, Kept> kept_;
  std::list<std::int64_t> recency_;  // most recently used first
  std::size_t kept_bytes_ = 0;
};

}  // namespace agentvcr::store::detail
