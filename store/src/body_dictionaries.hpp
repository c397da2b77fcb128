#pragma once

// Bodies compressed against an earlier body, as archives of schema 9 to 15 keep their MAGMA
// bodies (docs/schema.md, Bodies): a zstd frame made with an earlier body of its route as a
// raw-content dictionary, kept in `body_dictionaries` and named by
// `exchanges.request_body_dictionary` / `response_body_dictionary`. Schema 16 writes segments
// instead (body_segments.hpp); these rows are still read, and a fleet's bodies are still shipped
// so.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "body_compression.hpp"
#include "recent_bytes.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

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

  Content load(std::int64_t id);
  Content read(std::int64_t id);

  SQLite::Database& db_;
  std::mutex mutex_;
  std::optional<ReusedStatement> select_;  // prepared on the first load
  RecentBytes<std::int64_t> kept_{kKeptBytes};
};

}  // namespace agentvcr::store::detail
