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

/// The codec of a blob kept as a reference into an exchange's body (schema 16): `text` is empty,
/// `body_exchange_id`, `body_side` (0 request, 1 response), `body_at` and `body_end` say where.
inline constexpr std::string_view kBodyBlobCodec = "body";

/// Where a blob sits in a row, its columns named by one prefix P: P (its text), P_codec,
/// P_exchange, P_side, P_at and P_end (select them so: `m.text AS memory, m.codec AS
/// memory_codec, m.body_exchange_id AS memory_exchange`, ...).
struct BlobColumns {
  int text;
  int codec;
  int exchange;
  int side;
  int at;
  int end;

  /// The positions in `q`. Throws std::logic_error when one is missing.
  static BlobColumns of(const SQLite::Statement& q, const std::string& prefix);
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

  /// The keyframe of body segment `segment_id` (SegmentShelf::keyframe()).
  SegmentShelf::Bytes keyframe(std::int64_t segment_id) { return segments_.keyframe(segment_id); }

  /// The canonical JSON text of the blob in the current row of `q`, however it is kept:
  /// verbatim, a zstd frame, or a reference into a body. Throws std::runtime_error
  /// "[store.body.*]".
  std::string blob(const SQLite::Statement& q, const BlobColumns& columns);

  /// The canonical JSON text of the value at [at, end) of exchange `exchange_id`'s body
  /// (`side` 0: the request's, 1: the response's), as a blob kept in a body names it. Throws
  /// std::runtime_error "[store.body.corrupt]" when no such value is there.
  std::string valueInBody(std::optional<std::int64_t> exchange_id, std::optional<std::int64_t> side,
                          std::optional<std::int64_t> at, std::optional<std::int64_t> end);

 private:
  SQLite::Database& db_;
  std::optional<ReusedStatement> by_id_;  // prepared on first use
  DictionaryShelf dictionaries_;
  SegmentShelf segments_;
};

}  // namespace agentvcr::store::detail
