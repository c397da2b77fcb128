#pragma once

// Bodies as segments of one zstd stream (docs/schema.md, Bodies). An agent that keeps its whole
// history sends it back in every request and returns it, one turn longer, in every answer: each
// body repeats the one before it nearly whole. Compressed one by one, the archive grows with the
// square of an episode's length; compressed as one stream, each body costs what it adds.
//
// The capture keeps one stream per MAGMA route: the request and answer of each exchange go
// through it in order, each flushed into blocks of its own and stored in its exchange's row. A
// stream is cut into segments, each its own zstd frame, so that reading a body decodes a bounded
// run: the blocks of its segment up to it. A segment's frame starts from the previous segment's
// keyframe (its first exchange's bodies) as a raw-content prefix, so a cut loses little; every
// kSegmentsPerAnchor segments one starts from nothing, which bounds the chain of keyframes a
// read decodes. Reading the last body of a 300-step conversation decodes at most 15 keyframes
// and 16 exchanges, however long the conversation.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "body_compression.hpp"
#include "recent_bytes.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

/// The codec of a body stored as its blocks of a segment (`exchanges.body_segment_id`).
inline constexpr std::string_view kSegmentCodec = "zstd-segment";

/// Exchanges per segment: what one read decodes at most, besides the keyframes.
inline constexpr std::size_t kExchangesPerSegment = 16;
/// Segments per anchor, the segment that starts from nothing: the longest keyframe chain.
inline constexpr std::size_t kSegmentsPerAnchor = 16;
/// A segment ends once its bodies reach this many bytes: a read never decodes much more.
inline constexpr std::size_t kSegmentBytes = 4u << 20;
/// The compression window, 2^kSegmentWindowLog bytes: a segment's bodies and its prefix fit in
/// it, so every body can reach back to the previous step.
inline constexpr int kSegmentWindowLog = 23;
/// Bodies larger than this are compressed alone, outside any segment.
inline constexpr std::size_t kLargestSegmentedBody = 4u << 20;

/// Which body of an exchange.
enum class BodySide { Request, Response };

/// Both bodies of one exchange as their segment stores them. A body shorter than kCompressFrom
/// stays out of the stream, verbatim (nullopt), readable with plain SQL.
struct SegmentedBodies {
  std::int64_t segment_id = 0;
  std::optional<std::string> request_blocks;
  std::optional<std::string> response_blocks;
};

/// Packs the capture's MAGMA bodies into segments, writing each new segment's row through the
/// writer's connection inside its open transaction. Not thread-safe: one per writer.
class SegmentPacker {
 public:
  explicit SegmentPacker(SQLite::Database& db);
  ~SegmentPacker();
  SegmentPacker(const SegmentPacker&) = delete;
  SegmentPacker& operator=(const SegmentPacker&) = delete;

  /// The exchange's bodies through `stream`'s current segment, which they may end or start.
  /// nullopt when a body is too large for a segment (compress them alone), or both are short.
  /// Throws on a failed segment insert. Until confirmed(), the stream holds these bodies
  /// provisionally.
  std::optional<SegmentedBodies> pack(std::string_view request, std::string_view response,
                                      const std::string& stream);

  /// The row of the bodies pack() gave last is written: later bodies may refer to them.
  void confirmed();
  /// The row was not written: its stream ends, since its blocks refer to bodies no row holds.
  void abandoned();

  /// The transaction rolled back: every stream that wrote in it ends.
  void rolledBack();

 private:
  struct Stream;

  Stream& startSegment(const std::string& stream);
  std::string flush(Stream& s, std::string_view body);

  SQLite::Database& db_;
  ReusedStatement insert_;
  std::map<std::string, std::unique_ptr<Stream>> streams_;
  std::string pending_;  // the stream of the last pack() until confirmed() or abandoned()
};

/// Decodes segmented bodies for readers, keeping the keyframes and bodies decoded most recently,
/// so that a reader going through a conversation in order decodes each segment about once.
/// Thread-safe.
class SegmentShelf {
 public:
  /// Decoded bytes kept: keyframes and bodies together.
  static constexpr std::size_t kKeptBytes = 32u << 20;

  explicit SegmentShelf(SQLite::Database& db);
  ~SegmentShelf();
  SegmentShelf(const SegmentShelf&) = delete;
  SegmentShelf& operator=(const SegmentShelf&) = delete;

  /// The `side` body of exchange `exchange_id`, stored in segment `segment_id`. Throws
  /// std::runtime_error "[store.body.corrupt]" when the blocks do not decode, and
  /// "[store.body.segment]" when the archive lacks a row the segment needs.
  std::string body(std::int64_t segment_id, std::int64_t exchange_id, BodySide side);

  using Bytes = std::shared_ptr<const std::string>;

  /// Segment `segment_id`'s keyframe: its first request and answer, back to back. What every
  /// body of the segment is most likely to repeat, hence also what the change feed compresses
  /// them against for the fleet. Throws as body() does.
  Bytes keyframe(std::int64_t segment_id);

 private:
  struct Key {
    std::int64_t id;
    int kind;  // 0: request body, 1: response body, 2: a segment's keyframe
    bool operator==(const Key&) const = default;
  };

  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<std::int64_t>{}(k.id * 3 + k.kind);
    }
  };

  /// Decodes segment `segment_id` up to exchange `last_id` (the first exchange when nullopt:
  /// the keyframe), keeping every body it meets.
  void decode(std::int64_t segment_id, std::optional<std::int64_t> last_id);

  /// The decoder, left where the last decode stopped: a reader going through a segment in order
  /// decodes each body once.
  struct Live;

  SQLite::Database& db_;
  std::recursive_mutex mutex_;
  std::optional<ReusedStatement> segment_;  // prepared on first use
  std::optional<ReusedStatement> blocks_;
  RecentBytes<Key, KeyHash> kept_{kKeptBytes};
  std::unique_ptr<Live> live_;  // made on the first decode
};

}  // namespace agentvcr::store::detail
