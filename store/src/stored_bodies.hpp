#pragma once

// How readers get a body back, whichever way the archive keeps it (docs/schema.md, Bodies):
// verbatim, one zstd frame, a frame against a dictionary (schema 9 to 15), or blocks of a segment
// (schema 16).

#include <cstdint>
#include <optional>
#include <string>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "body_dictionaries.hpp"
#include "body_segments.hpp"

namespace agentvcr::store::detail {

/// Where one side's body sits in a row of `exchanges`: the positions of the exchange's `id`,
/// the body, its codec, its dictionary, its segment (`body_segment_id`).
struct BodyColumns {
  BodySide side;
  int id;
  int body;
  int codec;
  int dictionary;
  int segment;

  /// The positions in `q`, by the columns' names. Throws std::logic_error when one is missing.
  static BodyColumns of(const SQLite::Statement& q, BodySide side);
};

/// The SELECT list a row needs for BodyColumns::of() of both sides, after the exchange's `id`.
inline constexpr const char* kStoredBodyColumns =
    "request_body, request_body_codec, request_body_dictionary, response_body, "
    "response_body_codec, response_body_dictionary, body_segment_id";

/// Gives stored bodies back byte for byte. Thread-safe.
class StoredBodies {
 public:
  explicit StoredBodies(SQLite::Database& db) : db_(db), dictionaries_(db), segments_(db) {}

  /// The body in the current row of `q`. Throws std::runtime_error "[store.body.*]".
  std::string read(const SQLite::Statement& q, const BodyColumns& columns);

  /// The same for a row read by name.
  std::string read(const SQLite::Statement& q, BodySide side) {
    return read(q, BodyColumns::of(q, side));
  }

  /// The `side` body of exchange `exchange_id`, read from its row; nullopt when there is none.
  std::optional<std::string> read(std::int64_t exchange_id, BodySide side);

 private:
  SQLite::Database& db_;
  std::optional<ReusedStatement> by_id_;  // prepared on first use
  DictionaryShelf dictionaries_;
  SegmentShelf segments_;
};

}  // namespace agentvcr::store::detail
